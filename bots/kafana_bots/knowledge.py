"""Card counting from a seat's view: which cards can still be hidden, and where."""

from __future__ import annotations

from math import comb

from kafana.games.tablic import CARDS, Card, View


def unseen(view: View) -> list[Card]:
    """Cards the seat has not seen: in other hands or the deck (sorted).

    Everything played is public (a trail lies on the table, a capture is made face up), so a
    card that is not in this hand, on the table or in a side's pile can only be hidden.
    """
    seen: set[Card] = set(view.table)
    seen.update(view.hand or ())
    for pile in view.captured:
        seen.update(pile)
    return [c for c in CARDS if c not in seen]


def hidden_sizes(view: View) -> tuple[list[int], int]:
    """Hand size of every seat (0 for the viewer's own) and cards left in the deck."""
    sizes = [0 if s == view.seat else n for s, n in enumerate(view.hand_sizes)]
    return sizes, view.deck_remaining


def unseen_by_rank(cards: list[Card]) -> list[int]:
    """How many of the given cards there are of each rank (index 1..13; 0 unused)."""
    counts = [0] * 14
    for c in cards:
        counts[c.rank] += 1
    return counts


def p_holds_any(k: int, pool: int, hand: int) -> float:
    """Probability that a hand of `hand` cards drawn from `pool` holds one of `k` given cards.

    >>> round(p_holds_any(1, 10, 5), 2)
    0.5
    """
    if k <= 0 or hand <= 0 or pool <= 0:
        return 0.0
    if hand > pool - k:
        return 1.0
    return 1.0 - comb(pool - k, hand) / comb(pool, hand)
