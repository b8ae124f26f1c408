"""A deliberately simple, brute-force capture checker, written from `shared/RULES.md`.

It shares nothing with `kafana.games.tablic.capture` but the `Card` and `Rules` types. The
rules it encodes, straight from the text:

- Capture values: A = 1, or 1 or 11 when aces are high (flexible in the hand and on the
  table, every ace on its own); 2..10 face value; J, Q, K from the rules.
- A capture is a non-empty set of table cards that splits into disjoint *groups*; every group
  is a single table card of the played card's rank, or a set of table cards whose values add
  up to the played card's value. A played ace is declared 1 or 11 for the whole move.
- With one group only (`multi_group` off) the whole capture must be one group.
- Q and K by rank only: a played Q or K takes only a card of its own rank, and a Q or K on
  the table never joins a sum.
- Wild jack: a played J takes the whole table (nothing on an empty table); a J on the table
  never joins a sum, so only a J takes it.
- Rank priority (`rank_priority`): when the table holds a card of the played card's rank,
  a capture by that card must take at least one such card (the engine's reading of "must
  capture by rank when a same-rank capture exists").

Everything is brute force: every subset of the table is a candidate group, every choice of
ace values is tried, and every subset is tested for a split into groups.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import cache

from kafana.games.tablic import Card, Rules

ACE, JACK, QUEEN, KING = 1, 11, 12, 13


def played_values(card: Card, rules: Rules) -> tuple[int, ...]:
    """The values a played card may be declared as."""
    if card.rank == ACE:
        return (1, 11) if rules.ace_high else (1,)
    if card.rank <= 10:
        return (card.rank,)
    return ({JACK: rules.jack_value, QUEEN: rules.queen_value, KING: rules.king_value}[card.rank],)


def sum_values(card: Card, rules: Rules) -> tuple[int, ...]:
    """The values a table card may count as inside a sum (empty: it never joins a sum)."""
    if card.rank == JACK and rules.wild_jack:
        return ()
    if card.rank in (QUEEN, KING) and rules.royals_by_rank_only:
        return ()
    return played_values(card, rules)


def group_sums(options: list[tuple[int, ...]]) -> set[int]:
    """Every total a group can reach, each card taking any of its values on its own."""
    return {sum(choice) for choice in itertools.product(*options)}


def oracle_captures(card: Card, table: Iterable[Card], rules: Rules) -> set[frozenset[Card]]:
    """Every legal non-empty capture of `card` on `table`, by brute force."""
    cards = list(table)
    if rules.wild_jack and card.rank == JACK:
        return {frozenset(cards)} if cards else set()
    n = len(cards)
    options = [sum_values(c, rules) for c in cards]
    by_rank_only = card.rank in (QUEEN, KING) and rules.royals_by_rank_only
    subsets = [
        frozenset(combo)
        for size in range(1, n + 1)
        for combo in itertools.combinations(range(n), size)
    ]
    # What a subset can be, whatever value the played card is declared as.
    same_rank = {s for s in subsets if len(s) == 1 and cards[min(s)].rank == card.rank}
    sums = {
        s: set() if by_rank_only else group_sums([options[i] for i in sorted(s)]) for s in subsets
    }
    found: set[frozenset[int]] = set()
    for value in played_values(card, rules):
        groups = [s for s in subsets if s in same_rank or value in sums[s]]
        if not rules.multi_group:
            found.update(groups)
            continue

        # A group that fits inside `rest` and holds its lowest position starts there.
        starting_at: dict[int, list[frozenset[int]]] = {i: [] for i in range(n)}
        for group in groups:
            starting_at[min(group)].append(group)

        @cache
        def splits(
            rest: frozenset[int], starting_at: dict[int, list[frozenset[int]]] = starting_at
        ) -> bool:
            if not rest:
                return True
            return any(g <= rest and splits(rest - g) for g in starting_at[min(rest)])

        found.update(s for s in subsets if splits(s))
    if rules.rank_priority and any(t.rank == card.rank for t in cards):
        found = {s for s in found if any(cards[i].rank == card.rank for i in s)}
    return {frozenset(cards[i] for i in s) for s in found}


def oracle_legal_moves(
    hand: Iterable[Card], table: Iterable[Card], rules: Rules
) -> set[tuple[Card, frozenset[Card]]]:
    """Every legal (card, captured) of a hand on a table, from `oracle_captures` and the switches.

    A trail is always allowed unless `must_capture` is on and some card can capture.
    """
    table = list(table)
    moves: set[tuple[Card, frozenset[Card]]] = set()
    any_capture = False
    for card in hand:
        takes = oracle_captures(card, table, rules)
        any_capture = any_capture or bool(takes)
        moves.update((card, c) for c in takes)
    if not (rules.must_capture and any_capture):
        moves.update((card, frozenset()) for card in hand)
    return moves
