"""Ratings with openskill (Plackett-Luce): per game and variant, teams, provisional, history.

A pool is one game and variant, e.g. ``"tablic/serbian-2"``; a player's rating in one pool
says nothing of another. The displayed rating is the conservative estimate mu - 3 sigma.

>>> book = RatingBook()
>>> book.rate("tablic/serbian-2", [["ana"], ["bob"]], [101, 60])
>>> book.get("tablic/serbian-2", "ana").mu > 25 > book.get("tablic/serbian-2", "bob").mu
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openskill.models import PlackettLuce


MU = 25.0
SIGMA = MU / 3


@dataclass(frozen=True)
class Rating:
    """A skill estimate: mean, uncertainty and how many rated games it rests on."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def conservative(self) -> float:
        """The displayed rating: mu - 3 sigma (the skill we are fairly sure of)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class RatingPolicy:
    """When a rating is provisional: too few games or too much uncertainty."""

    min_games: int = 10
    max_sigma: float = 5.0

    def provisional(self, rating: Rating) -> bool:
        """True while the rating should be shown as provisional."""
        return rating.games < self.min_games or rating.sigma > self.max_sigma


@dataclass(frozen=True)
class HistoryPoint:
    """A player's rating after one rated game (`game` counts the pool's rated games)."""

    game: int
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma at that point."""
        return self.mu - 3 * self.sigma


def variant_name(preset: str, players: int, partnerships: bool = False) -> str:
    """A variant's pool suffix: ``serbian-2``, ``serbian-3``, ``serbian-2x2``.

    >>> variant_name("wild_jack", 4, partnerships=True)
    'wild_jack-2x2'
    """
    return f"{preset}-2x2" if partnerships else f"{preset}-{players}"


@dataclass
class RatingBook:
    """Every pool's ratings and their history, in memory (a league keeps its own in Redis)."""

    policy: RatingPolicy = field(default_factory=RatingPolicy)
    ratings: dict[str, dict[str, Rating]] = field(default_factory=dict)
    history: dict[str, dict[str, list[HistoryPoint]]] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)

    def get(self, pool: str, player: str) -> Rating:
        """A player's rating in `pool` (the default one if unrated)."""
        return self.ratings.get(pool, {}).get(player, Rating())

    def rate(self, pool: str, teams: Sequence[Sequence[str]], scores: Sequence[float]) -> None:
        """Rate one game: `teams[i]` scored `scores[i]` (higher is better, equal is a draw)."""
        updated = rate_teams([[self.get(pool, p) for p in team] for team in teams], scores)
        number = self.games.get(pool, 0) + 1
        self.games[pool] = number
        table = self.ratings.setdefault(pool, {})
        history = self.history.setdefault(pool, {})
        for team, new_team in zip(teams, updated, strict=True):
            for player, rating in zip(team, new_team, strict=True):
                table[player] = rating
                history.setdefault(player, []).append(HistoryPoint(number, rating.mu, rating.sigma))

    def seeding(self, pool: str, players: Sequence[str]) -> dict[str, float]:
        """The conservative ratings of those of `players` rated in `pool` (for
        `EventConfig.ratings`: a Swiss pairs round 1 by them).

        >>> book = RatingBook()
        >>> book.rate("p", [["ana"], ["bob"]], [1, 0])
        >>> sorted(book.seeding("p", ["bob", "ana", "cid"]).items(), key=lambda i: -i[1])[0][0]
        'ana'
        """
        table = self.ratings.get(pool, {})
        return {p: table[p].conservative for p in players if p in table}

    def leaderboard(self, pool: str) -> list[tuple[str, Rating]]:
        """Players of `pool`, best conservative rating first (ties by name)."""
        return sorted(
            self.ratings.get(pool, {}).items(), key=lambda item: (-item[1].conservative, item[0])
        )

    def to_json(self) -> str:
        """Every rating and history point as JSON."""
        data: dict[str, Any] = {
            "ratings": {
                pool: {p: asdict(r) for p, r in table.items()}
                for pool, table in self.ratings.items()
            },
            "history": {
                pool: {p: [asdict(h) for h in points] for p, points in table.items()}
                for pool, table in self.history.items()
            },
            "games": self.games,
        }
        return json.dumps(data, sort_keys=True)

    @staticmethod
    def from_json(text: str, policy: RatingPolicy | None = None) -> RatingBook:
        """Inverse of `to_json`."""
        data = json.loads(text)
        return RatingBook(
            policy=policy or RatingPolicy(),
            ratings={
                pool: {p: Rating(**r) for p, r in table.items()}
                for pool, table in data["ratings"].items()
            },
            history={
                pool: {p: [HistoryPoint(**h) for h in points] for p, points in table.items()}
                for pool, table in data["history"].items()
            },
            games=dict(data["games"]),
        )


@cache
def _model() -> PlackettLuce:
    """The openskill model, imported on first use (the CLI starts without it)."""
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=MU, sigma=SIGMA)


def rate_teams(teams: Sequence[Sequence[Rating]], scores: Sequence[float]) -> list[list[Rating]]:
    """The ratings after one game between `teams` with `scores` (higher is better)."""
    if len(teams) != len(scores) or len(teams) < 2:
        raise ValueError("a rated game needs two or more teams and one score per team")
    model_teams = [[_model().rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams]
    result = _model().rate(model_teams, scores=[float(s) for s in scores])
    return [
        [
            Rating(float(new.mu), float(new.sigma), old.games + 1)
            for old, new in zip(team, new_team, strict=True)
        ]
        for team, new_team in zip(teams, result, strict=True)
    ]
