"""Organiser controls across processes: pause, resume, end and adjudicate an event.

An organiser writes them into the event store (`kafana tournament pause EVENT --redis URL`, or
these methods); whoever runs the event reads them between games and while a round is running
(`apply`). The keys are the event store's (`{ev:<event>}:control`, `:adjudications`), the same for
an event run by `kafana tournament run` and one hosted by the service.
"""

from __future__ import annotations

from typing import Protocol

from kafana.competitions.model import GameResult
from kafana.competitions.tournament import Status, Tournament


class ControlStore(Protocol):
    """Where an event's controls are kept: `hosted.store.EventStore` (in Redis or memory)."""

    async def set_control(self, event_id: str, status: str, note: str) -> None:
        """Set the event's status and the organiser's note."""

    async def control(self, event_id: str) -> tuple[str, str]:
        """The status ("" when none was set) and note."""

    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        """Record an organiser's decision of a game (`adjudication`)."""

    async def adjudications(self, event_id: str) -> dict[str, str]:
        """Game id -> decision."""


def adjudication(winner: int | None, note: str = "") -> str:
    """A decision as kept in the store: "<winner seat or draw> <note>"."""
    return f"{'draw' if winner is None else winner} {note}".rstrip()


class EventControl:
    """The controls of one event (status, adjudications) in an event store."""

    def __init__(self, store: ControlStore, event: str) -> None:
        self.store = store
        self.event = event

    async def _status(self, status: Status, note: str) -> None:
        await self.store.set_control(self.event, status.value, note)

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
        await self.store.adjudicate(self.event, game_id, adjudication(winner, note))

    async def status(self) -> tuple[Status, str]:
        """The status an organiser set (running when none) and its note."""
        status, note = await self.store.control(self.event)
        return Status(status or Status.RUNNING.value), note

    async def apply(self, tournament: Tournament) -> list[GameResult]:
        """Bring `tournament` in line with the controls; returns the results decided here."""
        status, note = await self.status()
        decisions = await self.store.adjudications(self.event)
        return apply_controls(tournament, status, note, decisions)


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
