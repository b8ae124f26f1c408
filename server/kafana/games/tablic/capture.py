"""The capture generator: every legal capture of a played card, fast and cached.

Captures depend only on the ranks involved, so results are computed once per
(played rank, sorted table ranks) as bit masks over table positions and cached per
set of capture switches. `kafana.games.tablic.oracle` checks this against brute force.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from operator import attrgetter, itemgetter

from kafana.errors import InvalidInputError, TooManyMovesError
from kafana.games.tablic.cards import Card, check_distinct
from kafana.games.tablic.rules import Rules

JACK, QUEEN, KING = 11, 12, 13
_CACHE_LIMIT = 500_000
CAPTURE_LIMIT = 10_000
"""Most captures one card may list; past it `TooManyMovesError` (moves are still checked)."""
_OVERFLOW: tuple[int, ...] = (-1,)
# Count vectors: 4 bits per rank (rank r at bit 4 * (r - 1)); bit 3 of each field is a guard.
_GUARD = sum(8 << 4 * r for r in range(13))


class _Overflow(Exception):
    """Internal: enumeration passed CAPTURE_LIMIT."""


_BY_INDEX = attrgetter("index")


class CaptureEngine:
    """Capture masks for one combination of capture switches."""

    __slots__ = (
        "_cache",
        "_groups",
        "multi_group",
        "played_values",
        "rank_only",
        "reach",
        "table_values",
        "wild",
    )

    def __init__(self, rules: Rules) -> None:
        self.wild = rules.wild_jack
        self.multi_group = rules.multi_group
        self.rank_only = frozenset((QUEEN, KING) if rules.royals_by_rank_only else ())
        values: dict[int, tuple[int, ...]] = {1: (1, 11) if rules.ace_high else (1,)}
        values |= {rank: (rank,) for rank in range(2, 11)}
        values |= {JACK: (rules.jack_value,), QUEEN: (rules.queen_value,)}
        values[KING] = (rules.king_value,)
        self.played_values = values
        # Values a table card may take inside a sum group (none: only by rank).
        summable = dict(values)
        if self.wild:
            summable[JACK] = ()
        for rank in self.rank_only:
            summable[rank] = ()
        self.table_values = summable
        # reach[p]: the highest table rank that can take part in a capture by rank p. The
        # table is sorted by rank, so only that prefix of it matters (and keys the cache).
        self.reach = [0] * 14
        for played in range(1, 14):
            top = max(self.played_values[played])
            usable = [
                rank
                for rank, options in summable.items()
                if options and min(options) <= top and played not in self.rank_only
            ]
            self.reach[played] = 13 if self.wild and played == JACK else max([played, *usable])
        self._cache: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}
        self._groups: dict[tuple[int, int], dict[int, list[int]]] = {}

    def masks(self, played_rank: int, table_ranks: tuple[int, ...]) -> tuple[int, ...]:
        """Sorted bit masks (over table positions) of every legal capture.

        `table_ranks` must be sorted (the table is kept in rank order).
        """
        key = (played_rank, table_ranks[: bisect_right(table_ranks, self.reach[played_rank])])
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            try:
                found = self._compute(played_rank, key[1])
            except _Overflow:
                found = _OVERFLOW
            self._cache[key] = found
        if found is _OVERFLOW:
            raise TooManyMovesError(
                f"a card of rank {played_rank} has more than {CAPTURE_LIMIT} captures on this "
                f"{len(table_ranks)}-card table; play a capture directly (it is checked)"
            )
        return found

    def is_capture(
        self, played_rank: int, table_ranks: tuple[int, ...], taken: tuple[int, ...]
    ) -> bool:
        """Whether the cards of ranks `taken` (a non-empty part of the table) are one capture.

        Works on rank counts without listing captures, so it stays fast on any table.
        """
        if not taken:
            return False
        if self.wild and played_rank == JACK:
            return len(taken) == len(table_ranks)
        vector = 0
        for rank in taken:
            vector += 1 << 4 * (rank - 1)
        values = (0,) if played_rank in self.rank_only else self.played_values[played_rank]
        for value in values:
            by_low = self._groups_by_low(played_rank, value)
            if self.multi_group:
                if _can_partition(vector, by_low, {}):
                    return True
            elif any(vector in groups for groups in by_low.values()):
                return True
        return False

    def has_capture(self, played_rank: int, table_ranks: tuple[int, ...]) -> bool:
        """Whether the card can capture anything at all (a subset-sum test, no listing)."""
        if not table_ranks:
            return False
        if played_rank in table_ranks or (self.wild and played_rank == JACK):
            return True
        if played_rank in self.rank_only:
            return False
        for value in self.played_values[played_rank]:
            reachable = 1  # bit s set: some subset sums to s
            for rank in table_ranks:
                before = reachable  # each card adds one of its values, never two
                for option in self.table_values[rank]:
                    reachable |= before << option
            if reachable >> value & 1:
                return True
        return False

    def _groups_by_low(self, played_rank: int, value: int) -> dict[int, list[int]]:
        """Every group (a count vector) for this played card and declared value, by lowest rank."""
        key = (played_rank, value)
        found = self._groups.get(key)
        if found is None:
            vectors = {1 << 4 * (played_rank - 1)}  # a single card of the same rank
            if value:
                _vector_groups(self.table_values, 1, value, 0, vectors)
            found = {}
            for vector in vectors:
                low = ((vector & -vector).bit_length() - 1) // 4
                found.setdefault(low, []).append(vector)
            self._groups[key] = found
        return found

    def _compute(self, played_rank: int, table_ranks: tuple[int, ...]) -> tuple[int, ...]:
        n = len(table_ranks)
        if n == 0:
            return ()
        if self.wild and played_rank == JACK:
            return ((1 << n) - 1,)
        same_rank = [1 << i for i, rank in enumerate(table_ranks) if rank == played_rank]
        results: set[int] = set()
        if played_rank in self.rank_only:
            value_choices: tuple[int, ...] = (0,)  # rank groups only
        else:
            value_choices = self.played_values[played_rank]
        items = [
            (1 << i, min(self.table_values[rank]), self.table_values[rank])
            for i, rank in enumerate(table_ranks)
            if self.table_values[rank]
        ]
        items.sort(key=lambda item: item[1])
        for value in value_choices:
            groups = set(same_rank)
            if value:
                _sum_groups(items, 0, value, 0, groups)
            if self.multi_group and len(groups) > 1:
                reach = {0}
                for group in sorted(groups):
                    reach |= {m | group for m in reach if not m & group}
                    if len(reach) > CAPTURE_LIMIT:
                        raise _Overflow
                reach.discard(0)
                results |= reach
            else:
                results |= groups
        return tuple(sorted(results))


def _sum_groups(
    items: list[tuple[int, int, tuple[int, ...]]],
    start: int,
    remaining: int,
    mask: int,
    out: set[int],
) -> None:
    """Add to `out` every subset of items[start:] (joined to `mask`) summing to `remaining`.

    Items are sorted by their smallest value, so the loop stops at the first that is too big.
    """
    for i in range(start, len(items)):
        bit, smallest, values = items[i]
        if smallest > remaining:
            return
        for value in values:
            if value == remaining:
                out.add(mask | bit)
                if len(out) > CAPTURE_LIMIT:
                    raise _Overflow
            elif value < remaining:
                _sum_groups(items, i + 1, remaining - value, mask | bit, out)


def _vector_groups(
    values: dict[int, tuple[int, ...]], rank: int, remaining: int, vector: int, out: set[int]
) -> None:
    """Add every count vector of ranks >= `rank` whose cards can sum to `remaining`."""
    if rank > 13:
        return
    _vector_groups(values, rank + 1, remaining, vector, out)
    options = values[rank]
    if not options:
        return
    low, high = min(options), max(options)
    for count in range(1, 5):
        if count * low > remaining:
            break
        unit = count << 4 * (rank - 1)
        # Each card of this rank takes any of its values: an ace 1 or 11 on its own.
        sums = {low * (count - k) + high * k for k in range(count + 1)}
        for total in sums:
            if total == remaining:
                out.add(vector + unit)
            elif total < remaining:
                _vector_groups(values, rank + 1, remaining - total, vector + unit, out)


def _can_partition(vector: int, by_low: dict[int, list[int]], memo: dict[int, bool]) -> bool:
    """Whether the count vector splits into groups of `by_low` (exact cover on rank counts)."""
    if not vector:
        return True
    known = memo.get(vector)
    if known is not None:
        return known
    low = ((vector & -vector).bit_length() - 1) // 4
    result = False
    for group in by_low.get(low, ()):
        if ((vector | _GUARD) - group) & _GUARD == _GUARD and _can_partition(
            vector - group, by_low, memo
        ):
            result = True
            break
    memo[vector] = result
    return result


_ENGINES: dict[tuple[object, ...], CaptureEngine] = {}


def engine_for(rules: Rules) -> CaptureEngine:
    """The shared engine of these rules' capture switches."""
    key = (
        rules.ace_high,
        rules.wild_jack,
        rules.jack_value,
        rules.queen_value,
        rules.king_value,
        rules.royals_by_rank_only,
        rules.multi_group,
    )
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = CaptureEngine(rules)
    return engine


_PICKERS: dict[int, Callable[[tuple[Card, ...]], tuple[Card, ...]]] = {}


def picker(mask: int) -> Callable[[tuple[Card, ...]], tuple[Card, ...]]:
    """A fast function taking the cards at the set positions of `mask` from a table."""
    found = _PICKERS.get(mask)
    if found is None:
        if len(_PICKERS) > 100_000:
            _PICKERS.clear()
        positions = [i for i in range(mask.bit_length()) if mask >> i & 1]
        if len(positions) == 1:
            found = itemgetter(slice(positions[0], positions[0] + 1))
        else:
            found = itemgetter(*positions)
        _PICKERS[mask] = found
    return found


def with_rank_priority(
    masks: tuple[int, ...], played_rank: int, ranks: tuple[int, ...]
) -> tuple[int, ...]:
    """Keep the captures that take a same-rank card, when the table has one."""
    if not masks or played_rank not in ranks:
        return masks
    rank_bits = sum(1 << i for i, r in enumerate(ranks) if r == played_rank)
    return tuple(m for m in masks if m & rank_bits)


def captures(card: Card, table: Iterable[Card], rules: Rules) -> set[frozenset[Card]]:
    """Every legal non-empty capture `card` can make on `table` (empty set: none).

    >>> from kafana.games.tablic import Card, Rules
    >>> table = [Card.parse(t) for t in ("KD", "KH")]
    >>> sorted(sorted(map(str, c)) for c in captures(Card.parse("KC"), table, Rules()))
    [['KD'], ['KD', 'KH'], ['KH']]
    """
    if not isinstance(card, Card):
        raise InvalidInputError(f"expected a Card, got {card!r}")
    cards = tuple(sorted(table, key=_BY_INDEX))
    for item in cards:
        if not isinstance(item, Card):
            raise InvalidInputError(f"expected table Cards, got {item!r}")
    check_distinct(cards, "the table")
    if card in cards:
        raise InvalidInputError(f"{card} cannot be both played and on the table")
    ranks = tuple(c.rank for c in cards)
    masks = engine_for(rules).masks(card.rank, ranks)
    if rules.rank_priority:
        masks = with_rank_priority(masks, card.rank, ranks)
    return {frozenset(picker(mask)(cards)) for mask in masks}
