"""The match state: a pure function of (rules, seed or decks, moves so far).

A `MatchState` never changes; `apply` returns the next one. Hidden information (other
hands, the deck order, the seed) stays inside; `view(seat)` is what a seat may know.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Final

from kafana.errors import IllegalMoveError, InvalidInputError, MatchOverError, TooManyMovesError
from kafana.games.cards import CARDS, Card, check_distinct, parse_cards
from kafana.games.protocol import FORFEIT, SCORE, Outcome, places_by_score
from kafana.games.records import check_result, replay_moves
from kafana.games.seats import SeatedState
from kafana.games.tablic.builds import Build, after_build, after_capture
from kafana.games.tablic.builds import check as check_building
from kafana.games.tablic.builds import legal as legal_building
from kafana.games.tablic.capture import (
    LISTING_TAGS,
    NATIVE,
    UNITS,
    CaptureEngine,
    captures,
    count_vector,
    engine_for,
    per_rules,
)
from kafana.games.tablic.fields import Fields, Log, PyFields
from kafana.games.tablic.move import TRAILS, Move
from kafana.games.tablic.record import MatchRecordText
from kafana.games.tablic.result import HandResult
from kafana.games.tablic.rules import Rules
from kafana.games.tablic.scoring import most_cards
from kafana.games.tablic.shuffle import check_seed, shuffled_deck
from kafana.games.tablic.view import View

HAND_SIZE = 6
TABLE_SIZE = 4
JACK = 11
LEGAL_KEPT: Final = 256
"""Most legal moves a state remembers once listed, as Moves (a bound: a session cache holds
states)."""
LISTING_KEPT: Final = 1024
"""Most moves of a C listing a state keeps (24 bytes each as cards; its Moves past LEGAL_KEPT are
made anew when read): the rare long listings of random play are kept, and applied in C."""


def deal_size(deck: int, players: int) -> int:
    """Cards each seat is dealt from `deck` undealt cards: 6, or what is left shared equally
    (the last deal of 3 players); 0 when the hand is over."""
    return min(HAND_SIZE, deck // players)


@dataclass(frozen=True)
class MatchSetup:
    """What is fixed for a whole match: rules and where the decks come from."""

    rules: Rules
    seed: int | None
    decks: tuple[tuple[Card, ...], ...]

    def deck(self, hand: int) -> tuple[Card, ...]:
        """The deck of hand `hand`: explicit decks first, then the seed (or decks again)."""
        if hand < len(self.decks):
            return self.decks[hand]
        if self.seed is not None:
            return shuffled_deck(self.seed, hand)
        return self.decks[hand % len(self.decks)]

    def __reduce__(self) -> tuple[type[MatchSetup], tuple[object, ...]]:
        """Copied and pickled by its fields (the compiled class has no `__dict__` to restore)."""
        return (MatchSetup, (self.rules, self.seed, self.decks))


class MatchState(SeatedState[Rules, View]):
    """One position of a Tablić match. Immutable: `apply` returns a new state.

    It implements `kafana.games.protocol.GameState`: only the seat to move acts.
    """

    __slots__ = ("_builds", "_engine", "_f", "_legal", "_params", "_setup")

    _setup: MatchSetup
    _engine: CaptureEngine
    _f: Fields  # the position: what a move changes (`fields.py`)
    _legal: Sequence[Move] | None  # once listed (trail first, then captures, per card)
    _params: bytes  # the rules as the C fast path reads them (`state_params`; b"": it declines)
    _builds: tuple[Build, ...]  # with `building` only (else unset: the C paths know no builds)

    # -- the position's counters; the seat to move and the log, as `SeatedState` and the
    # service read them (everything else of the position is read as `_f.<field>`) ---------

    @property
    def hand_no(self) -> int:
        """The hand being played, 0 first."""
        return self._f.hand_no

    @property
    def move_count(self) -> int:
        """Moves played in the match so far."""
        return self._f.move_count

    @property
    def _current(self) -> int | None:
        """The seat to move (None: over), as `SeatedState` reads it."""
        return self._f.current

    @_current.setter
    def _current(self, value: int | None) -> None:  # (`SeatedState` declares it writable)
        self._f.current = value

    @property
    def _log(self) -> Log:
        """The moves so far, as `session.without_history` reads and cuts them."""
        return self._f.log

    @_log.setter
    def _log(self, value: Log) -> None:
        self._f.log = value

    # -- public read-only properties ---------------------------------------------------

    @property
    def scores(self) -> tuple[int, ...]:
        """Match points per side."""
        return self._f.scores

    @property
    def table(self) -> tuple[Card, ...]:
        """Cards face up on the table, in rank order."""
        return self._f.table

    @property
    def builds(self) -> tuple[Build, ...]:
        """Builds on the table (the `building` switch; `table` is the loose cards)."""
        return self._builds if self._setup.rules.building else ()

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """Every finished hand's score."""
        return self._f.results

    @property
    def winner(self) -> int | None:
        """The winning side once the match is over."""
        if self._f.current is not None:
            return None
        return max(range(len(self._f.scores)), key=self._f.scores.__getitem__)

    @property
    def dealer(self) -> int:
        """The seat that dealt this hand; the seat after it plays first."""
        n = self._setup.rules.players
        return (self._f.hand_no + n - 1) % n

    @property
    def deck_remaining(self) -> int:
        """Cards of this hand not dealt yet."""
        return len(self._f.deck)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards in a seat's hand (omniscient: a player sees only `view(seat)`)."""
        return self._f.hands[seat]

    def captured(self, side: int) -> frozenset[Card]:
        """The cards a side has captured in this hand (public: captures are made face up)."""
        pile = self._f.piles[side]
        return frozenset(c for c in CARDS if pile >> c.index & 1)

    def tablas(self, side: int) -> int:
        """Tablas a side has made in this hand."""
        return self._f.tablas[side]

    def __reduce__(self) -> tuple[Callable[..., MatchState], tuple[object, ...]]:
        """Copied and pickled as its setup and moves, replayed (the compiled class has no
        `__dict__`, and its capture engine is a cache shared by rules)."""
        return (_replayed, (self._setup, tuple(self.moves())))

    def moves(self) -> list[tuple[int, Move]]:
        """Every (seat, move) played so far, oldest first."""
        out: list[tuple[int, Move]] = []
        node = self._f.log
        while node is not None:
            seat, move, node = node  # type: ignore[assignment]
            out.append((seat, move))
        out.reverse()
        return out

    @property
    def is_over(self) -> bool:
        """True once the match has ended (`SeatedState.is_over`, read here without a call
        into the base class: playouts ask it every move)."""
        return self._f.current is None

    # -- moves -------------------------------------------------------------------------

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move of the seat to move (trail first, then captures, per card).

        A sequence to read, not to change: the compiled build answers with the state's own
        listing (`_ccore.MoveList`: immutable, equal to a list of the same moves, each Move
        made when first read), the pure build with a new list.
        """
        legal = self._legal
        if legal is None:
            if _FAST_MOVES is not None:  # the compiled build: listed (and kept) in C
                fast = _moves_in_c(self, LISTING_KEPT, LEGAL_KEPT)
                if fast is not None:
                    return fast
            seat = self._f.current  # C declined (over, or past its bounds): Python lists or raises
            legal = () if seat is None else self._list_moves(seat)
            if len(legal) <= LEGAL_KEPT:  # a big list is not kept on a state a cache holds
                self._legal = legal
        if isinstance(legal, tuple):  # Python's listing: the caller's own list
            return list(legal)
        return legal  # the C one: immutable

    def legal_moves_for(self, seat: int) -> Sequence[Move]:
        """The legal moves of `seat`: NotYourTurnError unless it is the seat to move."""
        if seat != self._f.current:
            self._check_turn(seat)
        return self.legal_moves()

    def default_move(self) -> Move:
        """The clock's move: the first legal one (a trail of the first card when legal)."""
        seat = self._f.current
        if seat is None:
            raise MatchOverError("the match is over: no more moves")
        try:
            return self.legal_moves()[0]
        except TooManyMovesError:  # a table too big to list: trail if allowed, else any capture
            card = self._f.hands[seat][0]
            trail = TRAILS[card.index]
            if self.is_legal(trail):
                return trail
            taken = next(iter(captures(card, self._f.table, self._setup.rules)))
            return Move(card, taken)

    def _list_moves(self, seat: int) -> tuple[Move, ...]:
        """The legal moves of `seat` in Python, from the engine's listings: the reference of
        the C listing (`_ccore.legal`, which `_moves_in_c` runs on the state's StateCore);
        with `building`, `builds.legal`."""
        rules = self._setup.rules
        if rules.building:
            f = self._f
            return legal_building(rules, self._engine, f.hands[seat], seat, f.table, self._builds)
        priority = rules.rank_priority
        engine = self._engine
        cached = engine._by_vector.get
        reach = engine.reach_vectors
        tags = LISTING_TAGS[priority]
        vector = self._f.vector
        table = self._f.table
        take = table.__getitem__
        bits = [_MOVE_BIT[c.index] for c in table]
        known = _MOVES
        new = tuple.__new__
        moves: dict[Move, int] = {}
        captures = False
        for card in self._f.hands[seat]:
            moves[TRAILS[card.index]] = 0
            rank = card.rank
            found = cached(vector & reach[rank] | tags[rank])
            if found is None:
                found = engine.listing(rank, vector, priority)
            positions = found[1]
            if positions:
                captures = True
                for taken in positions:
                    key = card.index
                    for at in taken:
                        key |= bits[at]
                    move = known.get(key)
                    if move is None:
                        if len(known) >= MOVE_ENTRIES:
                            known.clear()
                        move = known[key] = new(Move, (card, frozenset(map(take, taken))))
                    moves[move] = 1
        if captures and rules.must_capture:
            return tuple([move for move, takes in moves.items() if takes])
        return tuple(moves)

    def is_legal(self, move: Move) -> bool:
        """Whether `move` may be played now."""
        try:
            self._check(move)
        except (IllegalMoveError, MatchOverError, InvalidInputError):
            return False
        return True

    def _check(self, move: Move) -> int:
        """Validate a move; return the mask of captured table positions."""
        seat = self._f.current
        if seat is None:
            raise MatchOverError("the match is over: no more moves")
        if not isinstance(move, Move):
            raise InvalidInputError(f"expected a Move, got {move!r}")
        card = move[0]
        taken = move[1]
        if card not in self._f.hands[seat]:
            raise IllegalMoveError(f"{card} is not in the hand of seat {seat}")
        rules = self._setup.rules
        if rules.building:
            hand = self._f.hands[seat]
            table = self._f.table
            return check_building(move, seat, hand, table, self._builds, rules, self._engine)
        if len(move) == 3:
            raise IllegalMoveError(f"{move} is a build: these rules have no building")
        table = self._f.table
        mask = 0
        for i, c in enumerate(table):
            if c in taken:
                mask |= 1 << i
        if mask.bit_count() != len(taken):
            missing = sorted(c for c in taken if c not in table)
            raise IllegalMoveError(
                f"{' '.join(map(str, missing))} {'is' if len(missing) == 1 else 'are'} "
                "not on the table"
            )
        ranks = tuple(c.rank for c in table)
        if not taken:
            if rules.must_capture and any(
                self._engine.has_capture(c.rank, ranks) for c in self._f.hands[seat]
            ):
                raise IllegalMoveError(f"cannot trail {card}: a capture is possible and required")
            return 0
        taken_ranks = tuple(c.rank for c in table if c in taken)
        if not self._engine.is_capture(card.rank, ranks, taken_ranks):
            raise IllegalMoveError(f"{card} cannot capture {_explain(move, rules)}")
        if rules.rank_priority and card.rank in ranks and card.rank not in taken_ranks:
            raise IllegalMoveError(
                f"{card} must take a card of its own rank from the table (rank priority)"
            )
        return mask

    def apply(self, move: object, seat: int | None = None) -> MatchState:
        """The state after `move` (a Move or its text), made by `seat` if given.

        Raises IllegalMoveError and the like; NotYourTurnError when `seat` is not to move.
        `move` is typed `object`: anything else is refused here with InvalidInputError (the
        compiled build would otherwise refuse it with a TypeError at the call).
        """
        if seat is not None and seat != self._f.current:
            self._check_turn(seat)
        if _FAST_ADVANCE is not None:  # the compiled build: a move of this state's listing, in C
            fast = _advance_in_c(self, move)
            if fast is not None:
                return fast
        if type(move) is Move:  # a Move itself (no subclass) takes the fast path
            played = move
        elif isinstance(move, str):
            played = Move.parse(move)
        elif isinstance(move, Move):
            played = move
        else:
            raise InvalidInputError(f"expected a Move or its text, got {move!r}")
        legal = self._legal
        if legal is not None and played in legal:
            return self._advance(played, 1 if played[1] else 0)
        return self._advance(played, self._check(played))

    def _advance(self, move: Move, mask: int) -> MatchState:
        """The next state; `mask` is non-zero when the move captures (or builds)."""
        seat = self._f.current
        assert seat is not None
        setup = self._setup
        rules = setup.rules
        nxt = MatchState.__new__(MatchState)
        nxt._setup = setup
        nxt._engine = self._engine
        nxt._params = self._params
        was = self._f
        nxt._f = f = was.copy()
        f.move_count = was.move_count + 1
        deck = was.deck
        f.log = (seat, move, was.log)
        nxt._legal = None
        card = move[0]
        taken = move[1]
        hands = list(was.hands)
        hand = hands[seat]
        hands[seat] = tuple([c for c in hand if c is not card])
        f.hands = now = tuple(hands)
        table = was.table
        played = card.index
        builds: tuple[Build, ...] = ()
        loose_taken = -1  # with building: the count vector of the loose cards captured
        if rules.building:
            builds = self._builds
            if len(move) == 3:  # a build or a raise: the joined cards leave the loose ones
                table, nxt._builds, joined = after_build(move, seat, table, builds)
                f.table = table
                f.vector = was.vector - joined
                return nxt._next_turn(seat, now, deck)
            if mask:  # the captured builds leave with the loose cards they are listed with
                table, builds, loose_taken = after_capture(move, table, builds)
            nxt._builds = builds
        if mask:
            side = seat % 2 if rules.partnerships else seat
            piles = list(was.piles)
            pile = piles[side] | 1 << played
            vector = was.vector
            for c in taken:
                pile |= 1 << c.index
                vector -= UNITS[c.rank]
            piles[side] = pile
            if loose_taken >= 0:  # builds' cards are not in the table's count vector
                vector = was.vector - loose_taken
            f.piles = tuple(piles)
            remaining = tuple([c for c in table if c not in taken])
            f.table = remaining
            f.vector = vector
            f.last_capturer = side
            if not remaining and not builds and (rules.last_card_tabla or deck or any(now)):
                tablas = list(was.tablas)
                tablas[side] += 1
                f.tablas = tuple(tablas)
        else:
            at = 0
            for c in table:  # the table is sorted by index: the trail goes after the smaller
                if c.index > played:
                    break
                at += 1
            f.table = (*table[:at], card, *table[at:])
            f.vector = was.vector + UNITS[card.rank]
        return nxt._next_turn(seat, now, deck)

    def _next_turn(
        self, seat: int, hands: tuple[tuple[Card, ...], ...], deck: tuple[Card, ...]
    ) -> MatchState:
        """This new state, after `seat` moved, handed on: to the next seat, else a new deal,
        else the hand scored (and the next one dealt, unless the match is over)."""
        if any(hands):
            self._f.current = (seat + 1) % self._setup.rules.players
            return self
        self._f.current = seat
        if deck:
            self._deal_round()
        else:
            self._finish_hand()
        return self

    def _copy(self) -> MatchState:
        nxt = MatchState.__new__(MatchState)
        nxt._setup = self._setup
        nxt._engine = self._engine
        nxt._params = self._params
        nxt._f = self._f.copy()
        nxt._legal = self._legal
        if self._setup.rules.building:
            nxt._builds = self._builds
        return nxt

    def _deal_round(self) -> None:
        n = self._setup.rules.players
        first = self._f.hand_no % n
        per = deal_size(len(self._f.deck), n)
        deck = self._f.deck
        hands: list[tuple[Card, ...]] = [()] * n
        for k in range(n):
            seat = (first + k) % n
            hands[seat] = tuple(sorted(deck[k * per : (k + 1) * per], key=_BY_INDEX))
        self._f.deck = deck[n * per :]
        self._f.hands = tuple(hands)
        self._f.current = first

    def _finish_hand(self) -> None:
        rules = self._setup.rules
        sides = rules.sides
        piles = list(self._f.piles)
        if self._f.last_capturer is not None:
            for c in self._f.table:
                piles[self._f.last_capturer] |= 1 << c.index
            if rules.building:  # builds go with the loose cards, counted card by card
                for build in self._builds:
                    for c in build.cards:
                        piles[self._f.last_capturer] |= 1 << c.index
        if rules.building:
            self._builds = ()
        self._f.table = ()
        self._f.vector = 0
        points_of = rules.points_by_index
        counts = tuple(p.bit_count() for p in piles)
        card_points = tuple(sum(compress(points_of, _bits(pile))) for pile in piles)
        most = most_cards(rules, counts, self._f.last_capturer)
        tabla_points = tuple(t * rules.tabla_points for t in self._f.tablas)
        points = tuple(card_points[s] + most[s] + tabla_points[s] for s in range(sides))
        result = HandResult(
            hand=self._f.hand_no,
            cards=counts,
            card_points=card_points,
            most_cards=tuple(most),
            tablas=self._f.tablas,
            points=points,
            last_capturer=self._f.last_capturer,
        )
        self._f.results = (*self._f.results, result)
        self._f.scores = tuple(a + b for a, b in zip(self._f.scores, points, strict=True))
        top = max(self._f.scores)
        if top >= rules.target and self._f.scores.count(top) == 1:
            self._f.current = None
            self._f.hands = tuple(() for _ in range(rules.players))
            self._f.piles = tuple(piles)
            return
        self._start_hand(self._f.hand_no + 1)

    def _start_hand(self, hand_no: int) -> None:
        rules = self._setup.rules
        deck = list(self._setup.deck(hand_no))
        table: list[Card] = []
        while len(table) < TABLE_SIZE:
            card = deck.pop(0)
            if rules.jack_off_opening_table and card.rank == JACK:
                deck.append(card)
            else:
                table.append(card)
        self._f.hand_no = hand_no
        self._f.table = tuple(sorted(table, key=_BY_INDEX))
        self._f.vector = count_vector(map(_RANK, table))
        self._f.deck = tuple(deck)
        self._f.piles = (0,) * rules.sides
        self._f.tablas = (0,) * rules.sides
        self._f.last_capturer = None
        if rules.building:
            self._builds = ()
        self._deal_round()

    def determinize(self, hands: Sequence[Iterable[Card]], deck: Iterable[Card]) -> MatchState:
        """A copy with the hidden cards replaced: for search over sampled worlds.

        `hands` gives every seat's hand and `deck` the undealt cards of this hand (in deal
        order). Sizes must match, and they must be exactly the cards now hidden from the
        table and piles; later hands of the match are unchanged.
        """
        new_hands = tuple(tuple(sorted(parse_cards(h))) for h in hands)
        new_deck = parse_cards(deck)
        if len(new_hands) != len(self._f.hands) or any(
            len(a) != len(b) for a, b in zip(new_hands, self._f.hands, strict=True)
        ):
            raise InvalidInputError("determinize: hand sizes differ from the real ones")
        if len(new_deck) != len(self._f.deck):
            raise InvalidInputError("determinize: deck size differs from the real one")
        hidden = {c for h in self._f.hands for c in h} | set(self._f.deck)
        given = [c for h in new_hands for c in h] + list(new_deck)
        check_distinct(given, "the determinized cards")
        if set(given) != hidden:
            raise InvalidInputError("determinize: the cards are not the hidden ones")
        nxt = self._copy()
        nxt._f.hands = new_hands
        nxt._f.deck = new_deck
        nxt._legal = None
        return nxt

    # -- outcome, views and records ----------------------------------------------------

    def outcome(self, forfeit: int | None = None) -> Outcome | None:
        """Scores and places per side once over; with `forfeit`, the best other side wins."""
        scores = self._f.scores
        if forfeit is not None:
            loser = self.side_of(forfeit)
            others = [side for side in range(len(scores)) if side != loser]
            return Outcome(FORFEIT, max(others, key=scores.__getitem__), scores)
        if self._f.current is not None:
            return None
        return Outcome(SCORE, self.winner, scores, places_by_score(scores))

    def _view(self, seat: int | None) -> View:
        """What `seat` may know: its own hand and everything public; a spectator no hand."""
        rules = self._setup.rules
        return View(
            rules=rules,
            seat=seat,
            hand=None if seat is None else self._f.hands[seat],
            table=self._f.table,
            current_seat=self._f.current,
            hand_no=self._f.hand_no,
            dealer=self.dealer,
            move_count=self._f.move_count,
            hand_sizes=tuple(map(len, self._f.hands)),
            deck_remaining=len(self._f.deck),
            captured=tuple(self.captured(side) for side in range(rules.sides)),
            tablas=self._f.tablas,
            last_capturer=self._f.last_capturer,
            scores=self._f.scores,
            hand_results=self._f.results,
            is_over=self._f.current is None,
            builds=self.builds,
        )

    def record(self) -> MatchRecord:
        """The replayable record of the match so far."""
        setup = self._setup
        return MatchRecord(
            rules=setup.rules,
            seed=setup.seed,
            decks=setup.decks,
            moves=tuple(move for _, move in self.moves()),
            scores=self._f.scores if self.is_over else None,
        )

    def __repr__(self) -> str:
        return (
            f"<MatchState hand={self._f.hand_no} move={self._f.move_count} "
            f"seat={self._f.current} scores={self._f.scores}>"
        )


_MOVES: dict[int, Move] = {}
"""Capture moves once made, by card index | `_MOVE_BIT` of each captured card: a move is
immutable, so states share one object (and listing them builds no frozenset)."""
MOVE_ENTRIES = 1 << 16
"""Most moves `_MOVES` keeps; past it, it starts again empty."""
_MOVE_BIT = tuple(1 << 6 + i for i in range(52))
CoreAdvance = Callable[[Fields, "Sequence[Move] | None", object, MatchSetup], "Fields | None"]
_C_ADVANCE: Final[CoreAdvance | None] = None if NATIVE is None else NATIVE.advance
_C_START: Final[Callable[[Fields, MatchSetup], bool] | None] = (
    None if NATIVE is None else NATIVE.start
)
_C_MOVES: Final[Callable[[Fields, int], Sequence[Move] | None] | None] = (
    None if NATIVE is None else NATIVE.moves
)
"""The compiled build's C transition, deal and listing, on a position's `_ccore.StateCore`
(`_advance_in_c`, `_start_in_c` and `_moves_in_c` call them). Final: the compiled module reads
them as constants, not from its dict every move."""
_STATE_CORE: Final[Callable[[bytes], Fields] | None] = None if NATIVE is None else NATIVE.StateCore
"""The compiled build's `Fields` (`_ccore.StateCore(params)`: the position as a C struct, which
the C paths play on and read directly), for a match whose rules they read (`state_params` not
empty: no `building`); else `PyFields`, the reference."""


def _advance_in_c(state: object, move: object) -> MatchState | None:
    """`_advance` in C: the next state for a move of the state's own C listing (`_legal`), hands
    scored and dealt included, or None (not a compiled position or listing, or a move not
    listed: the Python path checks it; tests/games/tablic/test_fast_advance.py). C makes the next
    position (`_ccore.advance`); the state around it is made here, by the compiled class's own
    code (the C reads and writes no field of MatchState)."""
    if _C_ADVANCE is None or not isinstance(state, MatchState):
        return None
    fields = _C_ADVANCE(state._f, state._legal, move, state._setup)
    if fields is None:
        return None
    nxt = MatchState()  # (the compiled class's own constructor: MatchState has no __init__)
    nxt._setup = state._setup
    nxt._engine = state._engine
    nxt._params = state._params
    nxt._f = fields
    nxt._legal = None
    return nxt


def _start_in_c(state: object) -> MatchState | None:
    """`_start_hand(0)` in C for `new_match` (`_ccore.start`): the state with its first hand
    dealt, or None where Python deals (its position not a StateCore: `building`)."""
    if _C_START is None or not isinstance(state, MatchState):
        return None
    return state if _C_START(state._f, state._setup) else None


def _moves_in_c(state: object, kept: int, kept_moves: int) -> Sequence[Move] | None:
    """`legal_moves()` in C (`_ccore.moves` on the state's StateCore: `_ccore.legal`'s listing as
    a `MoveList` keeping its first `kept_moves` Moves once made), kept on the state when at most
    `kept` moves: `_list_moves`'s answer, the same moves in the same order
    (tests/games/tablic/test_fast_legal.py), or None where it declines (the match over, or too
    many captures: the Python path raises)."""
    if _C_MOVES is None or not isinstance(state, MatchState):
        return None
    listed = _C_MOVES(state._f, kept_moves)
    if listed is not None and len(listed) <= kept:
        state._legal = listed
    return listed


FastAdvance = Callable[[object, object], "MatchState | None"]
_FAST_ADVANCE: Final[FastAdvance | None] = None if NATIVE is None else _advance_in_c
"""`_advance_in_c` in the compiled build, else None (what `apply` tests)."""
FastStart = Callable[[object], "MatchState | None"]
_FAST_START: Final[FastStart | None] = None if NATIVE is None else _start_in_c
"""`_start_in_c` in the compiled build, else None."""
FastMoves = Callable[[object, int, int], "Sequence[Move] | None"]
_FAST_MOVES: Final[FastMoves | None] = None if NATIVE is None else _moves_in_c
"""`_moves_in_c` in the compiled build, else None."""
if NATIVE is not None:
    NATIVE.set_moves(Move, TRAILS)
    Sequence.register(NATIVE.MoveList)
_BY_INDEX = attrgetter("index")
_RANK = attrgetter("rank")
_BINARY_DIGITS = bytes.maketrans(b"01", b"\x00\x01")


def _bits(pile: int) -> bytes:
    """The 52 bits of a pile, card index 0 first, as bytes 0 or 1."""
    return format(pile, "052b")[::-1].encode().translate(_BINARY_DIGITS)


class MatchRecord(MatchRecordText):
    """A match record (`MatchRecordText`) that replays into the state it records."""

    def replay(self) -> MatchState:
        """Play every move from the start; raises if a move is illegal or scores differ."""
        start = new_match(self.rules, seed=self.seed, decks=self.decks or None)
        state = replay_moves(start, self.moves)
        check_result("scores", self.scores, state.scores)
        return state


def _explain(move: Move, rules: Rules) -> str:
    taken = "+".join(c.text for c in sorted(move.captured))
    if rules.wild_jack and move.card.rank == JACK:
        return f"{taken}: a wild jack takes the whole table or nothing"
    if rules.multi_group:
        return f"{taken}: those cards do not split into groups each matching {move.card}"
    return f"{taken}: one group matching {move.card} only under these rules"


def state_params(rules: Rules) -> bytes:
    """The rules as `_ccore.legal` and `_ccore.advance` read them (`_pack_params`), packed
    once per Rules object (`per_rules`, as the simulator's are), not at every `new_match`."""
    return per_rules(_STATE_PARAMS, rules, _pack_params)


_STATE_PARAMS: dict[int, tuple[Rules, bytes]] = {}


def _pack_params(rules: Rules) -> bytes:
    """The rules for the C paths (146 bytes): the capture engine's 80 of `fast_params`;
    players, partnerships, last_card_tabla, rank_priority, must_capture; whether the card
    points fit a byte each (else Python scores a hand), most_cards_points,
    most_cards_tie_to_last, tabla_points, jack_off_opening_table; the target (4 bytes,
    little-endian); each card's points by index.

    With `building`, none (b""): every C path then declines, as it does for parameters it
    cannot read (None: Python answers), so builds are played by the Python paths alone, and
    the paths of a match without them pay no test of the switch."""
    if rules.building:
        return b""
    switches = (rules.partnerships, rules.last_card_tabla, rules.rank_priority, rules.must_capture)
    points = rules.points_by_index
    fits = max(points) <= 255
    scoring = (fits, rules.most_cards_points, rules.most_cards_tie_to_last, rules.tabla_points)
    return (
        engine_for(rules).fast_params
        + bytes([rules.players, *map(int, switches), *map(int, scoring)])
        + bytes([int(rules.jack_off_opening_table)])
        + rules.target.to_bytes(4, "little")
        + bytes(min(p, 255) for p in points)
    )


def _replayed(setup: MatchSetup, moves: tuple[tuple[int, Move], ...]) -> MatchState:
    """The state after `moves` of the match `setup` starts: a copied or unpickled state."""
    state = new_match(setup.rules, setup.seed, setup.decks)
    for seat, move in moves:
        state = state.apply(move, seat)
    return state


def new_match(
    rules: object,
    seed: object = None,
    decks: Sequence[Iterable[Card | str]] | None = None,
) -> MatchState:
    """Start a match from a seed (hand k uses `shuffled_deck(seed, k)`) or explicit decks.

    With explicit decks, hand k uses decks[k]; past the last one, the seed's deck if a seed
    is given too, else the decks again from the first. `rules` (a Rules) and `seed` (an int
    or None) are typed `object`: they are checked here, with InvalidInputError.
    """
    if not isinstance(rules, Rules):
        raise InvalidInputError(f"expected Rules, got {rules!r}")
    if seed is None and not decks:
        raise InvalidInputError("a match needs a seed or at least one deck")
    checked: int | None = None
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            message = f"seed must be a whole number from 0 to 2**64-1, not {seed!r}"
            raise InvalidInputError(message)  # as check_seed says it, bools here too
        checked = check_seed(int(seed))
    parsed: list[tuple[Card, ...]] = []
    for k, deck in enumerate(decks or ()):
        cards = parse_cards(deck)
        if len(cards) != 52:
            raise InvalidInputError(f"deck {k} has {len(cards)} cards, not 52")
        check_distinct(cards, f"deck {k}")
        parsed.append(cards)
    setup = MatchSetup(rules=rules, seed=checked, decks=tuple(parsed))
    state = MatchState.__new__(MatchState)
    state._setup = setup
    state._engine = engine_for(rules)
    state._params = params = state_params(rules)
    state._f = fields = PyFields() if _STATE_CORE is None or not params else _STATE_CORE(params)
    fields.move_count = 0
    fields.scores = (0,) * rules.sides
    state._legal = None
    fields.log = None
    fields.results = ()
    if _FAST_START is None or _start_in_c(state) is None:
        state._start_hand(0)
    return state


if NATIVE is not None:  # the class of a hand's score `_ccore.advance` makes
    NATIVE.set_result(HandResult)
