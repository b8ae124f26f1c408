"""Leagues in this process's memory (the in-memory table store's leagues): one process only.

Each method runs without awaiting in between, so on the one event loop it is atomic, as the
Redis scripts are. A settled match, and the histories and match lists of its players, are
dropped `retention_ms` after it was settled (the last one), as Redis expires them; a league
nobody used for its retention (`keep`) is dropped whole.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from kafana.competitions.league.store import (
    IDLE,
    PAIRED,
    SETTLED,
    WAITING,
    LeagueStore,
    Settlement,
    Waiting,
    now_ms,
)

Board = dict[str, float]


@dataclass
class _League:
    meta: dict[str, str]
    season: int = 1
    since: dict[str, int] = field(default_factory=dict)
    mu: dict[str, float] = field(default_factory=dict)
    made: int = 0
    settled: int = 0
    games: int = 0
    active: dict[str, int] = field(default_factory=dict)
    matches: dict[int, dict[str, str]] = field(default_factory=dict)
    expires: dict[int, int] = field(default_factory=dict)
    due: dict[int, int] = field(default_factory=dict)
    lease: tuple[str, int] = ("", 0)
    ratings: dict[int, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    boards: dict[int, Board] = field(default_factory=lambda: defaultdict(dict))
    history: dict[tuple[int, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    recent: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    kept: dict[tuple[int, str], int] = field(default_factory=dict)  # history, recent: until
    until: int = 0  # the league's own retention (0: not set yet)

    def lists(self, season: int, player: str) -> tuple[list[str], list[int]]:
        """The player's history and match list, dropped once their retention passed."""
        key = (season, player)
        until = self.kept.get(key)
        if until is not None and until <= now_ms():
            for held in (self.history, self.recent, self.kept):
                held.pop(key, None)
        return self.history.get(key, []), self.recent.get(key, [])


def _ranked(board: Board) -> list[tuple[str, float]]:
    """Best first; ties by name, reversed (as Redis's ZREVRANGE)."""
    return sorted(board.items(), key=lambda item: (item[1], item[0]), reverse=True)


class MemoryLeagues(LeagueStore):
    """Every league of this process."""

    def __init__(self) -> None:
        self._leagues: dict[str, _League] = {}

    def _live(self, league: str) -> _League | None:
        """The league, unless its retention passed (then it is dropped, as Redis expires it)."""
        found = self._leagues.get(league)
        if found is not None and found.until and found.until <= now_ms():
            del self._leagues[league]
            return None
        return found

    def _get(self, league: str) -> _League:
        found = self._live(league)
        if found is None:
            found = self._leagues[league] = _League({})  # reads of a missing league: empty
            del self._leagues[league]
        return found

    async def create(self, league: str, fields: dict[str, str]) -> bool:
        if self._live(league) is not None:
            return False
        self._leagues[league] = _League(dict(fields))
        return True

    async def meta(self, league: str) -> dict[str, str]:
        found = self._live(league)
        if found is None:
            return {}
        counts = {"season": str(found.season), "made": str(found.made)}
        return {**found.meta, **counts, "settled": str(found.settled)}

    async def leagues(self) -> list[str]:
        return sorted(name for name in list(self._leagues) if self._live(name) is not None)

    async def new_season(self, league: str) -> int:
        found = self._get(league)
        found.season += 1
        return found.season

    async def keep(self, league: str, season: int, retention_ms: int) -> None:
        found = self._live(league)
        if found is not None:
            found.until = now_ms() + retention_ms

    async def forget(self, league: str) -> None:
        self._live(league)  # gone already once its retention passed

    async def join(self, league: str, player: str, mu: float, now: int) -> tuple[str, int]:
        found = self._get(league)
        if player in found.active:
            return PAIRED, found.active[player]
        found.since.setdefault(player, now)
        found.mu[player] = mu
        return WAITING, 0

    async def leave(self, league: str, player: str) -> bool:
        found = self._get(league)
        found.mu.pop(player, None)
        return found.since.pop(player, None) is not None

    async def status(self, league: str, player: str) -> tuple[str, int]:
        found = self._get(league)
        if player in found.active:
            return PAIRED, found.active[player]
        return (WAITING, 0) if player in found.since else (IDLE, 0)

    async def waiting(self, league: str) -> int:
        return len(self._get(league).since)

    async def oldest(self, league: str, limit: int) -> list[Waiting]:
        found = self._get(league)
        order = sorted(found.since.items(), key=lambda item: (item[1], item[0]))[:limit]
        return [Waiting(p, since, found.mu.get(p, 0.0)) for p, since in order]

    async def claim(self, league: str, players: list[str], fields: dict[str, str], due: int) -> int:
        found = self._get(league)
        if any(p not in found.since or p in found.active for p in players):
            return 0
        found.made += 1
        number = found.made
        for p in players:
            del found.since[p]
            found.mu.pop(p, None)
            found.active[p] = number
        found.matches[number] = dict(fields)
        found.due[number] = due
        return number

    async def pair_lease(self, league: str, owner: str, ttl_ms: int) -> bool:
        found = self._get(league)
        holder, until = found.lease
        now = now_ms()
        if holder and holder != owner and until > now:
            return False
        found.lease = (owner, now + ttl_ms)
        return True

    async def match(self, league: str, number: int) -> dict[str, str]:
        found = self._get(league)
        expires = found.expires.get(number)
        if expires is not None and expires <= now_ms():
            found.matches.pop(number, None)
            found.expires.pop(number, None)
        return dict(found.matches.get(number, {}))

    async def set_fields(self, league: str, number: int, fields: dict[str, str]) -> None:
        match = self._get(league).matches.get(number)
        if match is not None and match.get("state") != SETTLED:
            match.update(fields)

    async def set_once(self, league: str, number: int, name: str, value: str) -> str:
        match = self._get(league).matches.get(number)
        if match is None:
            return ""
        return match.setdefault(name, value)

    async def due(self, league: str, now: int, limit: int, lease_ms: int) -> list[int]:
        found = self._get(league)
        ready = sorted((at, n) for n, at in found.due.items() if at <= now)[:limit]
        for _, number in ready:
            found.due[number] = now + lease_ms
        return [n for _, n in ready]

    async def reschedule(self, league: str, number: int, at: int) -> None:
        found = self._get(league)
        if number in found.due:
            found.due[number] = at

    async def settle(self, league: str, number: int, settlement: Settlement) -> str:
        found = self._get(league)
        match = found.matches.get(number)
        if match is None or match.get("state") == SETTLED:
            return "done"
        season = settlement.season
        ratings = found.ratings[season]
        if any(ratings.get(w.player) != w.read for w in settlement.ratings):
            return "retry"
        if settlement.ratings:
            found.games += 1
        for write in settlement.ratings:
            ratings[write.player] = write.rating
            found.boards[season][write.player] = write.board
            point = f'{{"game": {found.games}, {write.point}'
            found.history[season, write.player].append(point)
        match.update(settlement.fields)
        match["state"] = SETTLED
        for player in settlement.players:
            found.kept[season, player] = now_ms() + settlement.retention_ms
            found.recent[season, player].insert(0, number)
            del found.recent[season, player][200:]
            if found.active.get(player) == number:
                del found.active[player]
        found.due.pop(number, None)
        found.settled += 1
        found.expires[number] = now_ms() + settlement.retention_ms
        return SETTLED

    async def ratings(self, league: str, season: int, players: list[str]) -> list[str | None]:
        ratings = self._get(league).ratings.get(season, {})
        return [ratings.get(p) for p in players]

    async def page(
        self, league: str, season: int, start: int, size: int
    ) -> list[tuple[str, float]]:
        return _ranked(self._get(league).boards.get(season, {}))[start : start + size]

    async def board_size(self, league: str, season: int) -> int:
        return len(self._get(league).boards.get(season, {}))

    async def rank(self, league: str, season: int, player: str) -> int:
        board = self._get(league).boards.get(season, {})
        if player not in board:
            return 0
        return 1 + [p for p, _ in _ranked(board)].index(player)

    async def history(self, league: str, season: int, player: str, limit: int) -> list[str]:
        return list(self._get(league).lists(season, player)[0][-limit:])

    async def recent(self, league: str, season: int, player: str, limit: int) -> list[int]:
        return list(self._get(league).lists(season, player)[1][:limit])
