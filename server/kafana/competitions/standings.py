"""Standings: match points, then the format's tie-breaks, then the name.

The tie-breaks (`TIEBREAKS` of `kafana.competitions.tournament`): a round robin, where everyone
meets everyone, ranks by Sonneborn-Berger, then head-to-head (points won in the games among the
entrants on the same points), then point difference; a Swiss or duplicate event by Buchholz,
Sonneborn-Berger, point difference. The default (no tie-breaks named) is Buchholz,
Sonneborn-Berger, point difference.

Every decided game (or duplicate board) gives each entrant one `Placing`: its match points
(the share of the other sides it finished ahead of, a tie counting half: 1 / 0.5 / 0 with two
sides; 1, 0.5, 0 for first, second and third of three), its opponents (the entrants of the
other sides; a partner is not an opponent) and its side's point difference. A game counts as
won with 1 point, lost with 0, drawn otherwise (a tie, or a middle place at a table of 3 or 4).

>>> rows = standings(["a", "b", "c"], [*table_placings([("a",), ("b",)], [1, 0], [40, 10]),
...                  *table_placings([("b",), ("c",)], [0, 0], [])], byes={"c": 1})
>>> [(r.entrant, r.points, r.buchholz) for r in rows]
[('c', 1.5, 0.5), ('a', 1.0, 0.5), ('b', 0.5, 2.5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Placing:
    """One entrant's result in one decided game or duplicate board."""

    entrant: str
    opponents: tuple[str, ...]  # the entrants of the other sides
    points: float  # match points, 0 to 1
    diff: int  # its side's points minus the best other side's


def table_placings(
    sides: Sequence[Sequence[str]], values: Sequence[float], scores: Sequence[int]
) -> list[Placing]:
    """The placings of one game: `values[i]` ranks side i (higher is better, equal ties).

    `scores` (one per side, or empty when the game scores nothing) give the difference: a
    side's points minus the best other side's.

    >>> [(p.entrant, p.points, p.diff) for p in table_placings([("a",), ("b",), ("c",)],
    ...     [3, 2, 2], [51, 20, 30])]
    [('a', 1.0, 21), ('b', 0.25, -31), ('c', 0.25, -21)]
    """
    out = []
    for i, side in enumerate(sides):
        others = [j for j in range(len(sides)) if j != i]
        beaten = sum(
            1.0 if values[i] > values[j] else 0.5 if values[i] == values[j] else 0.0 for j in others
        )
        points = beaten / len(others) if others else 0.0
        diff = scores[i] - max(scores[j] for j in others) if scores and others else 0
        opponents = tuple(name for j in others for name in sides[j])
        out += [Placing(entrant, opponents, points, diff) for entrant in side]
    return out


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
    buchholz: float  # per game, the opponents' mean points, summed
    sonneborn_berger: float  # per game, the opponents' mean points times the points won
    diff: int  # game points scored minus the best opponent's
    head_to_head: float = 0.0  # points won against the entrants on the same points
    state: str = "active"  # or withdrawn, disqualified (kept with its results so far)
    streak: int = 0  # arena: the wins in a row it is on now


DEFAULT_TIEBREAKS = ("buchholz", "sonneborn_berger", "diff")
POINT_DIGITS = 9
"""Decimals points are rounded to once added up (sums of thirds and halves: exact to far more)."""


def standings(
    entrants: Sequence[str],
    placings: Iterable[Placing],
    byes: Mapping[str, int] | None = None,
    bye_points: float = 1.0,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    states: Mapping[str, str] | None = None,
) -> list[Standing]:
    """Rank `entrants` from their placings; each bye counted, and worth `bye_points`; ties
    broken by `tiebreaks` in order (Standing fields: buchholz, sonneborn_berger,
    head_to_head, diff), then the name. `states`: entrants withdrawn or disqualified."""
    byes = byes or {}
    points = {e: bye_points * byes.get(e, 0) for e in entrants}
    games: dict[str, list[Placing]] = {e: [] for e in entrants}
    for p in placings:
        points[p.entrant] += p.points
        games[p.entrant].append(p)
    # Match points are thirds, halves...: added as floats, equal totals could differ in the
    # last bit (2.0 against 1.9999999999999998) and be ranked, and compared, as unequal.
    points = {e: round(v, POINT_DIGITS) for e, v in points.items()}

    def strength(p: Placing) -> float:
        return sum(points[o] for o in p.opponents) / len(p.opponents) if p.opponents else 0.0

    rows = []
    for e in entrants:
        mine = games[e]
        rows.append(
            (
                e,
                points[e],
                len(mine),
                sum(1 for p in mine if p.points == 1.0),
                sum(1 for p in mine if 0.0 < p.points < 1.0),
                sum(1 for p in mine if p.points == 0.0),
                byes.get(e, 0),
                round(sum(strength(p) for p in mine), 6),
                round(sum(strength(p) * p.points for p in mine), 6),
                sum(p.diff for p in mine),
            )
        )
    states = states or {}
    made = [Standing(0, *row, state=states.get(row[0], "active")) for row in rows]
    made = [
        replace(r, head_to_head=_head_to_head(r.entrant, games[r.entrant], points)) for r in made
    ]
    made.sort(key=lambda r: (-r.points, *(-getattr(r, t) for t in tiebreaks), r.entrant))
    return [replace(r, rank=i + 1) for i, r in enumerate(made)]


def _head_to_head(entrant: str, mine: list[Placing], points: Mapping[str, float]) -> float:
    """The points `entrant` won in its games whose every opponent has its points."""
    level = points[entrant]
    won = sum(
        p.points for p in mine if p.opponents and all(points[o] == level for o in p.opponents)
    )
    return round(won, POINT_DIGITS)
