"""Standings: match points, then Buchholz, Sonneborn-Berger, point difference, name.

>>> rows = standings(["a", "b", "c"], [Outcome("a", "b", 1.0, 30), Outcome("b", "c", 0.5, 0)],
...                  byes={"c": 1})
>>> [(r.entrant, r.points, r.buchholz) for r in rows]
[('c', 1.5, 0.5), ('a', 1.0, 0.5), ('b', 0.5, 2.5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """One decided pairing: `a`'s points (1 win, 0.5 draw, 0 loss) and card-point difference."""

    a: str
    b: str
    points_a: float
    diff_a: int


@dataclass(frozen=True)
class Standing:
    """One row of the table."""

    rank: int
    entrant: str
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    buchholz: float  # sum of the opponents' points
    sonneborn_berger: float  # sum of the points of opponents beaten, half of those drawn
    diff: int  # game points scored minus conceded


def standings(
    entrants: Sequence[str], outcomes: Iterable[Outcome], byes: Mapping[str, int] | None = None
) -> list[Standing]:
    """Rank `entrants` from decided outcomes and bye counts (a bye is worth one point)."""
    byes = byes or {}
    points = {e: float(byes.get(e, 0)) for e in entrants}
    record: dict[str, list[tuple[str, float]]] = {e: [] for e in entrants}
    diff = dict.fromkeys(entrants, 0)
    for o in outcomes:
        points[o.a] += o.points_a
        points[o.b] += 1.0 - o.points_a
        record[o.a].append((o.b, o.points_a))
        record[o.b].append((o.a, 1.0 - o.points_a))
        diff[o.a] += o.diff_a
        diff[o.b] -= o.diff_a
    rows = []
    for e in entrants:
        games = record[e]
        rows.append(
            (
                e,
                points[e],
                len(games),
                sum(1 for _, p in games if p == 1.0),
                sum(1 for _, p in games if p == 0.5),
                sum(1 for _, p in games if p == 0.0),
                byes.get(e, 0),
                sum(points[o] for o, _ in games),
                sum(points[o] * p for o, p in games),
                diff[e],
            )
        )
    rows.sort(key=lambda r: (-r[1], -r[7], -r[8], -r[9], r[0]))
    return [Standing(i + 1, *row) for i, row in enumerate(rows)]
