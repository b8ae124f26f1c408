"""Pairing the queue: groups of players whose ratings are close enough for all of them.

A player accepts a rating gap that widens with waiting (`Window`). The longest-waiting players
(a batch) are sorted by rating, and each run of `size` neighbours is a group when its spread is
within every member's window; nearest ratings are grouped first. Claiming a group is atomic in
the store (all still waiting, or nothing), so several pairers never share a player.

>>> w = [Waiting("a", 0, 10.0), Waiting("b", 0, 30.0), Waiting("c", 0, 11.0), Waiting("d", 0, 45.0)]
>>> groups(w, 2, Window(base=2.0, per_second=0.0), now=0)
[['a', 'c']]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafana.competitions.league.store import Waiting


@dataclass(frozen=True)
class Window:
    """The rating gap a player accepts after waiting: base + per_second * wait, up to max.

    >>> Window(base=1.0, per_second=0.5, max=4.0).gap(wait_ms=4000)
    3.0
    """

    base: float = 2.0
    per_second: float = 1.0
    max: float = 50.0

    def gap(self, wait_ms: float) -> float:
        """The acceptable rating difference after `wait_ms` in the queue."""
        return min(self.max, self.base + self.per_second * max(0.0, wait_ms) / 1000)


REMATCH_PATIENCE_MS = 60_000
"""Players who met in each of their last `limit` matches meet again once all have waited this
long (nobody else came)."""


def rematch(
    chunk: Sequence[Waiting], recent: Mapping[str, Sequence[frozenset[str]]], limit: int
) -> bool:
    """Whether a member of `chunk` met another member in each of its last `limit` matches.

    >>> a, b = Waiting("a", 0, 1.0), Waiting("b", 0, 1.0)
    >>> rematch([a, b], {"a": [frozenset("b"), frozenset("b")]}, 2), rematch([a, b], {}, 2)
    (True, False)
    """
    names = {w.player for w in chunk}
    for w in chunk:
        last = list(recent.get(w.player, ()))[:limit]
        if (
            limit
            and len(last) == limit
            and any(all(o in g for g in last) for o in names - {w.player})
        ):
            return True
    return False


def groups(
    waiting: Sequence[Waiting],
    size: int,
    window: Window,
    now: int,
    recent: Mapping[str, Sequence[frozenset[str]]] | None = None,
    limit: int = 0,
) -> list[list[str]]:
    """Groups of `size` players (by rating) that every member's window accepts, and that
    would not play a match past the rematch `limit` (`recent`: each player's opponents of its
    last matches, newest first) unless every member has waited `REMATCH_PATIENCE_MS`."""
    order = sorted(waiting, key=lambda w: (w.mu, w.since, w.player))
    out: list[list[str]] = []
    at = 0
    while at + size <= len(order):
        chunk = order[at : at + size]
        spread = chunk[-1].mu - chunk[0].mu
        again = recent is not None and rematch(chunk, recent, limit)
        if again and all(now - w.since >= REMATCH_PATIENCE_MS for w in chunk):
            again = False
        if not again and all(spread <= window.gap(now - w.since) for w in chunk):
            out.append([w.player for w in chunk])
            at += size
        else:
            at += 1
    return out
