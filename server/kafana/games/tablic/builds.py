"""Building (the `building` switch, RULES.md "Building", as Cassino): builds on the table, and
the moves that make, raise and capture them.

A build is cards on the table as one unit, with its value and its owner (the seat that made
or last raised it). Pure Python on purpose: only a match with `building` on comes here, and
its state takes the Python paths (the C fast paths know no builds). Choices this engine
makes where RULES.md is silent (docs/rules.md, "Building"):

- a card captures a build with its capture value, by sum or by rank only alike (a K worth 13
  under `wild_jack` takes a build of 13); a wild J captures by no value (it takes everything);
- a card takes part in a build (played or joined) with its values in a sum group: a wild J,
  and a Q or K under `royals_by_rank_only`, never does; each ace counts 1 or 11 on its own;
- a raise joins exactly one build (and any loose cards); its owner may raise it too;
- `must_capture`: where a capture exists, only captures are legal (no build, no raise);
- an owner may trail only when no capture, build or raise is possible (a player always has
  a move).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kafana.errors import IllegalMoveError, TooManyMovesError
from kafana.games.cards import Card
from kafana.games.tablic.capture import CAPTURE_LIMIT, UNITS, CaptureEngine, count_vector
from kafana.games.tablic.move import BUILD_VALUE_LIMIT, EMPTY, TRAILS, Move
from kafana.games.tablic.rules import Rules

JACK = 11
TRAIL, CAPTURE, BUILD = 0, 1, 2
"""The kinds of move `kind` tells apart."""


@dataclass(frozen=True, order=True)
class Build:
    """A build on the table: its cards (in canonical order), its value and its owner's seat."""

    cards: tuple[Card, ...]
    value: int
    owner: int

    def __str__(self) -> str:
        return "+".join(c.text for c in self.cards) + f"={self.value}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with cards as canonical text."""
        return {"cards": [c.text for c in self.cards], "value": self.value, "owner": self.owner}


def kind(move: Move) -> int:
    """TRAIL, CAPTURE or BUILD (a build or a raise)."""
    if len(move) == 3:
        return BUILD
    return CAPTURE if move[1] else TRAIL


def value_limit(rules: Rules) -> int:
    """The highest value a build may have: 14, or the highest capture value of a card where
    that is lower (13 where K = 13)."""
    highest = max(
        rules.jack_value, rules.queen_value, rules.king_value, 11 if rules.ace_high else 10
    )
    return min(BUILD_VALUE_LIMIT, highest)


def build_values(engine: CaptureEngine, rank: int) -> tuple[int, ...]:
    """The values with which a card of `rank` captures a build (none for a wild J)."""
    if engine.wild and rank == JACK:
        return ()
    return engine.played_values[rank]


def _choices(engine: CaptureEngine, rank: int) -> list[tuple[int, int]]:
    """(value for the loose cards' groups, value of the builds taken) a card may declare."""
    loose = rank in engine.rank_only
    return [(0 if loose else v, v) for v in engine.played_values[rank]]


def sums(engine: CaptureEngine, cards: Iterable[Card], start: int = 1) -> int:
    """Bit s set: the cards can sum to s plus a sum of `start` (each ace 1 or 11 on its own),
    up to BUILD_VALUE_LIMIT; 0 when a card has no value in a sum."""
    keep = (2 << BUILD_VALUE_LIMIT) - 1
    reach = start
    for card in cards:
        options = engine.table_values[card.rank]
        reach = 0 if not options else _add(reach, options) & keep
        if not reach:
            return 0
    return reach


def _add(reach: int, options: tuple[int, ...]) -> int:
    out = 0
    for option in options:
        out |= reach << option
    return out


def owns_build(builds: tuple[Build, ...], seat: int) -> bool:
    """Whether `seat` owns a build on the table."""
    return any(b.owner == seat for b in builds)


def legal(
    rules: Rules,
    engine: CaptureEngine,
    hand: tuple[Card, ...],
    seat: int,
    table: tuple[Card, ...],
    builds: tuple[Build, ...],
) -> tuple[Move, ...]:
    """Every legal move of `seat` with building on: per card its trail, captures, builds and
    raises; then `must_capture` keeps only captures where one exists, and an owner of a build
    loses its trails where it has another move. TooManyMovesError past CAPTURE_LIMIT."""
    limit = value_limit(rules)
    vector = count_vector(c.rank for c in table)
    subsets = loose_sums(engine, table, limit) if table or builds else []
    moves: dict[Move, int] = {}
    for card in hand:
        moves[TRAILS[card.index]] = TRAIL
        for move in capture_moves(card, table, vector, builds, rules, engine):
            moves[move] = CAPTURE
        others = {v for c in hand if c is not card for v in build_values(engine, c.rank)}
        for move in build_moves(card, others, subsets, builds, engine, limit):
            moves[move] = BUILD
        if len(moves) > CAPTURE_LIMIT:
            raise _too_many()
    kinds = set(moves.values())
    if rules.must_capture and CAPTURE in kinds:
        return tuple(m for m, k in moves.items() if k == CAPTURE)
    if owns_build(builds, seat) and kinds != {TRAIL}:
        return tuple(m for m, k in moves.items() if k != TRAIL)
    return tuple(moves)


def _too_many() -> TooManyMovesError:
    return TooManyMovesError(
        f"more than {CAPTURE_LIMIT} moves on this table; play a move directly (it is checked)"
    )


def capture_moves(
    card: Card,
    table: tuple[Card, ...],
    vector: int,
    builds: tuple[Build, ...],
    rules: Rules,
    engine: CaptureEngine,
) -> list[Move]:
    """Every capture of `card`: of loose cards (the engine's), of whole builds whose value the
    card declares, each as one group, and (several groups allowed) both together."""
    rank = card.rank
    if engine.wild and rank == JACK:  # the wild jack takes everything, builds too
        if not table and not builds:
            return []
        return [Move(card, frozenset(table).union(*(b.cards for b in builds)))]
    loose = [frozenset(map(table.__getitem__, at)) for at in engine.listing(rank, vector)[1]]
    found: dict[frozenset[Card], None] = dict.fromkeys(loose)
    for loose_value, value in _choices(engine, rank):
        matching = [frozenset(b.cards) for b in builds if b.value == value]
        if not matching:
            continue
        if not engine.multi_group:
            found.update(dict.fromkeys(matching))
            continue
        ranks = {cap: tuple(sorted(c.rank for c in cap)) for cap in loose}
        groups = [EMPTY] + [
            cap for cap in loose if engine.is_capture_as(rank, loose_value, ranks[cap])
        ]
        for size in range(1, len(matching) + 1):
            for chosen in combinations(matching, size):
                taken = frozenset().union(*chosen)
                for group in groups:
                    found[group | taken] = None
                if len(found) > CAPTURE_LIMIT:
                    raise _too_many()
    captures = list(found)
    if rules.rank_priority and any(c.rank == rank for c in table):
        # a loose card of the rank must be taken: a build's cards do not count (a build
        # matches nothing by rank), as `_check_capture` has it
        on_table = frozenset(table)
        captures = [cap for cap in captures if any(c.rank == rank for c in cap & on_table)]
    return [Move(card, cap) for cap in captures]


def build_moves(
    card: Card,
    targets: set[int],
    subsets: list[tuple[tuple[Card, ...], int]],
    builds: tuple[Build, ...],
    engine: CaptureEngine,
    limit: int,
) -> Iterator[Move]:
    """Every build and raise of `card` whose value is in `targets` (capture values of the cards
    left in the hand) and at most `limit`: onto one or more loose cards, or onto one build
    with or without loose cards. `subsets`: `loose_sums` of the table."""
    wanted = [t for t in sorted(targets) if t <= limit]
    own = sums(engine, (card,))
    if not wanted or not own:
        return
    keep = (2 << limit) - 1
    starts: list[tuple[tuple[Card, ...], int, bool]] = [((), own, True)]
    starts += [(b.cards, own << b.value, False) for b in builds]
    count = 0
    new = tuple.__new__
    for base, reach, needs_loose in starts:
        shifts = [bit for bit in range(limit + 1) if reach >> bit & 1]
        if not shifts:
            continue
        for joined, reached in subsets:
            if needs_loose and not joined:
                continue
            total = 0
            for shift in shifts:
                total |= reached << shift
            total &= keep
            for value in wanted:
                if total >> value & 1:
                    count += 1
                    if count > CAPTURE_LIMIT:
                        raise _too_many()
                    yield new(Move, (card, frozenset(base + joined), value))


def loose_sums(
    engine: CaptureEngine, table: tuple[Card, ...], limit: int
) -> list[tuple[tuple[Card, ...], int]]:
    """Every subset of the loose cards that have a value in a sum (the empty one first), with
    the sums it reaches (bit s: sum s), where some sum is below `limit` (a build adds a card).
    TooManyMovesError past a bound of 20 x CAPTURE_LIMIT subsets."""
    cards = [c for c in table if engine.table_values[c.rank]]
    keep = (1 << limit) - 1
    out: list[tuple[tuple[Card, ...], int]] = []

    def walk(at: int, chosen: tuple[Card, ...], reach: int) -> None:
        out.append((chosen, reach))
        if len(out) > 20 * CAPTURE_LIMIT:
            raise _too_many()
        for i in range(at, len(cards)):
            nxt = _add(reach, engine.table_values[cards[i].rank]) & keep
            if nxt:
                walk(i + 1, (*chosen, cards[i]), nxt)

    walk(0, (), 1)
    return out


@dataclass(frozen=True)
class _Position:
    """What a move is checked against: the mover, its hand, the table, the rules."""

    seat: int
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    builds: tuple[Build, ...]
    rules: Rules
    engine: CaptureEngine


def check(
    move: Move,
    seat: int,
    hand: tuple[Card, ...],
    table: tuple[Card, ...],
    builds: tuple[Build, ...],
    rules: Rules,
    engine: CaptureEngine,
) -> int:
    """Validate a move of `seat` (its card is in the hand) with building on; its `kind`.
    IllegalMoveError names what is wrong."""
    card, cards = move[0], move[1]
    of_build = {c: b for b in builds for c in b.cards}
    touched = {of_build[c] for c in cards if c in of_build}
    for b in touched:
        if not set(b.cards) <= cards:
            raise IllegalMoveError(f"the build {b} is taken or raised only whole")
    loose = cards.difference(*(b.cards for b in touched))
    missing = sorted(c for c in loose if c not in table)
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise IllegalMoveError(f"{' '.join(map(str, missing))} {verb} not on the table")
    at = _Position(seat, hand, table, builds, rules, engine)
    moved = kind(move)
    if moved == TRAIL:
        _check_trail(card, at)
    elif moved == CAPTURE:
        _check_capture(card, loose, touched, at)
    else:
        _check_build(move, loose, touched, at)
    return moved


def _check_trail(card: Card, at: _Position) -> None:
    if not (at.rules.must_capture or owns_build(at.builds, at.seat)):
        return
    try:
        moves = legal(at.rules, at.engine, at.hand, at.seat, at.table, at.builds)
    except TooManyMovesError:
        moves = ()  # so many captures, builds or raises: a trail is refused below
    if TRAILS[card.index] in moves:
        return
    required = at.rules.must_capture and any(kind(m) == CAPTURE for m in moves)
    if required or not owns_build(at.builds, at.seat):
        raise IllegalMoveError(f"cannot trail {card}: a capture is possible and required")
    raise IllegalMoveError(
        f"cannot trail {card}: seat {at.seat} owns a build, so it must capture, build or raise"
    )


def _check_capture(card: Card, loose: frozenset[Card], taken: set[Build], at: _Position) -> None:
    rank, table, engine = card.rank, at.table, at.engine
    names = "+".join(c.text for c in sorted(loose.union(*(b.cards for b in taken))))
    if engine.wild and rank == JACK:
        if len(loose) != len(table) or len(taken) != len(at.builds):
            raise IllegalMoveError(
                f"{card} cannot capture {names}: a wild jack takes the whole table, builds too"
            )
        return
    ranks = tuple(sorted(c.rank for c in loose))
    if not taken:
        if not engine.is_capture(rank, tuple(sorted(c.rank for c in table)), ranks):
            raise IllegalMoveError(f"{card} cannot capture {names}: no group matches {card}")
    else:
        if not engine.multi_group and (len(taken) > 1 or loose):
            raise IllegalMoveError(
                f"{card} cannot capture {names}: one group only, and a build is a group alone"
            )
        if not any(
            all(b.value == value for b in taken)
            and (not loose or engine.is_capture_as(rank, loose_value, ranks))
            for loose_value, value in _choices(engine, rank)
        ):
            values = " or ".join(map(str, build_values(engine, rank)))
            raise IllegalMoveError(
                f"{card} cannot capture {names}: a build is taken whole by a card of its value "
                f"({card} counts {values}), the other cards in groups of that value"
            )
    if at.rules.rank_priority and any(c.rank == rank for c in table) and rank not in ranks:
        raise IllegalMoveError(
            f"{card} must take a card of its own rank from the table (rank priority)"
        )


def _check_build(move: Move, loose: frozenset[Card], raised: set[Build], at: _Position) -> None:
    card, value, table, engine = move[0], move.build_value, at.table, at.engine
    if len(raised) > 1:
        raise IllegalMoveError(f"{move}: a raise joins one build, not {len(raised)}")
    if at.rules.must_capture:
        vector = count_vector(t.rank for t in table)
        if any(capture_moves(c, table, vector, at.builds, at.rules, engine) for c in at.hand):
            raise IllegalMoveError(f"cannot build with {card}: a capture is possible and required")
    limit = value_limit(at.rules)
    if value > limit:
        raise IllegalMoveError(f"{move}: a build's value is at most {limit} under these rules")
    start = 1
    for b in raised:
        start = 1 << b.value
    reach = sums(engine, (card, *sorted(loose)), start)
    if not reach >> value & 1:
        raise IllegalMoveError(
            f"{move}: those cards do not sum to {value} "
            "(a wild J, or a Q or K taken by rank only, has no value in a sum)"
        )
    others = {v for c in at.hand if c is not card for v in build_values(engine, c.rank)}
    if value not in others:
        raise IllegalMoveError(
            f"{move}: a build's value must be the capture value of a card left in the hand"
        )


def after_capture(
    move: Move, table: tuple[Card, ...], builds: tuple[Build, ...]
) -> tuple[tuple[Card, ...], tuple[Build, ...], int]:
    """The loose cards and builds left by a capture, and the count vector of the loose cards
    it took."""
    taken = move[1]
    left = tuple(c for c in table if c not in taken)
    taken_vector = sum(UNITS[c.rank] for c in table if c in taken)
    return left, tuple(b for b in builds if b.cards[0] not in taken), taken_vector


def after_build(
    move: Move, seat: int, table: tuple[Card, ...], builds: tuple[Build, ...]
) -> tuple[tuple[Card, ...], tuple[Build, ...], int]:
    """The loose cards and builds after a build or a raise (the new build owned by `seat`),
    and the count vector of the loose cards it joined."""
    joined = move[1]
    left = tuple(c for c in table if c not in joined)
    joined_vector = sum(UNITS[c.rank] for c in table if c in joined)
    kept = [b for b in builds if b.cards[0] not in joined]
    kept.append(Build(tuple(sorted((move[0], *joined))), move.build_value, seat))
    return left, tuple(sorted(kept)), joined_vector
