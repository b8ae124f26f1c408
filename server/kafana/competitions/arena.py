"""Arena events as pure logic: who plays next, and the points with streaks.

An arena runs for a fixed time; an entrant is paired as soon as it is free and another is
(never waiting for a round). Scoring is Lichess's arena scoring: a win 2, a draw 1, a loss 0,
**doubled while on a streak**: after two wins in a row every game scores double (a win 4, a
draw 2) until the entrant fails to win (a draw or a loss ends the streak; the game that ends
it still counts double). At tables of 3 or 4 sides a game scores twice its match points (2nd
of 3: 1) and only a 1st place alone is a win. A game not played counts for nothing and leaves
the streak as it was. Each entrant plays one game at a time, so its games in round order are
its games in time order.

>>> arena_points([1.0, 1.0, 1.0, 0.5, 1.0, 0.0])  # 2, 2, 4, 2 (ends it), 2, 0
(12.0, 0)
>>> arena_points([1.0, 1.0])
(4.0, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

WIN = 2.0
"""Points of a win off a streak (a draw: half)."""
STREAK = 2
"""Wins in a row after which games score double."""


def game_points(match_points: float, streak: int) -> float:
    """One game's arena points: twice its match points, doubled when `streak` (the wins in a
    row before it) is `STREAK` or more."""
    base = WIN * match_points
    return 2 * base if streak >= STREAK else base


def arena_points(results: Iterable[float]) -> tuple[float, int]:
    """An entrant's arena points from its games' match points in time order, and the streak
    it is on after them (wins in a row)."""
    total, streak = 0.0, 0
    for mp in results:
        total += game_points(mp, streak)
        streak = streak + 1 if mp == 1.0 else 0
    return total, streak


def arena_tables(
    ranked: Sequence[str],
    waited: Mapping[str, int],
    last: Mapping[str, frozenset[str]],
    seats: int = 2,
    rematch_wait_ms: int = 2_000,
) -> list[tuple[str, ...]]:
    """Tables of `seats` among the free entrants: `ranked` is every entrant best first,
    `waited` the free ones with how long each has waited (ms). The longest-waiting free
    entrant goes first and sits with the free entrants nearest it in the ranking, except the
    entrants of its last game (`last`: the others at its last table), unless everyone it
    could sit with has waited `rematch_wait_ms` (then a rematch beats idling). Nobody sits
    twice at one table or with itself.

    >>> arena_tables(["a", "b", "c", "d"], {"a": 5, "b": 5, "c": 1, "d": 0}, {"a": {"b"}})
    [('a', 'c'), ('b', 'd')]
    """
    place = {name: i for i, name in enumerate(ranked)}
    free = sorted(waited, key=lambda e: (-waited[e], place.get(e, len(place)), e))
    taken: set[str] = set()
    tables: list[tuple[str, ...]] = []
    for first in free:
        if first in taken:
            continue
        table = [first]
        others = [e for e in free if e not in taken and e != first]
        others.sort(key=lambda e: (abs(place.get(e, 0) - place.get(first, 0)), e))
        for other in others:
            if len(table) == seats:
                break
            rematch = any(other in last.get(m, frozenset()) for m in table)
            patient = all(waited[m] >= rematch_wait_ms for m in (*table, other))
            if rematch and not patient:
                continue
            table.append(other)
        if len(table) == seats:
            tables.append(tuple(table))
            taken.update(table)
    return tables
