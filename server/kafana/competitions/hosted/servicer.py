"""The `kafana.v1.CompetitionsService` service: hosted events, on the `Events` domain layer.

Organiser and entry tokens travel in call metadata (`kafana-organiser-token`,
`kafana-entry-token`), never in a request body. Every refusal is a `KafanaError` mapped to its
`google.rpc.Status` by `kafana.service.errors` and changes nothing: an unknown format or bot is
INVALID_ARGUMENT, a wrong organiser or entry token TOKEN_INVALID, an unknown event NOT_FOUND, a
taken entrant name ALREADY_EXISTS, entering a started event WRONG_STATE.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.competitions.hosted import event as ev
from kafana.competitions.hosted.convert import event_info, standings_of
from kafana.competitions.hosted.event import ENTRY_TOKEN, ORGANISER_TOKEN, Hosted, entrants_of
from kafana.competitions.hosted.events import Events, hosted_of
from kafana.competitions.hosted.store import EventStore, StoredEvent, now_ms
from kafana.competitions.hosted.views import View, Views
from kafana.competitions.quota import CreationQuota
from kafana.competitions.tournament import Status
from kafana.competitions.wire import phase_enum, status_enum
from kafana.service.auth import caller_of, metadata_token
from kafana.service.errors import unary
from kafana.service.inputs import page_token, read_page_token
from kafana.service.ratelimit import charge
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc, events_pb2

Context = grpc.aio.ServicerContext[Any, Any]
ControlRequest = pb.PauseEventRequest | pb.ResumeEventRequest | pb.EndEventRequest
WATCH_POLL_S = 0.25
HEARTBEAT_S = 3.0
PAGE_SIZE, MAX_PAGE_SIZE = 50, 500
ENTRANTS_A_TOKEN = 20
"""Entrants an event read for a call costs one rate-limit token (GetEvent, ListEvents): a
1,024-entrant event cost 14 ms of server CPU a GetEvent even with its answer kept, a page of
17 such events 250-310 ms (as an ordinary call's token costs well under a millisecond)."""
SNAPSHOT_BYTES_A_TOKEN = 20_000
"""Bytes of the director's snapshot (read and hashed by every GetEvent) that cost a token."""
ANSWERS_KEPT = 32
"""GetEvent answers a process keeps, one an event and kind (with records or without: each
kept, so a caller alternating the two does not rebuild every call); rebuilt when the event
changes."""
_Kept = tuple[tuple[Any, ...], pb.EventInfo]
"""A kept answer: what it was built from, and the answer."""


class CompetitionsServiceServicer(competitions_pb2_grpc.CompetitionsServiceServicer):
    """The wire of hosted events: requests and metadata in, messages out; every decision is
    `Events`' (the domain layer)."""

    def __init__(self, store: EventStore, wake: Callable[[], None]) -> None:
        self.store = store
        self.events = Events(store, wake)
        self.stopping = asyncio.Event()
        self.views = Views(store, WATCH_POLL_S)  # one poll per watched event, for every stream
        self._answers: OrderedDict[tuple[str, bool], _Kept] = OrderedDict()
        self._building: dict[tuple[str, bool], asyncio.Lock] = {}

    @property
    def quota(self) -> CreationQuota:
        """Events created per account (`Events.quota`)."""
        return self.events.quota

    async def _info(self, event_id: str, *, records: bool = False) -> pb.EventInfo:
        """The event as everyone may see it: built once per change of what it is made of (in a
        worker thread: a 1,024-entrant Swiss takes seconds) and kept for the next callers."""
        stored = await self.events.load(event_id)
        charge(
            len(stored.entrants) / ENTRANTS_A_TOKEN
            + len(stored.state or "") / SNAPSHOT_BYTES_A_TOKEN
        )
        digest = hashlib.blake2b((stored.state or "").encode(), digest_size=16).digest()
        now = now_ms()
        taking = not ev.registration(stored.meta, stored.marks).refusal(now)  # with the time
        made_of = (stored.meta, stored.entrants, stored.control, stored.marks, digest, taking)
        key = (event_id, records)
        lock = self._building.setdefault(key, asyncio.Lock())
        async with lock:  # callers at once wait for one build, then share it
            kept = self._answers.get(key)
            if kept is not None and kept[0] == made_of:
                self._answers.move_to_end(key)
                return kept[1]

            def build() -> pb.EventInfo:
                return _event_info(stored, hosted_of(stored), records=records, now=now)

            info = await asyncio.to_thread(build)
            self._answers[key] = (made_of, info)
            self._answers.move_to_end(key)
            while len(self._answers) > ANSWERS_KEPT:
                gone, _ = self._answers.popitem(last=False)
                self._building.pop(gone, None)
        return info

    @unary
    async def CreateEvent(
        self, request: pb.CreateEventRequest, context: Context
    ) -> pb.CreateEventResponse:
        """A new event, open for entries; the organiser token is in this answer only."""
        made = await self.events.create(request, caller_of(context))
        info = await self._info(made.event_id)
        return pb.CreateEventResponse(
            event_id=made.event_id, organiser_token=made.organiser_token, event=info
        )

    @unary
    async def EnterEvent(
        self, request: pb.EnterEventRequest, context: Context
    ) -> pb.EnterEventResponse:
        """Enter an open event: a built-in bot by name, or a person / remote bot (a token)."""
        entered = await self.events.enter(
            request.event_id, request.name, request.bot, caller_of(context)
        )
        return pb.EnterEventResponse(
            event_id=entered.event_id, name=entered.name, entry_token=entered.entry_token
        )

    @unary
    async def WithdrawEntry(
        self, request: pb.WithdrawEntryRequest, context: Context
    ) -> pb.EventInfo:
        """Take an entrant out of an open event: by its entry token, the account that entered
        it, or the organiser token."""
        entry, organiser = _tokens(context)
        await self.events.withdraw(
            request.event_id, request.name, caller_of(context), entry, organiser
        )
        return await self._info(request.event_id)

    @unary
    async def CheckIn(self, request: pb.CheckInRequest, context: Context) -> pb.EventInfo:
        """An entrant confirms it is present (its entry token, or the account that entered
        it), while the event is open and its check-in window is."""
        entry, _ = _tokens(context)
        await self.events.check_in(request.event_id, request.name, caller_of(context), entry)
        return await self._info(request.event_id)

    @unary
    async def StartEvent(self, request: pb.StartEventRequest, context: Context) -> pb.EventInfo:
        """Close entries; the service directs the event from now on."""
        _, organiser = _tokens(context)
        await self.events.start(request.event_id, caller_of(context), organiser)
        return await self._info(request.event_id)

    @unary
    async def SetRegistration(
        self, request: pb.SetRegistrationRequest, context: Context
    ) -> pb.EventInfo:
        """Open or close an open event's registration now (organiser token, or an operator)."""
        _, organiser = _tokens(context)
        await self.events.set_registration(
            request.event_id, caller_of(context), organiser, request.open
        )
        return await self._info(request.event_id)

    @unary
    async def GetEvent(self, request: pb.GetEventRequest, context: Context) -> pb.EventInfo:
        """The event as everyone may see it."""
        return await self._info(request.event_id, records=request.records)

    @unary
    async def ListEvents(
        self, request: pb.ListEventsRequest, context: Context
    ) -> pb.ListEventsResponse:
        """Events, newest first (without rounds), a page at a time (AIP-158)."""
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        before = read_page_token(request.page_token, "events") if request.page_token else None
        page = await self.events.page(size, before)
        charge(sum(len(stored.entrants) for stored in page.events) / ENTRANTS_A_TOKEN)
        now = now_ms()
        out = pb.ListEventsResponse(
            events=[_event_info(stored, None, now=now) for stored in page.events]
        )
        if page.next is not None:
            out.next_page_token = page_token(page.next, "events")
        return out

    async def _control(
        self, request: ControlRequest, context: Context, status: Status
    ) -> pb.EventInfo:
        _, organiser = _tokens(context)
        await self.events.control(
            request.event_id, caller_of(context), organiser, status, request.note
        )
        return await self._info(request.event_id)

    @unary
    async def PauseEvent(self, request: pb.PauseEventRequest, context: Context) -> pb.EventInfo:
        """No new game starts until resumed (games running finish)."""
        return await self._control(request, context, Status.PAUSED)

    @unary
    async def ResumeEvent(self, request: pb.ResumeEventRequest, context: Context) -> pb.EventInfo:
        """Games start again."""
        return await self._control(request, context, Status.RUNNING)

    @unary
    async def EndEvent(self, request: pb.EndEventRequest, context: Context) -> pb.EventInfo:
        """End now: running games stop, undecided ones are recorded as not played."""
        return await self._control(request, context, Status.ENDED)

    @unary
    async def AdjudicateGame(
        self, request: pb.AdjudicateGameRequest, context: Context
    ) -> pb.EventInfo:
        """Decide a game handed out and not decided yet (its table is closed)."""
        _, organiser = _tokens(context)
        winner = request.winner if request.HasField("winner") else None
        await self.events.adjudicate(
            request.event_id, caller_of(context), organiser, request.game_id, winner, request.note
        )
        return await self._info(request.event_id)

    @unary
    async def RemoveEntrant(
        self, request: pb.RemoveEntrantRequest, context: Context
    ) -> pb.EventInfo:
        """Take an entrant out of a started event: disqualified (organiser or operator) or
        withdrawn (also by the entrant); the director forfeits its games still to come."""
        entry, organiser = _tokens(context)
        await self.events.remove(
            request.event_id, request.name, caller_of(context), entry, organiser,
            request.disqualify, request.note,
        )  # fmt: skip
        return await self._info(request.event_id)

    @unary
    async def WatchEntry(  # type: ignore[override]  # streams with context.write
        self, request: pb.WatchEntryRequest, context: Context
    ) -> None:
        """An entrant's games (with seat tokens) as their tables are created; ends with the
        event."""
        entry, _ = _tokens(context)
        me = await self.events.entrant_by_token(request.event_id, entry)
        with self.views.admit(request.event_id, me.name):
            await self._watch(request.event_id, me.name, context)

    async def _watch(self, event_id: str, name: str, context: Context) -> None:
        sent: set[str] = set()
        last: tuple[str, str, str] = ("", "", "")
        loop = asyncio.get_running_loop()
        written = loop.time()

        async def write(update: pb.EntryUpdate) -> None:
            nonlocal written
            await context.write(update)
            written = loop.time()

        seen: Hosted | None = None
        async with contextlib.aclosing(self.views.follow(event_id)) as views:
            async for view in views:
                if self.stopping.is_set() or context.done():
                    return
                idle = loop.time() - written
                fresh = view.hosted is not seen  # the entrant's games change with the snapshot
                now = await self._entry_update(view, name, sent, last, idle, write, fresh)
                if now is None:
                    return
                last, seen = now, view.hosted

    async def _entry_update(
        self,
        view: View,
        name: str,
        sent: set[str],
        last: tuple[str, str, str],
        idle: float,
        write: Callable[[pb.EntryUpdate], Awaitable[None]],
        fresh: bool = True,
    ) -> tuple[str, str, str] | None:
        """Write what changed for entrant `name` since `last` (phase, status, note): the new
        one, or None once the event is over. Its games are looked at when `fresh`."""
        meta, status, note, hosted = view.meta, view.status, view.note, view.hosted
        if hosted is not None:
            status = hosted.tournament.status.value
            for assignment in view.assignments.get(name, []) if fresh else ():
                if assignment.game_id not in sent:
                    sent.add(assignment.game_id)
                    await write(
                        pb.EntryUpdate(
                            assignment=assignment,
                            phase=phase_enum(meta["phase"]),
                            status=status_enum(status),
                        )
                    )
        now = (meta["phase"], status or "running", note)
        phase, state = phase_enum(now[0]), status_enum(now[1])
        if meta["phase"] == "finished":
            rows = standings_of(hosted.tournament) if hosted else []
            await write(
                pb.EntryUpdate(
                    phase=phase, status=state, note=note, event_over=True, standings=rows
                )
            )
            return None
        if now != last:
            await write(pb.EntryUpdate(phase=phase, status=state, note=note))
        elif idle >= HEARTBEAT_S:
            await write(pb.EntryUpdate(heartbeat=events_pb2.Heartbeat(time_ms=now_ms())))
        return now


def _tokens(context: Context) -> tuple[str, str]:
    """The call's entry token and organiser token ("" when absent)."""
    metadata = context.invocation_metadata()
    return metadata_token(metadata, ENTRY_TOKEN), metadata_token(metadata, ORGANISER_TOKEN)


def _event_info(
    stored: StoredEvent, hosted: Hosted | None, *, records: bool = False, now: int = 0
) -> pb.EventInfo:
    """An event's message from what the store keeps of it."""
    entrants = entrants_of(stored.entrants)
    return event_info(
        stored.event_id, stored.meta, entrants, hosted, stored.control, records=records,
        marks=stored.marks, now=now,
    )  # fmt: skip
