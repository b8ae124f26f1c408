"""Organiser controls across processes: pause, resume, end and adjudicate an event via Redis.

An organiser writes (`kafana tournament pause EVENT --redis URL`, or these methods); the
runner of the event reads them between games and while a round is running (`apply`).
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from kafana.competitions.keys import EventKeys
from kafana.competitions.model import GameResult
from kafana.competitions.tournament import Status, Tournament


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class EventControl:
    """The control keys of one event (status, adjudications)."""

    def __init__(self, redis: Redis, event: str) -> None:
        self.redis = redis
        self.keys = EventKeys(event)

    async def _status(self, status: Status, note: str) -> None:
        await self.redis.hset(self.keys.control, mapping={"status": status.value, "note": note})

    async def pause(self, note: str = "") -> None:
        """No new game starts until `resume`."""
        await self._status(Status.PAUSED, note)

    async def resume(self, note: str = "") -> None:
        """Start games again."""
        await self._status(Status.RUNNING, note)

    async def end(self, note: str = "") -> None:
        """End the event: running games are stopped, undecided ones recorded as not played."""
        await self._status(Status.ENDED, note)

    async def adjudicate(self, game_id: str, winner: int | None, note: str = "") -> None:
        """Decide a game (winner seat, None for a draw); a running game is stopped."""
        value = f"{'draw' if winner is None else winner} {note}".rstrip()
        await self.redis.hset(self.keys.adjudications, game_id, value)

    async def status(self) -> tuple[Status, str]:
        """The status an organiser set (running when none) and its note."""
        raw: dict[Any, Any] = await self.redis.hgetall(self.keys.control)
        data = {_text(k): _text(v) for k, v in raw.items()}
        return Status(data.get("status", Status.RUNNING.value)), data.get("note", "")

    async def apply(self, tournament: Tournament) -> list[GameResult]:
        """Bring `tournament` in line with the controls; returns the results decided here."""
        raw: dict[Any, Any] = await self.redis.hgetall(self.keys.adjudications)
        status, note = await self.status()
        return apply_controls(
            tournament, status, note, {_text(k): _text(v) for k, v in raw.items()}
        )


def apply_controls(
    tournament: Tournament, status: Status, note: str, adjudications: dict[str, str]
) -> list[GameResult]:
    """Bring `tournament` in line with an organiser's status and decisions (game -> "<winner
    seat or draw> <note>"); returns the results decided here."""
    decided: list[GameResult] = []
    for game, value in sorted(adjudications.items()):
        if game in tournament.results or not _handed_out(tournament, game):
            continue
        who, _, why = value.partition(" ")
        winner = None if who == "draw" else int(who)
        decided.append(tournament.adjudicate(game, winner, why))
    if tournament.status is Status.ENDED:
        return decided
    if status is Status.ENDED:
        decided += tournament.end(note)
    elif status is Status.PAUSED and tournament.status is Status.RUNNING:
        tournament.pause()
    elif status is Status.RUNNING and tournament.status is Status.PAUSED:
        tournament.resume()
    return decided


def _handed_out(tournament: Tournament, game_id: str) -> bool:
    return any(g.game_id == game_id for r in tournament.rounds for g in r)
