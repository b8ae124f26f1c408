"""A fast, mutable simulator of the rest of one hand, for search.

`MatchState` is the rules' reference and is immutable; search needs thousands of playouts per
decision, so a `HandSim` keeps one hand as small lists of card indices and plays it to its end
(in the compiled build the position lives in C, `_ccore.SimCore`, its lists made when read).
It is about three times as fast on the search bots' work as `MatchState` (figures and command
in docs/bots.md, "Why two rules engines"). What both need comes from the core: the captures
(`engine_for(rules).listing`, by the table's rank counts `count_vector`, kept move by move), the
most-cards bonus (`scoring.most_cards`), the hand size; `tests/bots/test_bots_sim.py` checks the
simulator against `MatchState` move by move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from kafana.games.tablic import CARDS, CaptureEngine, Card, Move, Rules, engine_for
from kafana.games.tablic.capture import NATIVE, UNITS, count_vector, per_rules
from kafana.games.tablic.scoring import most_cards
from kafana.games.tablic.state import deal_size

_UNIT = tuple(UNITS[i // 4 + 1] for i in range(52))  # by card index

SimMove = tuple[int, int]
"""(card index played, bit mask of captured table positions; 0 is a trail)."""
Values = tuple[float, ...]
"""A value per card index."""
Lists = tuple[
    list[list[int]],
    list[int],
    list[int],
    list[int],
    list[int],
    list[int],
    int | None,
    int | None,
    int,
]
"""A position's lists: hands, table, deck, cards, points, tablas, last_capturer, current, vector."""


class Core(Protocol):
    """The compiled build's position of a `HandSim` (`_ccore.SimCore`)."""

    @property
    def current(self) -> int | None: ...
    @property
    def last_capturer(self) -> int | None: ...
    @property
    def vector(self) -> int: ...
    def copy(self) -> Core: ...
    def play(self, card: int, mask: int) -> None: ...
    def playout(
        self, plies: int, seed: int, values: tuple[Values, Values, Values] | None
    ) -> int: ...
    def fields(self) -> Lists: ...


_CORE: Callable[[tuple[object, ...], bytes], Core] | None = (
    None if NATIVE is None else NATIVE.SimCore
)
CORE_TABLE = 16
"""The largest table a position is moved into C with (larger ones the Python loop plays)."""


def _pack_rules(rules: Rules) -> bytes | None:
    flags = (rules.tabla_points, rules.last_card_tabla, rules.must_capture, rules.rank_priority)
    try:
        return engine_for(rules).fast_params + bytes(rules.points_by_index) + bytes(flags)
    except ValueError:  # a point value past 255
        return None


_FAST_RULES: dict[int, tuple[Rules, bytes | None]] = {}


def fast_rules(rules: Rules) -> bytes | None:
    """What the C reads of the rules (capture switches, card points, tabla switches), or None
    if a value does not fit its byte (the Python simulator plays those rules)."""
    return per_rules(_FAST_RULES, rules, _pack_rules)


def fast_playout(
    sim: HandSim, plies: int, seed: int = 0, values: tuple[Values, Values, Values] | None = None
) -> bool:
    """Play `sim` on in C for `plies` moves (-1: to the hand's end): by the greedy policy of
    `kafana_bots.rollout` given its `values` (taken, played, trailed), else uniformly at random
    from `seed`. False where the Python loop must play on (the pure build, rules or a table
    past the C's bounds, a listing past the capture limit): `sim` is then where the C stopped.
    Checked against the Python loop in tests/bots/test_bots_fast_playout.py."""
    core = sim._ready_core()
    if core is None:
        return False
    played = core.playout(plies, seed, values)
    sim._lists = False
    return played >= 0


class HandSim:
    """The rest of one hand: hands, table, deck, and what each side has taken so far.

    In the compiled build the position lives in C (`Core`, `_ccore.SimCore`) once the
    simulator is copied, played or played out: `copy()` is a struct copy and `play` the C's
    move. Its lists are made only when read: reading `hands`, `table`, `deck`, `cards`,
    `points` or `tablas` hands out the simulator's own lists (the caller may change them, as
    `worlds.WorldSampler` does) and the position goes back to them until the next move or
    copy. `play_reference` is the Python move, the pure build's `play` and the reference the
    C is checked against (tests/bots/test_bots_simcore.py)."""

    __slots__ = (
        "_cards",
        "_core",
        "_current",
        "_deck",
        "_hands",
        "_last_capturer",
        "_lists",
        "_points",
        "_tablas",
        "_table",
        "_vector",
        "engine",
        "first",
        "n",
        "rules",
        "side_of",
    )

    rules: Rules
    engine: CaptureEngine
    n: int
    side_of: tuple[int, ...]
    first: int
    _hands: list[list[int]]
    _table: list[int]
    _vector: int  # the table's rank counts (`count_vector`)
    _deck: list[int]
    _cards: list[int]
    _points: list[int]
    _tablas: list[int]
    _last_capturer: int | None
    _current: int | None
    _core: Core | None  # the position in C (compiled build), or None
    _lists: bool  # whether the lists hold the position (else only `_core` does)

    @staticmethod
    def build(
        rules: Rules,
        *,
        hands: Sequence[Iterable[Card]],
        table: Iterable[Card],
        deck: Iterable[Card],
        captured: Sequence[Iterable[Card]],
        tablas: Sequence[int],
        last_capturer: int | None,
        current: int,
        hand_no: int,
    ) -> HandSim:
        """A simulator for a position given every card's place (deck in deal order)."""
        sim = HandSim.__new__(HandSim)
        sim.rules = rules
        sim.engine = engine_for(rules)
        sim.n = rules.players
        sim.side_of = tuple(rules.side_of(s) for s in range(rules.players))
        sim.first = hand_no % rules.players
        sim._hands = [sorted(c.index for c in h) for h in hands]
        sim._table = sorted(c.index for c in table)
        sim._vector = count_vector(i // 4 + 1 for i in sim._table)
        sim._deck = [c.index for c in deck]
        value = rules.points_by_index
        piles = [[c.index for c in side] for side in captured]
        sim._cards = [len(p) for p in piles]
        sim._points = [sum(value[i] for i in p) for p in piles]
        sim._tablas = list(tablas)
        sim._last_capturer = last_capturer
        sim._current = current
        sim._core = None
        sim._lists = True
        return sim

    def _sync(self) -> None:
        """Make the lists hold the position (read from C if they do not; the core kept)."""
        if not self._lists:
            core = self._core
            assert core is not None
            (
                self._hands,
                self._table,
                self._deck,
                self._cards,
                self._points,
                self._tablas,
                self._last_capturer,
                self._current,
                self._vector,
            ) = core.fields()
            self._lists = True

    def _held(self) -> HandSim:
        """This simulator, its lists about to be handed out (a caller may change them): from
        here on they alone hold the position (without a core they do already)."""
        if self._core is not None:
            self._sync()
            self._core = None
        return self

    def _ready_core(self) -> Core | None:
        """The position in C (moved there from the lists if needed), or None where Python
        plays: the pure build, rules past the C's bytes, a table past `CORE_TABLE` cards."""
        core = self._core
        if core is None and _CORE is not None and len(self._table) <= CORE_TABLE:
            packed = fast_rules(self.rules)
            if packed is not None:
                position: tuple[object, ...] = (self.n, self.first, self.side_of)
                position += (self._hands, self._table, self._deck, self._cards, self._points)
                position += (self._tablas, self._last_capturer, self._current)
                core = self._core = _CORE(position, packed)
        return core

    def copy(self) -> HandSim:
        """An independent copy (in C a struct copy; else hands and piles copied, constants
        shared)."""
        sim = HandSim.__new__(HandSim)
        sim.rules, sim.engine, sim.n = self.rules, self.engine, self.n
        sim.side_of, sim.first = self.side_of, self.first
        core = self._ready_core()
        sim._lists = core is None
        if core is not None:
            sim._core = core.copy()
            return sim
        sim._core = None
        sim._hands = [list(h) for h in self._hands]
        sim._table, sim._deck = list(self._table), list(self._deck)
        sim._cards, sim._points = list(self._cards), list(self._points)
        sim._tablas, sim._vector = list(self._tablas), self._vector
        sim._last_capturer, sim._current = self._last_capturer, self._current
        return sim

    @property
    def hands(self) -> list[list[int]]:
        """Card indexes in each seat's hand, sorted."""
        return self._hands if self._core is None else self._held()._hands

    @property
    def table(self) -> list[int]:
        """Card indexes on the table, sorted (a capture's mask counts their positions)."""
        return self._table if self._core is None else self._held()._table

    @property
    def deck(self) -> list[int]:
        """Card indexes still to deal, in deal order."""
        return self._deck if self._core is None else self._held()._deck

    @deck.setter
    def deck(self, value: list[int]) -> None:
        self._held()._deck = value

    @property
    def cards(self) -> list[int]:
        """Cards taken per side."""
        return self._cards if self._core is None else self._held()._cards

    @property
    def points(self) -> list[int]:
        """Card points taken per side."""
        return self._points if self._core is None else self._held()._points

    @property
    def tablas(self) -> list[int]:
        """Tablas per side."""
        return self._tablas if self._core is None else self._held()._tablas

    @property
    def vector(self) -> int:
        """The table's rank counts (`count_vector`)."""
        core = self._core
        return self._vector if core is None or self._lists else core.vector

    @property
    def last_capturer(self) -> int | None:
        """The side that captured last, or None."""
        core = self._core
        return self._last_capturer if core is None or self._lists else core.last_capturer

    @property
    def current(self) -> int | None:
        """The seat to move, or None once the hand is scored."""
        core = self._core
        return self._current if core is None or self._lists else core.current

    @current.setter
    def current(self, value: int | None) -> None:
        self._held()._current = value

    @property
    def is_over(self) -> bool:
        """True once the hand has been scored."""
        core = self._core
        if core is None or self._lists:
            return self._current is None
        return core.current is None

    def legal(self) -> list[SimMove]:
        """Every legal move of the seat to move (trail first, then captures, per card)."""
        if not self._lists:
            self._sync()
        if self._current is None:
            return []
        moves: list[SimMove] = []
        captures = False
        listing = self.engine.listing
        vector, priority = self._vector, self.rules.rank_priority
        for card in self._hands[self._current]:
            moves.append((card, 0))
            for mask in listing(card // 4 + 1, vector, priority)[0]:
                moves.append((card, mask))
                captures = True
        if captures and self.rules.must_capture:
            return [m for m in moves if m[1]]
        return moves

    def play(self, card: int, mask: int) -> None:
        """Play a legal move (not checked) and advance, scoring the hand at its end: in C
        where the position can be there, else `play_reference`."""
        core = self._core
        if core is None and _CORE is not None:
            core = self._ready_core()
        if core is None:
            self.play_reference(card, mask)
            return
        core.play(card, mask)
        self._lists = False

    def play_reference(self, card: int, mask: int) -> None:
        """`play` in Python, on the lists: the pure build's move, and the C's reference."""
        self._held()
        seat = self._current
        assert seat is not None
        hands = self._hands
        hands[seat].remove(card)
        table = self._table
        last_of_hand = not self._deck and not any(hands)
        if mask:
            side = self.side_of[seat]
            value = self.rules.points_by_index
            pts = value[card]
            kept: list[int] = []
            taken = 1
            units = 0
            for k, c in enumerate(table):
                if mask >> k & 1:
                    pts += value[c]
                    taken += 1
                    units += _UNIT[c]
                else:
                    kept.append(c)
            self._table = kept
            self._vector -= units
            self._cards[side] += taken
            self._points[side] += pts
            self._last_capturer = side
            if not kept and (self.rules.last_card_tabla or not last_of_hand):
                self._tablas[side] += 1
        else:
            table.append(card)
            table.sort()
            self._vector += _UNIT[card]
        if not last_of_hand:
            if any(hands):
                self._current = (seat + 1) % self.n
            else:
                self._deal()
            return
        if self._last_capturer is not None:
            value = self.rules.points_by_index
            self._cards[self._last_capturer] += len(self._table)
            self._points[self._last_capturer] += sum(value[c] for c in self._table)
        self._table = []
        self._vector = 0
        self._current = None

    def _deal(self) -> None:
        n = self.n
        per = deal_size(len(self._deck), n)
        deck = self._deck
        for k in range(n):
            self._hands[(self.first + k) % n] = sorted(deck[k * per : (k + 1) * per])
        self._deck = deck[n * per :]
        self._current = self.first

    def final_points(self) -> list[int]:
        """Points per side for the whole hand (call once `is_over`)."""
        if not self._lists:
            self._sync()
        rules = self.rules
        most = most_cards(rules, self._cards, self._last_capturer)
        return [
            p + t * rules.tabla_points + m
            for p, t, m in zip(self._points, self._tablas, most, strict=True)
        ]

    def to_sim(self, move: Move) -> SimMove:
        """The simulator form of a `Move` in this position."""
        if not self._lists:
            self._sync()
        taken = move.captured
        mask = 0
        for k, c in enumerate(self._table):
            if CARDS[c] in taken:
                mask |= 1 << k
        return (move.card.index, mask)

    def to_move(self, move: SimMove) -> Move:
        """The `Move` of a simulator move in this position."""
        if not self._lists:
            self._sync()
        card, mask = move
        return Move(CARDS[card], [CARDS[c] for k, c in enumerate(self._table) if mask >> k & 1])
