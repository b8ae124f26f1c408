"""Tournaments hosted by the service (`kafana.v1.CompetitionsService`), from the SDK.

Example (inside an `async def`)::

    from kafana_client import AsyncClient
    from kafana_client.tournaments import Tournaments, play_entry

    async with AsyncClient.connect("localhost:50051") as client:
        events = Tournaments(client)
        made = await events.create("friday", "swiss", target=51, move_ms=5000)
        await events.enter(made.event_id, "greedy-1", bot="greedy")   # played by the server
        me = await events.enter(made.event_id, "ana")                 # a person or remote bot
        await events.start(made.event_id, made.organiser_token)
        await play_entry(client, made.event_id, me.token, make_bot)   # every game of ana's

Names stand for the API's enums: a format "swiss" is `EVENT_FORMAT_SWISS`, a preset
"wild_jack" `TABLIC_PRESET_WILD_JACK`, a game "tac" `GAME_TAC`, an action "forfeit_hand"
`FAULT_ACTION_FORFEIT_HAND` (`enum_value`). The organiser token travels as the
`kafana-organiser-token` call metadata, the entry token as `kafana-entry-token`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from kafana.tasks import cancel_and_wait
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc, rules_pb2

from kafana_client.aio import AsyncClient, AsyncSeat, token_metadata
from kafana_client.paging import every, first

log = logging.getLogger(__name__)
ORGANISER_TOKEN = "kafana-organiser-token"
"""The metadata key of an event's organiser token (CreateEvent hands it out)."""
ENTRY_TOKEN = "kafana-entry-token"
"""The metadata key of an entrant's entry token (EnterEvent hands it out)."""


def enum_value(enum: Any, prefix: str, name: str) -> Any:
    """The value of enum `prefix` + NAME for a lower-case `name` ("": 0, unspecified);
    ValueError naming the choices.

    >>> enum_value(pb.EventFormat, "EVENT_FORMAT_", "round_robin") == pb.EVENT_FORMAT_ROUND_ROBIN
    True
    >>> enum_value(rules_pb2.TablicPreset, "TABLIC_PRESET_", "")
    0
    """
    if not name:
        return 0
    key = prefix + name.upper()
    names: list[str] = list(enum.keys())
    if key not in names:
        known = [k.removeprefix(prefix).lower() for k in names if not k.endswith("UNSPECIFIED")]
        raise ValueError(
            f"unknown {prefix.rstrip('_').lower()} {name!r}: choose {', '.join(known)}"
        )
    return enum.Value(key)


def enum_name(enum: Any, prefix: str, value: int) -> str:
    """The lower-case name of an enum value ("" for 0, unspecified).

    >>> enum_name(pb.EventStatus, "EVENT_STATUS_", pb.EVENT_STATUS_PAUSED)
    'paused'
    """
    if not value:
        return ""
    name: str = enum.Name(value)
    return name.removeprefix(prefix).lower()


@dataclass(frozen=True)
class CreatedEvent:
    """A new event: its id, the secret organiser token, and how it looks."""

    event_id: str
    organiser_token: str
    info: pb.EventInfo


@dataclass(frozen=True)
class Entry:
    """An entrant: its event, name and secret entry token ("" for a built-in bot)."""

    event_id: str
    name: str
    token: str


class Tournaments:
    """The Competitions service over an `AsyncClient`'s connection."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client
        self._stub: Any = competitions_pb2_grpc.CompetitionsServiceStub(client.channel)

    async def _call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        return await self.client._call(method, request, timeout, stub=self._stub)

    async def _event(
        self, method: str, request: Any, *, organiser_token: str = "", entry_token: str = ""
    ) -> pb.EventInfo:
        """A call that answers the event, with the tokens given (each "" for none)."""
        metadata = token_metadata(ORGANISER_TOKEN, organiser_token) + token_metadata(
            ENTRY_TOKEN, entry_token
        )
        info: pb.EventInfo = await self.client._call(
            method, request, None, stub=self._stub, metadata=metadata
        )
        return info

    async def create(
        self,
        name: str,
        format: str = "swiss",
        *,
        rounds: int = 0,
        boards: int = 0,
        hands_per_board: int = 0,
        preset: str = "",
        target: int = 0,
        seats_per_game: int = 0,
        partnerships: bool = False,
        game: str = "",
        seed: int | None = None,
        chosen_seed: bool = False,
        move_ms: int = 0,
        on_timeout: str = "",
        disconnect_grace_ms: int = 0,
        on_disconnect: str = "",
        timeouts_to_forfeit: int = 0,
        illegal_limit: int = 0,
        no_show_ms: int = 0,
        parallel: int = 0,
        start_at_ms: int = 0,
        check_in_ms: int = 0,
        policy: bool | None = None,
        entries_per_account: int = 0,
        max_entrants: int = 0,
        duration_ms: int = 0,
        entries_open_at_ms: int = 0,
        entries_close_at_ms: int = 0,
        rules: rules_pb2.RulesSpec | None = None,
        clock: rules_pb2.ClockSpec | None = None,
    ) -> CreatedEvent:
        """Create an event (open for entries). Keep the organiser token: it is shown once.

        A `seed` (deals predictable from it) is refused unless `chosen_seed` is set. The fault
        policy is sent when any of its fields is set (or `policy` is True: `move_ms` 0 is then
        no clock); else the server's defaults apply (a clock and a timeouts limit).
        `start_at_ms`: the event starts by itself then; `check_in_ms`: entrants must `check_in`
        in that window before the start or are dropped. `duration_ms`: an arena's length;
        `entries_open_at_ms` / `entries_close_at_ms`: the registration window (0: from now,
        until the start).

        `rules`: every game's rules as a table's `RulesSpec` (every switch; `convert.rules_spec`
        builds one), instead of `game`, `preset`, `target`, `seats_per_game` and
        `partnerships`; `clock`: every game's clock as a table's `ClockSpec`, instead of the
        fault policy's fields (the server refuses both at once)."""
        action = pb.FaultAction
        fields = dict(
            move_ms=move_ms,
            on_timeout=enum_value(action, "FAULT_ACTION_", on_timeout),
            disconnect_grace_ms=disconnect_grace_ms,
            on_disconnect=enum_value(action, "FAULT_ACTION_", on_disconnect),
            timeouts_to_forfeit=timeouts_to_forfeit,
            illegal_limit=illegal_limit,
            no_show_ms=no_show_ms,
        )
        send = policy if policy is not None else any(fields.values())
        spec = pb.FaultPolicySpec(**fields) if send else None
        request = pb.CreateEventRequest(
            name=name,
            format=enum_value(pb.EventFormat, "EVENT_FORMAT_", format),
            rounds=rounds,
            boards=boards,
            hands_per_board=hands_per_board,
            preset=enum_value(rules_pb2.TablicPreset, "TABLIC_PRESET_", preset),
            target=target,
            seats_per_game=seats_per_game,
            partnerships=partnerships,
            game=enum_value(rules_pb2.Game, "GAME_", game),
            policy=spec,
            seed=seed,
            chosen_seed=chosen_seed,
            parallel=parallel,
            start_at_ms=start_at_ms,
            check_in_ms=check_in_ms,
            entries_per_account=entries_per_account,
            max_entrants=max_entrants,
            duration_ms=duration_ms,
            entries_open_at_ms=entries_open_at_ms,
            entries_close_at_ms=entries_close_at_ms,
            rules=rules,
            clock=clock,
        )
        answer = await self._call("CreateEvent", request)
        return CreatedEvent(answer.event_id, answer.organiser_token, answer.event)

    async def enter(self, event_id: str, name: str, *, bot: str = "") -> Entry:
        """Enter `name`: with `bot` (a registered bot) the server plays it; else you do."""
        request = pb.EnterEventRequest(event_id=event_id, name=name, bot=bot)
        answer = await self._call("EnterEvent", request)
        return Entry(answer.event_id, answer.name, answer.entry_token)

    async def check_in(self, event_id: str, name: str, entry_token: str = "") -> pb.EventInfo:
        """Confirm entrant `name` is present (its entry token, or the key that entered it)."""
        request = pb.CheckInRequest(event_id=event_id, name=name)
        return await self._event("CheckIn", request, entry_token=entry_token)

    async def withdraw(
        self, event_id: str, name: str, *, entry_token: str = "", organiser_token: str = ""
    ) -> pb.EventInfo:
        """Take entrant `name` out of an open event (its entry token, the key that entered
        it, or the organiser token)."""
        request = pb.WithdrawEntryRequest(event_id=event_id, name=name)
        return await self._event(
            "WithdrawEntry", request, organiser_token=organiser_token, entry_token=entry_token
        )

    async def remove(
        self,
        event_id: str,
        name: str,
        organiser_token: str = "",
        *,
        disqualify: bool = True,
        note: str = "",
        entry_token: str = "",
    ) -> pb.EventInfo:
        """Take an entrant out of a started event: disqualified (organiser token, or an
        operator's key) or withdrawn (also its own `entry_token`); its later games are
        forfeited."""
        request = pb.RemoveEntrantRequest(
            event_id=event_id, name=name, disqualify=disqualify, note=note
        )
        return await self._event(
            "RemoveEntrant", request, organiser_token=organiser_token, entry_token=entry_token
        )

    async def set_registration(
        self, event_id: str, open: bool, organiser_token: str = ""
    ) -> pb.EventInfo:
        """Open (within the window) or close an open event's registration now; entries made
        stay (the organiser token, or an operator's key)."""
        request = pb.SetRegistrationRequest(event_id=event_id, open=open)
        return await self._event("SetRegistration", request, organiser_token=organiser_token)

    async def start(self, event_id: str, organiser_token: str) -> pb.EventInfo:
        """Close entries and start the event."""
        request = pb.StartEventRequest(event_id=event_id)
        return await self._event("StartEvent", request, organiser_token=organiser_token)

    async def get(self, event_id: str, *, records: bool = False) -> pb.EventInfo:
        """The event; with `records`, the fair records of the games whose seed is revealed."""
        request = pb.GetEventRequest(event_id=event_id, records=records)
        info: pb.EventInfo = await self._call("GetEvent", request)
        return info

    async def list_page(
        self, page_size: int = 50, page_token: str = ""
    ) -> tuple[list[pb.EventInfo], str]:
        """One page of events, newest first, and the token of the next ("": the last page)."""
        request = pb.ListEventsRequest(page_size=page_size, page_token=page_token)
        answer = await self._call("ListEvents", request)
        return list(answer.events), str(answer.next_page_token)

    async def list(self, limit: int = 50) -> list[pb.EventInfo]:
        """Up to `limit` events, newest first (as many pages as it takes)."""
        return await first(every(lambda token: self.list_page(min(limit, 500), token)), limit)

    async def pause(self, event_id: str, organiser_token: str, note: str = "") -> pb.EventInfo:
        """No new game starts until `resume`."""
        request = pb.PauseEventRequest(event_id=event_id, note=note)
        return await self._event("PauseEvent", request, organiser_token=organiser_token)

    async def resume(self, event_id: str, organiser_token: str, note: str = "") -> pb.EventInfo:
        """Games start again."""
        request = pb.ResumeEventRequest(event_id=event_id, note=note)
        return await self._event("ResumeEvent", request, organiser_token=organiser_token)

    async def end(self, event_id: str, organiser_token: str, note: str = "") -> pb.EventInfo:
        """End now: running games stop, undecided ones are not played."""
        request = pb.EndEventRequest(event_id=event_id, note=note)
        return await self._event("EndEvent", request, organiser_token=organiser_token)

    async def adjudicate(
        self,
        event_id: str,
        organiser_token: str,
        game_id: str,
        winner: int | None,
        note: str = "",
    ) -> pb.EventInfo:
        """Decide a game: `winner` is the winning seat, None for a draw."""
        request = pb.AdjudicateGameRequest(
            event_id=event_id, game_id=game_id, winner=winner, note=note
        )
        return await self._event("AdjudicateGame", request, organiser_token=organiser_token)

    async def watch_entry(self, event_id: str, entry_token: str) -> AsyncIterator[pb.EntryUpdate]:
        """Your games (table, seat, seat token) as they are created, until the event is over.

        A dropped stream is reopened (an assignment may then come again: key on `game_id`).
        The server's heartbeats (every few seconds while idle) are not yielded.
        """
        metadata = token_metadata(ENTRY_TOKEN, entry_token)

        def open_call(failures: int) -> Any:
            return self._stub.WatchEntry(pb.WatchEntryRequest(event_id=event_id), metadata=metadata)

        items = self.client._reopened("WatchEntry", open_call, reopen_at_end=False, paced=False)
        async with aclosing(items):
            async for update in items:
                if update.HasField("heartbeat"):  # alive, nothing to tell
                    continue
                yield update
                if update.event_over:
                    return


SeatPlayer = Callable[[AsyncSeat, pb.Assignment], Coroutine[Any, Any, object]]


class LeftEvent(Exception):
    """Raised by a game's player to stop playing the entry (a person left): `play_entry` stops
    following the event and returns, with no error logged."""


def _report(game_id: str, left: asyncio.Future[None]) -> Callable[[asyncio.Task[object]], None]:
    """A done-callback that logs a game task's error with its traceback (the bot's author
    sees it; the seat is left to the server's fault policy); `LeftEvent` sets `left`."""

    def done(task: asyncio.Task[object]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if isinstance(error, LeftEvent):
            if not left.done():
                left.set_result(None)
        elif error is not None:
            log.error(
                "game %s: the bot failed; its seat is left to the event's fault policy",
                game_id,
                exc_info=error,
            )

    return done


async def play_entry(
    client: AsyncClient,
    event_id: str,
    entry_token: str,
    play: SeatPlayer,
    *,
    on_update: Callable[[pb.EntryUpdate], None] | None = None,
) -> pb.EntryUpdate:
    """Play every game of an entry with `play(seat, assignment)` (each game in its own task,
    as they come) until the event is over; returns the last update (final standings).

    A game whose `play` raises is logged at once with its traceback (logger
    `kafana_client.tournaments`; without logging configured it goes to stderr) and is not
    retried: its seat stops calling, so the server sees a disconnect and applies the event's
    fault policy. The other games go on. A game whose `play` raises `LeftEvent` ends the
    whole entry here: the last update is returned at once, the other games are cancelled."""
    tasks: dict[str, asyncio.Task[object]] = {}
    last = pb.EntryUpdate()
    left: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def follow() -> None:
        nonlocal last
        async for update in Tournaments(client).watch_entry(event_id, entry_token):
            last = update
            if on_update is not None:
                on_update(update)
            a = update.assignment
            if a.table_id and a.game_id not in tasks:
                seat = AsyncSeat(client, a.table_id, a.seat, a.seat_token, "")
                tasks[a.game_id] = task = asyncio.create_task(play(seat, a))
                task.add_done_callback(_report(a.game_id, left))

    following = asyncio.create_task(follow())
    try:
        await asyncio.wait({following, left}, return_when=asyncio.FIRST_COMPLETED)
        if following.done():
            following.result()  # the stream's error, if any
    finally:
        await cancel_and_wait([following])
        left.cancel()
        for task in tasks.values():
            if not task.done():
                task.cancel()
        for task in tasks.values():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
    return last
