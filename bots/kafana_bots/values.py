"""Immediate values of moves, in hand points: what greedy play maximises.

A captured card is worth its points plus `CARD_WEIGHT` for the most-cards race; a tabla its
points; a trailed card costs its points (the next player may take it); a flexible ace or a
wild jack spent on a small capture costs a little (`keep_cost`).
"""

from __future__ import annotations

from kafana.games.tablic import Rules

CARD_WEIGHT = 0.15
"""Value of one captured card: about 3 most-cards points shared over 27 cards, and denial."""
ACE, JACK = 1, 11


def keep_cost(rules: Rules, card: int) -> float:
    """What playing `card` (a card index) gives up beyond its points: aces and wild jacks."""
    rank = card // 4 + 1
    if rank == ACE and rules.ace_high:
        return 0.3
    if rank == JACK and rules.wild_jack:
        return 1.0
    return 0.0


def capture_value(rules: Rules, card: int, taken: list[int], clears: bool, last: bool) -> float:
    """Value of capturing `taken` (card indices) with `card`; `clears` empties the table."""
    value = rules.points_by_index
    pts = value[card] + sum(value[c] for c in taken)
    total = pts + CARD_WEIGHT * (1 + len(taken)) - keep_cost(rules, card)
    if clears and (rules.last_card_tabla or not last):
        total += rules.tabla_points
    return total


def trail_value(rules: Rules, card: int) -> float:
    """Value (a cost, so negative) of trailing `card`."""
    return -(rules.points_by_index[card] + CARD_WEIGHT) - 0.5 * keep_cost(rules, card)
