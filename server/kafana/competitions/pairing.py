"""Pairings: round robin (circle method) and Swiss (no repeats, seat balance, byes).

>>> round_robin(["a", "b", "c", "d"])[0]
[('a', 'd'), ('b', 'c')]
>>> swiss(["a", "b", "c", "d"], played={frozenset("ab")}, balance={}, byes=set())
([('a', 'c'), ('b', 'd')], None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Pair = tuple[str, str]  # (seat 0, seat 1)


def round_robin(entrants: Sequence[str]) -> list[list[Pair]]:
    """Every round of a single round robin; an odd field gives each entrant one bye.

    Seat 0 alternates, so each entrant sits first in about half of its games. A bye shows
    as a pair with "" (the entrant is left out of that round's list).
    """
    players: list[str] = list(entrants)
    if len(players) % 2:
        players.append("")
    n = len(players)
    rounds: list[list[Pair]] = []
    for _ in range(n - 1):
        pairs: list[Pair] = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if "" in (a, b):
                continue
            pairs.append((a, b))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    return _balance(rounds)


def _balance(rounds: list[list[Pair]]) -> list[list[Pair]]:
    """Swap seats greedily so every entrant's first-seat count stays as even as it can."""
    first: dict[str, int] = {}
    out: list[list[Pair]] = []
    for pairs in rounds:
        seated: list[Pair] = []
        for a, b in pairs:
            if first.get(b, 0) < first.get(a, 0):
                a, b = b, a
            first[a] = first.get(a, 0) + 1
            seated.append((a, b))
        out.append(seated)
    return out


def swiss(
    ranked: Sequence[str],
    *,
    played: set[frozenset[str]],
    balance: Mapping[str, int],
    byes: set[str],
) -> tuple[list[Pair], str | None]:
    """One Swiss round: pairs (top of the ranking first) and the entrant with the bye.

    `ranked` is the current ranking (best first); `balance` is each entrant's games in seat 0
    minus games in seat 1. Nobody meets an opponent twice; the bye goes to the lowest-ranked
    entrant who has not had one; the entrant with the lower balance gets seat 0, and two
    entrants who both need the same seat (balance 2 or more the same way) are kept apart
    when any other pairing exists. Raises ValueError when no pairing without repeats exists.
    """
    order = list(ranked)
    candidates: list[str | None] = [None]
    if len(order) % 2:
        candidates = [p for p in reversed(order) if p not in byes] or list(reversed(order))
    for strict in (True, False):
        for bye in candidates:
            rest = [p for p in order if p != bye]
            pairs = _pair(rest, played, balance if strict else {})
            if pairs is not None:
                return [_seat(a, b, balance) for a, b in pairs], bye
    raise ValueError("no Swiss pairing without a repeat is left")


def _clash(a: str, b: str, balance: Mapping[str, int]) -> bool:
    x, y = balance.get(a, 0), balance.get(b, 0)
    return (x >= 2 and y >= 2) or (x <= -2 and y <= -2)


def _pair(
    players: list[str], played: set[frozenset[str]], balance: Mapping[str, int]
) -> list[Pair] | None:
    if not players:
        return []
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if frozenset((top, other)) in played or _clash(top, other, balance):
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], played, balance)
        if tail is not None:
            return [(top, other), *tail]
    return None


def _seat(a: str, b: str, balance: Mapping[str, int]) -> Pair:
    return (b, a) if balance.get(b, 0) < balance.get(a, 0) else (a, b)
