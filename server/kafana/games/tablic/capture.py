"""The capture generator: every legal capture of a played card, fast and cached.

Captures depend only on the ranks involved, so results are computed once per played rank
and table rank counts (`count_vector`, only the ranks the played card can reach) as bit
masks over table positions, and cached per set of capture switches. The brute-force oracle
in `tests/games/tablic/oracle.py` checks this.

Every cache here is bounded (a caller choosing tables must not grow the process):

- the listings and candidate lists of all engines together: `LISTING_BYTES` (estimated,
  `listing_bytes`) in the young generation; past it every engine's young listings become its
  old generation (the old one dropped) and a listing found there moves back, so the hot ones
  stay and at most twice `LISTING_BYTES` is held;
- listing keys that overflow `CAPTURE_LIMIT`: `OVERFLOW_ENTRIES` per engine, then cleared;
- the memos of positions (`_POSITIONS`: `POSITION_ENTRIES`) and of ranks (`_LOW_RANKS`,
  `_HIGH_RANKS`: `MEMO_ENTRIES` each): past it a memo is cleared;
- engines per combination of capture switches: `ENGINE_ENTRIES`, then cleared (and their
  caches emptied); engines per Rules object: `_BY_RULES_LIMIT`, then cleared;
- groups per (played rank, declared value): at most 14 x 14 by construction.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import repeat
from operator import attrgetter
from types import ModuleType
from typing import TypeVar

from mypy_extensions import mypyc_attr

from kafana.errors import InvalidInputError, TooManyMovesError
from kafana.games.cards import CARDS, Card, check_distinct
from kafana.games.tablic.build import BUILD
from kafana.games.tablic.rules import Rules

_T = TypeVar("_T")
JACK, QUEEN, KING = 11, 12, 13
LISTING_BYTES = 32 * 2**20
"""Most bytes (estimated by `listing_bytes`) all engines' young listings and candidate lists
hold together; the old generation holds at most as much again."""
OVERFLOW_ENTRIES = 16_384
"""Most listing keys one engine remembers as overflowing `CAPTURE_LIMIT`."""
POSITION_ENTRIES = 1 << 16
"""Most entries of the memo of positions by mask (every mask of 16 cards; ~200 bytes each)."""
MEMO_ENTRIES = 1 << 17
"""Most entries of each memo of ranks by count vector (~150 bytes each; 5**7 are valid)."""
ENGINE_ENTRIES = 64
"""Most engines (combinations of capture switches) kept."""
CAPTURE_LIMIT = 10_000
"""Most captures one card may list; past it `TooManyMovesError` (moves are still checked)."""
# Count vectors: 4 bits per rank (rank r at bit 4 * (r - 1)); bit 3 of each field is a guard.
_GUARD = sum(8 << 4 * r for r in range(13))
UNITS = tuple(1 << 4 * (rank - 1) if rank else 0 for rank in range(14))
"""The count vector of one card of each rank (index: rank; 0 for index 0)."""
LISTING_TAGS = tuple(
    tuple(rank << 52 | priority << 56 for rank in range(14)) for priority in (0, 1)
)
"""LISTING_TAGS[rank_priority][played_rank]: what `CaptureEngine.listing` adds to the table's
count vector under `reach_vectors[played_rank]` to make its cache key (`_by_vector`)."""


def _choose_table() -> tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]:
    """_CHOOSE[n][offset][k]: every mask taking k of the n positions from `offset` on."""
    table = []
    for n in range(5):
        by_offset = []
        for offset in range(53):
            by_count: list[list[int]] = [[] for _ in range(16)]
            for subset in range(1 << n):
                by_count[subset.bit_count()].append(subset << offset)
            by_offset.append(tuple(tuple(masks) for masks in by_count))
        table.append(tuple(by_offset))
    return tuple(table)


_CHOOSE = _choose_table()
_NONE: tuple[tuple[int, ...], ...] = ()
_UNIT_OF = UNITS.__getitem__
_LOW = sum(1 << 4 * r for r in range(13))  # bit 0 of every rank's field


def _support(vector: int) -> int:
    """The ranks a count vector uses: bit 0 of each used rank's field (counts are below 8)."""
    return (vector | vector >> 1 | vector >> 2) & _LOW


class _Overflow(Exception):
    """Internal: enumeration passed CAPTURE_LIMIT."""


_BY_INDEX = attrgetter("index")


def listing_bytes(masks: int, positions: int = 0) -> int:
    """About what a cached listing of `masks` captures taking `positions` cards in all costs:
    two tuples of `masks` items, the mask ints, three dict entries and the slots of position
    tuples a listing keeps after the `_POSITIONS` memo drops them (big tables' masks are unique)."""
    return 150 + 64 * masks + 8 * positions


@mypyc_attr(native_class=False)
class _Handle:
    """What the budget holds of an engine: weakly, so a dropped engine goes (a compiled engine
    takes no weak reference itself; engine and handle hold each other until both are unused)."""

    __slots__ = ("__weakref__", "engine")

    def __init__(self, engine: CaptureEngine) -> None:
        self.engine = engine


class _Budget:
    """The bytes the listing caches of every live engine hold together (`LISTING_BYTES`)."""

    __slots__ = ("handles", "limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.handles: weakref.WeakSet[_Handle] = weakref.WeakSet()

    def charge(self, amount: int) -> None:
        """Count `amount` more bytes; past the limit every engine starts a generation first."""
        if self.used + amount > self.limit:
            for handle in list(self.handles):
                handle.engine.age()
            self.used = 0
        self.used += amount


_BUDGET = _Budget(LISTING_BYTES)


class CaptureEngine:
    """Capture masks for one combination of capture switches."""

    __slots__ = (
        "_by_vector",
        "_candidate_lists",
        "_group_lists",
        "_groups",
        "_handle",
        "_old",
        "_overflowing",
        "_shared",
        "fast_params",
        "multi_group",
        "played_values",
        "rank_only",
        "reach_vectors",
        "table_values",
        "value_choices",
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
        reach = [0] * 14
        for played in range(1, 14):
            top = max(self.played_values[played])
            usable = [
                rank
                for rank, options in summable.items()
                if options and min(options) <= top and played not in self.rank_only
            ]
            reach[played] = 13 if self.wild and played == JACK else max([played, *usable])
        # The same prefix as a mask over count vectors; `listing` keys on the table's vector
        # under it, tagged (`LISTING_TAGS`) with the played rank and rank priority.
        self.reach_vectors = tuple((1 << 4 * reach[r]) - 1 for r in range(14))
        # The values a played card may declare (0: it takes by rank only).
        self.value_choices = [
            (0,) if rank in self.rank_only else values.get(rank, ()) for rank in range(14)
        ]
        self._overflowing: set[int] = set()  # listing keys with too many captures
        self._shared: dict[tuple[int, ...], Listing] = {}  # one object per distinct listing
        self._groups: dict[tuple[int, int], dict[int, list[int]]] = {}
        self._by_vector: dict[int, Listing] = {}  # the young generation
        self._old: dict[int, Listing] = {}  # the generation before it (see `age`)
        self._group_lists: dict[tuple[int, int], GroupList] = {}
        self._candidate_lists: dict[int, Candidates] = {}
        self._handle = _Handle(self)
        _BUDGET.handles.add(self._handle)
        self.fast_params = fast_params(self.wild, self.multi_group, self.value_choices, summable)

    def age(self) -> None:
        """Start a generation: the young listings become the old ones, the old are dropped."""
        self._old = self._by_vector
        self._by_vector = {}  # `MatchState` looks it up anew on every listing
        self._shared = {}
        self._candidate_lists.clear()
        self._overflowing.clear()

    def forget(self) -> None:
        """Empty every listing cache."""
        self.age()
        self._old = {}

    def masks(self, played_rank: int, table_ranks: tuple[int, ...]) -> tuple[int, ...]:
        """Sorted bit masks (over table positions) of every legal capture.

        `table_ranks` must be sorted (the table is kept in rank order).
        """
        return self.listing(played_rank, count_vector(table_ranks))[0]

    def listing(self, played_rank: int, vector: int, rank_priority: bool = False) -> Listing:
        """Every capture's mask (sorted) and table positions, cached by the table's counts.

        `vector` is the table's `count_vector`; positions index the table in rank order.
        Rank priority filters the captures when asked. What `captures()` and
        `MatchState.legal_moves()` build answers from; on a hit it is one dict lookup, and
        callers may read `_by_vector` directly (key: the vector under `reach_vectors` of the
        played rank, with its `LISTING_TAGS`).
        """
        relevant = vector & self.reach_vectors[played_rank]
        key = relevant | LISTING_TAGS[rank_priority][played_rank]
        found = self._by_vector.get(key)
        if found is None:
            found = self._list(played_rank, relevant, key, rank_priority)
        return found

    def _list(self, played_rank: int, relevant: int, key: int, rank_priority: bool) -> Listing:
        """Work a listing out and remember it (equal listings share one object)."""
        old = self._old.get(key)
        if old is not None:
            return self._keep(key, old)
        if key in self._overflowing:
            raise self._too_many(played_rank)
        ranks = ranks_of(relevant)
        try:
            masks = self._compute(played_rank, relevant, ranks)
        except _Overflow:
            if len(self._overflowing) >= OVERFLOW_ENTRIES:
                self._overflowing.clear()
            self._overflowing.add(key)
            raise self._too_many(played_rank) from None
        if rank_priority:
            masks = with_rank_priority(masks, played_rank, ranks)
        found = self._shared.get(masks)
        if found is None:
            found = (masks, tuple(map(_POSITIONS.__getitem__, masks)))
        return self._keep(key, found)

    def _keep(self, key: int, found: Listing) -> Listing:
        """Remember a listing in the young generation (equal listings share one object)."""
        shared = self._shared.get(found[0])
        if shared is None:
            masks = found[0]
            _BUDGET.charge(listing_bytes(len(masks), sum(map(int.bit_count, masks))))
            shared = self._shared[found[0]] = found
        else:
            _BUDGET.charge(listing_bytes(0))
        self._by_vector[key] = shared
        return shared

    @staticmethod
    def _too_many(played_rank: int) -> TooManyMovesError:
        return TooManyMovesError(
            f"a card of rank {played_rank} has more than {CAPTURE_LIMIT} captures on this "
            "table; play a capture directly (it is checked)"
        )

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
        values = (0,) if played_rank in self.rank_only else self.played_values[played_rank]
        return any(self.is_capture_as(played_rank, value, taken) for value in values)

    def is_capture_as(self, played_rank: int, value: int, taken: tuple[int, ...]) -> bool:
        """Whether cards of ranks `taken` (not empty) are one capture of a card of
        `played_rank` declared as `value` (0: by rank only), the wild jack aside."""
        vector = 0
        for rank in taken:
            vector += 1 << 4 * (rank - 1)
        by_low = self._groups_by_low(played_rank, value)
        if self.multi_group:
            return _can_partition(vector, by_low, {})
        return any(vector in groups for groups in by_low.values())

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

    def _group_list(self, played_rank: int, value: int) -> GroupList:
        """Every group (a count vector) for this card and declared value, with its (rank
        index, count) parts, after the ranks it uses (as `_support`)."""
        key = (played_rank, value)
        found = self._group_lists.get(key)
        if found is None:
            by_low = self._groups_by_low(played_rank, value)
            vectors = sorted(g for gs in by_low.values() for g in gs)
            found = self._group_lists[key] = tuple((_support(g), (g, _parts(g))) for g in vectors)
        return found

    def _candidates(self, played_rank: int, value: int, present: int) -> Candidates:
        """The groups of `_group_list` using only the ranks of `present` (as `_support`),
        each with its (rank index, count) parts."""
        key = present | value << 52 | played_rank << 57
        found = self._candidate_lists.get(key)
        if found is None:
            absent = ~present
            found = tuple(
                group
                for support, group in self._group_list(played_rank, value)
                if not support & absent
            )
            _BUDGET.charge(200 + 8 * len(found))
            self._candidate_lists[key] = found
        return found

    def _compute(
        self, played_rank: int, vector: int, table_ranks: tuple[int, ...]
    ) -> tuple[int, ...]:
        """Captures worked out on rank counts, then spread over the table's positions.

        Cards of one rank are interchangeable, so a set of positions is a capture exactly
        when its count vector splits into groups: find those vectors (few), then list the
        ways to pick each rank's count among that rank's positions. `vector` is the count
        vector of `table_ranks`.
        """
        n = len(table_ranks)
        if n == 0:
            return ()
        if self.wild and played_rank == JACK:
            return ((1 << n) - 1,)
        fit = vector | _GUARD
        present = (vector | vector >> 1 | vector >> 2) & _LOW  # bit 0 of each rank's field
        runs: dict[int, tuple[tuple[int, ...], ...]] = {}  # by rank index: masks by count
        values = self.value_choices[played_rank]
        results: list[int] = []
        for value in values:
            groups: list[int] = []
            for group, parts in self._candidates(played_rank, value, present):
                if (fit - group) & _GUARD != _GUARD:
                    continue
                # Spread the group's rank counts over the positions of those ranks.
                fixed = 0
                spread: Sequence[int] | None = None
                for rank, count in parts:
                    by_count = runs.get(rank)
                    if by_count is None:
                        first = table_ranks.index(rank + 1)
                        by_count = runs[rank] = _CHOOSE[vector >> 4 * rank & 15][first]
                    options = by_count[count]
                    if len(options) == 1:
                        fixed |= options[0]
                    elif spread is None:
                        spread = options
                    else:
                        spread = [a | b for a in spread for b in options]
                if spread is None:
                    groups.append(fixed)
                else:
                    groups += [a | fixed for a in spread]
                if len(groups) > CAPTURE_LIMIT:
                    raise _Overflow
            if self.multi_group and len(groups) > 1:
                unions = {0}
                for group in sorted(groups):
                    unions |= {m | group for m in unions if not m & group}
                    if len(unions) > CAPTURE_LIMIT:
                        raise _Overflow
                unions.discard(0)
                results += unions
            else:
                results += groups
        if self.multi_group or len(values) > 1:
            return tuple(sorted(set(results)))
        return tuple(sorted(results))


Candidates = tuple[tuple[int, tuple[tuple[int, int], ...]], ...]
GroupList = tuple[tuple[int, tuple[int, tuple[tuple[int, int], ...]]], ...]
"""Groups (count vectors) that fit a set of ranks, each with its (rank index, count) parts."""


def _parts(vector: int) -> tuple[tuple[int, int], ...]:
    """The (rank index, count) of each rank a count vector uses, lowest rank first."""
    return tuple((r, vector >> 4 * r & 15) for r in range(13) if vector >> 4 * r & 15)


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


RULES_ENTRIES = 64
"""Most Rules objects each `per_rules` memo remembers (then emptied)."""


def per_rules(memo: dict[int, tuple[Rules, _T]], rules: Rules, make: Callable[[Rules], _T]) -> _T:
    """`make(rules)`, remembered in `memo` by the object's identity (hashing a Rules reads
    every switch), the Rules kept alive so its id is not reused; at most `RULES_ENTRIES`."""
    found = memo.get(id(rules))
    if found is None or found[0] is not rules:
        if len(memo) >= RULES_ENTRIES:
            memo.clear()
        found = memo[id(rules)] = (rules, make(rules))
    return found[1]


_ENGINES: dict[tuple[object, ...], CaptureEngine] = {}
_BY_RULES: dict[int, tuple[Rules, CaptureEngine]] = {}  # id(rules) -> (rules kept alive, engine)
_BY_RULES_LIMIT = 4096


def engine_for(rules: Rules) -> CaptureEngine:
    """The shared engine of these rules' capture switches.

    Rules objects with the same capture switches share one engine; the answer is also
    remembered per Rules object (by identity, the object kept alive) so repeated calls skip
    building the switch key.
    """
    found = _BY_RULES.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    if not isinstance(rules, Rules):
        raise InvalidInputError(f"expected Rules, got {rules!r}")
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
        if len(_ENGINES) >= ENGINE_ENTRIES:
            _forget_engines()
        engine = _ENGINES[key] = CaptureEngine(rules)
    if len(_BY_RULES) >= _BY_RULES_LIMIT:
        _BY_RULES.clear()
    _BY_RULES[id(rules)] = (rules, engine)
    return engine


def _forget_engines() -> None:
    """Drop every engine, its caches emptied first (a match may still hold its engine)."""
    for engine in _ENGINES.values():
        engine.forget()
    _ENGINES.clear()
    _BY_RULES.clear()


def reset_engines() -> None:
    """Forget every engine and its caches (benchmarks of a cold start)."""
    _forget_engines()
    _BUDGET.used = 0
    _POSITIONS.clear()
    _LOW_RANKS.clear()
    _HIGH_RANKS.clear()


Listing = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]
"""Capture masks (sorted) and the table positions each takes.

Only ints inside: cached listings are tuples the garbage collector stops tracking, so a big
cache costs no collection time.
"""


def count_vector(ranks: Iterable[int]) -> int:
    """The rank counts of some cards: 4 bits per rank, rank r at bit 4 * (r - 1)."""
    return sum(map(_UNIT_OF, ranks))


class _Memo(dict[int, _T]):
    """A bounded memo of a function of an int; a hit (`memo[key]`) never leaves C."""

    __slots__ = ("entries", "function")

    def __init__(self, function: Callable[[int], _T], entries: int = MEMO_ENTRIES) -> None:
        super().__init__()
        self.function = function
        self.entries = entries

    def __missing__(self, key: int) -> _T:
        if len(self) >= self.entries:
            self.clear()
        value = self[key] = self.function(key)
        return value


def _spell(vector: int, first: int) -> tuple[int, ...]:
    """The sorted ranks of a count vector whose lowest field is rank `first`."""
    return tuple(
        rank for rank in range(first, 14) for _ in range(vector >> 4 * (rank - first) & 15)
    )


def ranks_of(vector: int) -> tuple[int, ...]:
    """The sorted ranks of a count vector (two memo hits: ranks A-6 and 7-K)."""
    return _LOW_RANKS[vector & 0xFFFFFF] + _HIGH_RANKS[vector >> 24]


def _positions(mask: int) -> tuple[int, ...]:
    """The set bits of a mask, lowest first."""
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


_LOW_RANKS = _Memo(partial(_spell, first=1))
_HIGH_RANKS = _Memo(partial(_spell, first=7))
_POSITIONS = _Memo(_positions, POSITION_ENTRIES)


def with_rank_priority(
    masks: tuple[int, ...], played_rank: int, ranks: tuple[int, ...]
) -> tuple[int, ...]:
    """Keep the captures that take a same-rank card, when the table has one."""
    if not masks or played_rank not in ranks:
        return masks
    rank_bits = sum(1 << i for i, r in enumerate(ranks) if r == played_rank)
    return tuple(m for m in masks if m & rank_bits)


Answer = AbstractSet[frozenset[Card]]
"""What `captures()` returns: a set of frozensets of cards in the pure build; in the compiled
build `_ccore.Captures`, the same answer kept as card masks whose frozensets are made when read
(equal to the set, element by element; immutable and, as the set is, unhashable)."""
FastCaptures = Callable[[Card, Iterable[Card], bytes, bool], Answer | None]
"""The C fast path: the answer of `captures()`, or None where the Python path must answer."""


def fast_params(
    wild: bool,
    multi_group: bool,
    played: Sequence[tuple[int, ...]],
    summable: dict[int, tuple[int, ...]],
) -> bytes:
    """The 80 bytes `_ccore.captures` reads: the two switches, then per rank 1..13 the
    declared values of a played card (count, two values; 0: by rank only), then per rank the
    values of a table card inside a sum."""
    out = [int(wild), int(multi_group)]
    for values in [played[rank] for rank in range(1, 14)] + [summable[r] for r in range(1, 14)]:
        out += [len(values), *values, *[0] * (2 - len(values))]
    return bytes(out)


def _load_native() -> ModuleType | None:
    """The compiled build's C module (`_ccore`: captures, the simulator's playouts), or None
    (the pure build, or compiled without it)."""
    if BUILD != "compiled":
        return None
    try:
        module = importlib.import_module("kafana.games.tablic._ccore")
    except ImportError:  # compiled without it: the Python paths answer alone
        return None
    module.set_cards(Card, CARDS)
    AbstractSet.register(module.Captures)
    return module


NATIVE = _load_native()
"""The C module of the compiled build (`kafana_bots.sim` plays out with it), or None."""
_FAST: FastCaptures | None = None if NATIVE is None else NATIVE.captures
_CARD_TYPE = frozenset((Card,))
_RANK = attrgetter("rank")


def captures(card: Card, table: Iterable[Card], rules: Rules) -> Answer:
    """Every legal non-empty capture `card` can make on `table` (empty set: none), as a
    `collections.abc.Set` of frozensets (`Answer`; `set(...)` of it for a mutable copy).

    >>> from kafana.games.tablic import Card, Rules
    >>> table = [Card.parse(t) for t in ("KD", "KH")]
    >>> sorted(sorted(map(str, c)) for c in captures(Card.parse("KC"), table, Rules()))
    [['KD'], ['KD', 'KH'], ['KH']]
    """
    found = _BY_RULES.get(id(rules))
    engine = found[1] if found is not None and found[0] is rules else engine_for(rules)
    if _FAST is not None:
        answer = _FAST(card, table, engine.fast_params, rules.rank_priority)
        if answer is not None:
            return answer
    return python_captures(card, table, rules, engine)


def python_captures(
    card: Card, table: Iterable[Card], rules: Rules, engine: CaptureEngine | None = None
) -> set[frozenset[Card]]:
    """`captures()` without the C fast path: the reference it is checked against, and what
    answers (or names the error) where the fast path declines."""
    if engine is None:
        engine = engine_for(rules)
    if not isinstance(card, Card):
        raise InvalidInputError(f"expected a Card, got {card!r}")
    cards = table if type(table) is tuple else tuple(table)
    if not _CARD_TYPE.issuperset(map(type, cards)):
        for item in cards:
            if not isinstance(item, Card):
                raise InvalidInputError(f"expected table Cards, got {item!r}")
    distinct = set(cards)
    if len(distinct) != len(cards):
        check_distinct(cards, "the table")
    if card in distinct:
        raise InvalidInputError(f"{card} cannot be both played and on the table")
    ordered = sorted(cards, key=_BY_INDEX)
    positions = engine.listing(card.rank, count_vector(map(_RANK, ordered)), rules.rank_priority)[1]
    return set(map(frozenset, map(map, repeat(ordered.__getitem__), positions)))
