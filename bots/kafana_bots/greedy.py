"""`greedy`: the best immediate gain, move by move, with no look-ahead."""

from __future__ import annotations

import random
from collections.abc import Sequence

from kafana.games.tablic import Move, Rules, View

from kafana_bots.base import Bot
from kafana_bots.values import CARD_WEIGHT, capture_value, trail_value

BUILD_SHARE = 0.5
"""Share of a build's cards a build or raise counts as won: its maker holds the card that
takes it, but another player may take or raise it first."""


def greedy_value(view: View, move: Move) -> float:
    """Immediate value of `move`: points, cards and tabla taken, or the cost of a trail (a
    build: that cost, plus a share of the build's cards)."""
    rules = view.rules
    if move.is_trail:
        return trail_value(rules, move.card.index)
    if move.is_build:
        points = rules.points_by_index
        built = [move.card, *move.joined]
        share = sum(points[c.index] + CARD_WEIGHT for c in built)
        return trail_value(rules, move.card.index) + BUILD_SHARE * share
    on_table = len(view.table) + sum(len(b.cards) for b in view.builds)
    clears = len(move.captured) == on_table
    last = view.deck_remaining == 0 and sum(view.hand_sizes) == 1
    taken = [c.index for c in move.captured]
    return capture_value(rules, move.card.index, taken, clears, last)


def best_moves(scored: Sequence[tuple[float, Move]]) -> list[Move]:
    """Every move within a hair of the best score, in the given order."""
    top = max(score for score, _ in scored)
    return [move for score, move in scored if score >= top - 1e-9]


def trail_order(rules: Rules, move: Move) -> tuple[float, int]:
    """How trails rank, cheapest first: the least `trail_value` cost, then the lowest rank
    (A 2 3 ... 10 J Q K), then the suit (C D H S): the card's index."""
    return (-trail_value(rules, move.card.index), move.card.index)


def pick(rules: Rules, best: Sequence[Move], rng: random.Random) -> Move:
    """One of equally good moves: the cheapest trail (`trail_order`) when they are all trails,
    else one drawn with `rng`."""
    if all(move.is_trail for move in best):
        return min(best, key=lambda move: trail_order(rules, move))
    return rng.choice(list(best))


class GreedyBot(Bot):
    """Takes the most valuable capture now (tabla, points, cards), else trails the cheapest card.

    Equally cheap trails go lowest rank first, then suit C D H S (`trail_order`); other ties
    are broken with the injected generator.
    """

    name = "greedy"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The move of highest immediate value."""
        scored = [(greedy_value(view, m), m) for m in legal_moves]
        return pick(view.rules, best_moves(scored), self.rng)
