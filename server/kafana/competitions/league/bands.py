"""A league's rating bands: its queue split by rating, each band under its own hash tag.

A league without edges has one band, keyed as a league always was (under ``{lg:<league>}``).
With edges, band `i` holds the players whose pairing rating (mu) is at least edge `i - 1` and
below edge `i`, and its queue, active players, due matches, match counter and matches live
under ``{lg:<league>:b<i>}``: on a Redis Cluster the bands of one league spread over the nodes.
A match's number says its band (`number % count`), so a match is found without asking where.

>>> bands = Bands((20.0, 30.0))
>>> bands.count, bands.of(19.9), bands.of(20.0), bands.of(41.0)
(3, 0, 1, 2)
>>> bands.number(5, 1), bands.band_of(16)
(16, 1)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from kafana.errors import InvalidInputError

MAX_BANDS = 16
"""The most bands a league has."""


@dataclass(frozen=True)
class Bands:
    """Rating edges, ascending: `len(edges) + 1` bands."""

    edges: tuple[float, ...] = ()

    @property
    def count(self) -> int:
        """How many bands."""
        return len(self.edges) + 1

    def of(self, mu: float) -> int:
        """The band of pairing rating `mu` (an edge belongs to the band above it)."""
        return bisect_right(self.edges, mu)

    def number(self, local: int, band: int) -> int:
        """The league-wide number of a band's `local`-th match (one band: `local` itself)."""
        return local * self.count + band

    def band_of(self, number: int) -> int:
        """The band that made match `number`."""
        return number % self.count


def checked(edges: Sequence[float]) -> Bands:
    """`edges` as bands if they are finite, strictly ascending and at most `MAX_BANDS - 1`;
    else InvalidInputError naming what is wrong."""
    if len(edges) >= MAX_BANDS:
        raise InvalidInputError(
            f"band_edges makes at most {MAX_BANDS} bands: {MAX_BANDS - 1} edges, not {len(edges)}",
            field="band_edges",
        )
    if not all(math.isfinite(e) for e in edges):
        raise InvalidInputError("band_edges are finite ratings", field="band_edges")
    if any(b <= a for a, b in pairwise(edges)):
        raise InvalidInputError(
            f"band_edges rise strictly: {', '.join(repr(e) for e in edges)}", field="band_edges"
        )
    return Bands(tuple(float(e) for e in edges))
