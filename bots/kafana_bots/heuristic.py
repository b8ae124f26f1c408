"""`heuristic`: greedy play plus card counting, tabla safety and a planned last capture.

In a small two-player last deal, where every card is known, the bot searches to the end of
the hand when that fits a few thousand nodes (`exact.solve`; not with `building`: the
search's simulator knows no builds). Otherwise each move is scored
as its immediate value (`greedy_value`), minus what the next player can expect to take from
the table it leaves (counting which cards can still be in their hand: every card not in this
hand, on the table or in a pile), plus the leftovers it should win by being the last to
capture once the deck is empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafana.games.tablic import Move, View, engine_for
from kafana.games.tablic.state import deal_size

from kafana_bots.base import Bot
from kafana_bots.exact import plies_left, solve
from kafana_bots.greedy import best_moves, greedy_value, pick
from kafana_bots.knowledge import p_holds_any, unseen, unseen_by_rank
from kafana_bots.values import CARD_WEIGHT
from kafana_bots.worlds import hands_known, sample_hidden, sim_from_view

RISK_WEIGHT = 0.9
"""How much of the next player's expected take counts against a move."""
LAST_CAPTURE_SHARE = 0.35
"""Share of the leftovers credited to a capture in the last deal when others still play."""
EXACT_PLIES = 10
"""With two players, an empty deck and at most this many cards left, search exactly..."""
EXACT_NODES = 4_000
"""...if the search to the end of the hand fits this many nodes (a few ms; replayable)."""


class HeuristicBot(Bot):
    """Greedy with look-around: no easy tablas for the next player, the last capture on purpose."""

    name = "heuristic"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The move of highest heuristic score; among equally good trails the cheapest, lowest
        rank first (`greedy.trail_order`), other ties broken with the injected generator.
        A small, fully known ending is solved exactly instead (`exact.solve`)."""
        if len(legal_moves) > 1 and not view.rules.building and hands_known(view):
            solved = _solved(view, legal_moves, self)
            if solved is not None:
                return solved
        context = _Context(view)
        scored = [(context.score(m), m) for m in legal_moves]
        return pick(view.rules, best_moves(scored), self.rng)


def _solved(view: View, legal_moves: Sequence[Move], bot: Bot) -> Move | None:
    """The best move by exact search if the ending is small enough, else None."""
    hands, deck = sample_hidden(view, bot.rng)  # the only world there is
    sim = sim_from_view(view, hands, deck)
    if plies_left(sim) > EXACT_PLIES:
        return None
    moves = list(legal_moves)
    found = solve(
        sim,
        [sim.to_sim(m) for m in moves],
        bot.rules.side_of(bot.seat),
        max_nodes=EXACT_NODES,
        exact_only=True,
    )
    if found is None:
        return None
    values = found[0]
    return moves[max(range(len(values)), key=values.__getitem__)]


class _Context:
    """What one decision needs: the unseen cards by rank and the next player's hand size."""

    def __init__(self, view: View) -> None:
        self.view = view
        rules = view.rules
        self.engine = engine_for(rules)
        pool = unseen(view)
        self.pool = len(pool)
        self.by_rank = unseen_by_rank(pool)
        n = rules.players
        seat = view.seat if view.seat is not None else 0
        self.next_seat = (seat + 1) % n
        size = view.hand_sizes[self.next_seat]
        if size == 0 and view.deck_remaining:
            size = deal_size(view.deck_remaining, n)
        self.next_size = size
        self.others_after = sum(view.hand_sizes) - 1  # cards still to be played after mine
        self.side = rules.side_of(seat)
        self.card_weight = _card_weight(view, self.side)
        self.values = rules.points_by_index

    def score(self, move: Move) -> float:
        """Immediate value, minus the next player's expected take, plus last-capture credit."""
        view = self.view
        base = greedy_value(view, move)
        if move.captured:
            base += (self.card_weight - CARD_WEIGHT) * (1 + len(move.captured))
        if move.is_trail:
            left = sorted([*view.table, move.card])
        else:  # a build's cards leave the loose ones too (builds are not taken by rank)
            gone = move.captured or move.joined
            left = [c for c in view.table if c not in gone]
        if self.others_after <= 0:
            return base  # the last card of the hand: nothing follows
        base -= RISK_WEIGHT * self._expected_take([c.index for c in left])
        if view.deck_remaining == 0 and move.captured and left:
            leftovers = sum(self.values[c.index] for c in left) + self.card_weight * len(left)
            base += LAST_CAPTURE_SHARE * leftovers
        return base

    def _expected_take(self, table: list[int]) -> float:
        """What the next player can expect to capture from `table` (they take their best)."""
        if not table or self.next_size == 0:
            return 0.0
        ranks = tuple(i // 4 + 1 for i in table)
        rules = self.view.rules
        values = self.values
        options: list[tuple[float, int]] = []
        for rank in range(1, 14):
            k = self.by_rank[rank]
            if not k:
                continue
            best = 0.0
            for mask in self.engine.masks(rank, ranks):
                taken = [c for pos, c in enumerate(table) if mask >> pos & 1]
                gain = sum(values[c] for c in taken) + self.card_weight * (len(taken) + 1)
                if len(taken) == len(table):
                    gain += rules.tabla_points
                best = max(best, gain)
            if best > 0:
                options.append((best, k))
        options.sort(reverse=True)
        expected, none_yet = 0.0, 1.0
        for gain, k in options:
            p = p_holds_any(k, self.pool, self.next_size)
            expected += gain * p * none_yet
            none_yet *= 1.0 - p
        return expected


def _card_weight(view: View, side: int) -> float:
    """Value of one more card for the most-cards race: little once the race is decided."""
    if view.rules.sides != 2:
        return CARD_WEIGHT
    mine = len(view.captured[side])
    theirs = len(view.captured[1 - side])
    if mine >= 27 or theirs >= 27:
        return 0.03
    return CARD_WEIGHT
