"""An independent minimax opponent for Serbian Tablić with two players, written from RULES.md.

It shares no search code with `kafana_bots` (no `HandSim`, no capture engine, no values): its
own capture generator (A = 1 or 11, 2..10, J = 12, Q = 13, K = 14; any set of disjoint
groups, each summing to the played card's value), its own hand model and its own evaluation.
The hidden cards are sampled (the other hand drawn from the unseen cards, the deck left out:
the search stops at the end of the deal); each world is searched to `depth` plies with
alpha-beta, and the root values are summed over as many worlds as fit `max_nodes` (at least
one). In the last deal the other hand is known, so one world is the truth. Leaves score the
points and tablas taken so far, 0.1 a card, and the 3 most-cards points once a side has 27.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from kafana.games.tablic import Card, Move, Rules, View
from kafana_bots.base import Bot

TEN_D, TWO_C = Card(10, "D"), Card(2, "C")


def card_points(card: Card) -> int:
    """RULES.md: A, 10, J, Q, K one point each, the 10 of diamonds two, the 2 of clubs one."""
    if card is TEN_D:
        return 2
    if card.rank == 1 or card.rank >= 10 or card is TWO_C:
        return 1
    return 0


def values_of(rank: int) -> tuple[int, ...]:
    """Capture values of a rank: an ace 1 or 11, J 12, Q 13, K 14."""
    if rank == 1:
        return (1, 11)
    return (rank if rank <= 10 else rank + 1,)


@lru_cache(maxsize=100_000)
def captures(rank: int, table: tuple[int, ...]) -> frozenset[int]:
    """Bit masks of the table positions a card of `rank` can take (table: ranks)."""
    out: set[int] = set()
    n = len(table)
    for target in values_of(rank):
        groups = []
        for mask in range(1, 1 << n):
            sums = {0}
            for k in range(n):
                if mask >> k & 1:
                    sums = {s + v for s in sums for v in values_of(table[k])}
            if target in sums:
                groups.append(mask)
        _unions(groups, 0, 0, out)
    return frozenset(out)


def _unions(groups: list[int], used: int, start: int, out: set[int]) -> None:
    """Add to `out` every union of disjoint groups from `start` on, joined to `used`."""
    for g in range(start, len(groups)):
        if not groups[g] & used:
            out.add(used | groups[g])
            _unions(groups, used | groups[g], g + 1, out)


class _Deal:
    """The rest of one deal: both hands, the table, and what each side took this hand."""

    def __init__(self, hands: list[list[Card]], table: list[Card], view: View) -> None:
        self.hands = hands
        self.table = table
        self.points = [sum(card_points(c) for c in view.captured[s]) for s in range(2)]
        self.cards = [len(view.captured[s]) for s in range(2)]
        self.tablas = list(view.tablas)
        self.last = view.last_capturer
        self.final = view.deck_remaining == 0

    def moves(self, seat: int) -> list[tuple[Card, int]]:
        ranks = tuple(c.rank for c in self.table)
        out: list[tuple[Card, int]] = []
        for card in self.hands[seat]:
            out.extend((card, mask) for mask in captures(card.rank, ranks))
            out.append((card, 0))
        return out

    def play(self, seat: int, card: Card, mask: int) -> tuple[object, ...]:
        """Apply a move; returns what undo needs."""
        saved = (list(self.table), self.points[:], self.cards[:], self.tablas[:], self.last)
        self.hands[seat].remove(card)
        if mask:
            taken = [c for k, c in enumerate(self.table) if mask >> k & 1]
            self.table = [c for k, c in enumerate(self.table) if not mask >> k & 1]
            self.points[seat] += card_points(card) + sum(map(card_points, taken))
            self.cards[seat] += 1 + len(taken)
            self.last = seat
            last_card = self.final and not any(self.hands)
            if not self.table and not last_card:
                self.tablas[seat] += 1
        else:
            self.table = [*self.table, card]
        return (seat, card, *saved)

    def undo(self, saved: tuple[object, ...]) -> None:
        seat, card, table, points, cards, tablas, last = saved
        assert isinstance(seat, int) and isinstance(card, Card)
        self.hands[seat].append(card)
        self.table, self.points, self.cards, self.tablas = table, points, cards, tablas  # type: ignore[assignment]
        self.last = last  # type: ignore[assignment]

    def score(self, me: int) -> float:
        """Points of `me` minus the other's: final at the end of the hand, else an estimate."""
        points: list[float] = [p + t for p, t in zip(self.points, self.tablas, strict=True)]
        cards = self.cards[:]
        done = self.final and not any(self.hands)
        if done and self.last is not None:
            points[self.last] += sum(map(card_points, self.table))
            cards[self.last] += len(self.table)
        for s in range(2):
            if cards[s] >= 27:
                points[s] += 3
        if not done:
            points = [p + 0.1 * c for p, c in zip(points, cards, strict=True)]
        return points[me] - points[1 - me]


class MinimaxBot(Bot):
    """Depth-limited alpha-beta over sampled worlds (see the module's text)."""

    name = "minimax"

    def __init__(
        self, seat: int, rules: Rules, rng: random.Random, depth: int = 3, max_nodes: int = 5_000
    ) -> None:
        super().__init__(seat, rules, rng)
        if rules.players != 2 or rules.sides != 2:
            raise ValueError("the minimax baseline plays two-player tables only")
        self.depth = depth
        self.max_nodes = max_nodes
        self.nodes = 0

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The legal move of best summed value over the sampled worlds."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        me = self.seat
        seen = set(view.table) | set(view.hand or ()) | set().union(*view.captured)
        unseen = [c for c in _all_cards() if c not in seen]
        other_size = view.hand_sizes[1 - me]
        totals: dict[tuple[Card, int], float] = {}
        self.nodes = 0
        worlds = 0
        while worlds == 0 or (self.nodes < self.max_nodes and view.deck_remaining):
            other = self.rng.sample(unseen, other_size)
            hands = [[], []]  # type: list[list[Card]]
            hands[me], hands[1 - me] = list(view.hand or ()), other
            deal = _Deal(hands, list(view.table), view)
            for move in deal.moves(me):
                saved = deal.play(me, *move)
                value = self._search(deal, 1 - me, self.depth - 1, -1e9, 1e9)
                deal.undo(saved)
                totals[move] = totals.get(move, 0.0) + value
            worlds += 1
        best = max(totals, key=lambda m: totals[m])
        card, mask = best
        taken = frozenset(c for k, c in enumerate(view.table) if mask >> k & 1)
        for legal in legal_moves:
            if legal.card is card and legal.captured == taken:
                return legal
        raise AssertionError(f"the minimax's move {best} is not legal")

    def _search(self, deal: _Deal, seat: int, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if depth <= 0 or not deal.hands[seat]:
            return deal.score(self.seat)
        maximize = seat == self.seat
        best = -1e9 if maximize else 1e9
        for move in deal.moves(seat):
            saved = deal.play(seat, *move)
            value = self._search(deal, 1 - seat, depth - 1, alpha, beta)
            deal.undo(saved)
            if maximize:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best


def _all_cards() -> list[Card]:
    return [Card(rank, suit) for rank in range(1, 14) for suit in "CDHS"]


class Minimax2(MinimaxBot):
    """The baseline searching 2 plies."""

    name = "minimax2"

    def __init__(self, seat: int, rules: Rules, rng: random.Random) -> None:
        super().__init__(seat, rules, rng, depth=2)


class Minimax3(MinimaxBot):
    """The baseline searching 3 plies (5,000 nodes a move)."""

    name = "minimax3"

    def __init__(self, seat: int, rules: Rules, rng: random.Random) -> None:
        super().__init__(seat, rules, rng, depth=3)
