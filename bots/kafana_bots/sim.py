"""A fast, mutable simulator of the rest of one hand, for search.

`MatchState` is the rules' reference and is immutable; search needs thousands of playouts per
decision, so a `HandSim` keeps one hand as small lists of card indices and plays it to its end.
It is about three times as fast on the search bots' work as `MatchState` (figures and command
in docs/bots.md, "Why two rules engines"). What both need comes from the core: the captures
(`engine_for(rules).listing`, by the table's rank counts `count_vector`, kept move by move), the
most-cards bonus (`scoring.most_cards`), the hand size; `tests/bots/test_bots_sim.py` checks the
simulator against `MatchState` move by move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kafana.games.tablic import CARDS, CaptureEngine, Card, Move, Rules, engine_for
from kafana.games.tablic.capture import NATIVE, UNITS, count_vector, per_rules
from kafana.games.tablic.scoring import most_cards
from kafana.games.tablic.state import deal_size

_UNIT = tuple(UNITS[i // 4 + 1] for i in range(52))  # by card index

SimMove = tuple[int, int]
"""(card index played, bit mask of captured table positions; 0 is a trail)."""
Values = tuple[float, ...]
"""A value per card index."""
Playout = Callable[["HandSim", int, int, "tuple[Values, Values, Values] | None", bytes], int]
_PLAYOUT: Playout | None = None if NATIVE is None else NATIVE.playout


def _pack_rules(rules: Rules) -> bytes | None:
    flags = (rules.tabla_points, rules.last_card_tabla, rules.must_capture, rules.rank_priority)
    try:
        return engine_for(rules).fast_params + bytes(rules.points_by_index) + bytes(flags)
    except ValueError:  # a point value past 255
        return None


_FAST_RULES: dict[int, tuple[Rules, bytes | None]] = {}


def fast_rules(rules: Rules) -> bytes | None:
    """What the C playout reads of the rules (capture switches, card points, tabla switches),
    or None if a value does not fit its byte (the Python loop plays those rules)."""
    return per_rules(_FAST_RULES, rules, _pack_rules)


def fast_playout(
    sim: HandSim, plies: int, seed: int = 0, values: tuple[Values, Values, Values] | None = None
) -> bool:
    """Play `sim` on in C for `plies` moves (-1: to the hand's end): by the greedy policy of
    `kafana_bots.rollout` given its `values` (taken, played, trailed), else uniformly at random
    from `seed`. False if it did not (the pure build, or a listing past the capture limit):
    then nothing changed and the Python loop plays. Checked against the Python loop in
    tests/bots/test_bots_fast_playout.py."""
    if _PLAYOUT is None:
        return False
    packed = fast_rules(sim.rules)
    return packed is not None and _PLAYOUT(sim, plies, seed, values, packed) >= 0


class HandSim:
    """The rest of one hand: hands, table, deck, and what each side has taken so far."""

    __slots__ = (
        "cards",
        "current",
        "deck",
        "engine",
        "first",
        "hands",
        "last_capturer",
        "n",
        "points",
        "rules",
        "side_of",
        "tablas",
        "table",
        "vector",
    )

    rules: Rules
    engine: CaptureEngine
    n: int
    side_of: tuple[int, ...]
    first: int
    hands: list[list[int]]
    table: list[int]
    vector: int  # the table's rank counts (`count_vector`)
    deck: list[int]
    cards: list[int]
    points: list[int]
    tablas: list[int]
    last_capturer: int | None
    current: int | None

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
        sim.hands = [sorted(c.index for c in h) for h in hands]
        sim.table = sorted(c.index for c in table)
        sim.vector = count_vector(i // 4 + 1 for i in sim.table)
        sim.deck = [c.index for c in deck]
        value = rules.points_by_index
        piles = [[c.index for c in side] for side in captured]
        sim.cards = [len(p) for p in piles]
        sim.points = [sum(value[i] for i in p) for p in piles]
        sim.tablas = list(tablas)
        sim.last_capturer = last_capturer
        sim.current = current
        return sim

    def copy(self) -> HandSim:
        """An independent copy (hands and piles copied, constants shared)."""
        sim = HandSim.__new__(HandSim)
        sim.rules = self.rules
        sim.engine = self.engine
        sim.n = self.n
        sim.side_of = self.side_of
        sim.first = self.first
        sim.hands = [list(h) for h in self.hands]
        sim.table = list(self.table)
        sim.vector = self.vector
        sim.deck = list(self.deck)
        sim.cards = list(self.cards)
        sim.points = list(self.points)
        sim.tablas = list(self.tablas)
        sim.last_capturer = self.last_capturer
        sim.current = self.current
        return sim

    @property
    def is_over(self) -> bool:
        """True once the hand has been scored."""
        return self.current is None

    def legal(self) -> list[SimMove]:
        """Every legal move of the seat to move (trail first, then captures, per card)."""
        if self.current is None:
            return []
        moves: list[SimMove] = []
        captures = False
        listing = self.engine.listing
        vector, priority = self.vector, self.rules.rank_priority
        for card in self.hands[self.current]:
            moves.append((card, 0))
            for mask in listing(card // 4 + 1, vector, priority)[0]:
                moves.append((card, mask))
                captures = True
        if captures and self.rules.must_capture:
            return [m for m in moves if m[1]]
        return moves

    def play(self, card: int, mask: int) -> None:
        """Play a legal move (not checked) and advance, scoring the hand at its end."""
        seat = self.current
        assert seat is not None
        hands = self.hands
        hands[seat].remove(card)
        table = self.table
        last_of_hand = not self.deck and not any(hands)
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
            self.table = kept
            self.vector -= units
            self.cards[side] += taken
            self.points[side] += pts
            self.last_capturer = side
            if not kept and (self.rules.last_card_tabla or not last_of_hand):
                self.tablas[side] += 1
        else:
            table.append(card)
            table.sort()
            self.vector += _UNIT[card]
        if not last_of_hand:
            if any(hands):
                self.current = (seat + 1) % self.n
            else:
                self._deal()
            return
        if self.last_capturer is not None:
            value = self.rules.points_by_index
            self.cards[self.last_capturer] += len(self.table)
            self.points[self.last_capturer] += sum(value[c] for c in self.table)
        self.table = []
        self.vector = 0
        self.current = None

    def _deal(self) -> None:
        n = self.n
        per = deal_size(len(self.deck), n)
        deck = self.deck
        for k in range(n):
            self.hands[(self.first + k) % n] = sorted(deck[k * per : (k + 1) * per])
        self.deck = deck[n * per :]
        self.current = self.first

    def final_points(self) -> list[int]:
        """Points per side for the whole hand (call once `is_over`)."""
        rules = self.rules
        most = most_cards(rules, self.cards, self.last_capturer)
        return [
            p + t * rules.tabla_points + m
            for p, t, m in zip(self.points, self.tablas, most, strict=True)
        ]

    def to_sim(self, move: Move) -> SimMove:
        """The simulator form of a `Move` in this position."""
        taken = move.captured
        mask = 0
        for k, c in enumerate(self.table):
            if CARDS[c] in taken:
                mask |= 1 << k
        return (move.card.index, mask)

    def to_move(self, move: SimMove) -> Move:
        """The `Move` of a simulator move in this position."""
        card, mask = move
        return Move(CARDS[card], [CARDS[c] for k, c in enumerate(self.table) if mask >> k & 1])
