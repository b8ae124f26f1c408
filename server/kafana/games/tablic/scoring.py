"""A hand's most-cards bonus: counted once for the match state and for the search simulator."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.games.tablic.rules import Rules


def most_cards(rules: Rules, counts: Sequence[int], last_capturer: int | None) -> tuple[int, ...]:
    """The most-cards points per side, given each side's cards (leftovers included).

    The side with the most cards gets them; on a tie, the last capturer among the tied sides
    if the rules say so (`most_cards_tie_to_last`), else nobody.

    >>> most_cards(Rules(), (27, 25), 1)
    (3, 0)
    >>> most_cards(Rules(), (26, 26), 1)
    (0, 0)
    """
    best = max(counts)
    leaders = [s for s, c in enumerate(counts) if c == best]
    most = [0] * len(counts)
    if len(leaders) == 1:
        most[leaders[0]] = rules.most_cards_points
    elif rules.most_cards_tie_to_last and last_capturer in leaders:
        assert last_capturer is not None
        most[last_capturer] = rules.most_cards_points
    return tuple(most)
