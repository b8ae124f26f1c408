"""The `kafana.v1.CompetitionsService` service: hosted events over an `EventStore`.

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
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.competitions.control import adjudication
from kafana.competitions.hosted import event as ev
from kafana.competitions.hosted.convert import event_info, standings_of
from kafana.competitions.hosted.event import (
    ENTRY_TOKEN,
    ORGANISER_TOKEN,
    Hosted,
    check_token,
    entrants_of,
    missing,
)
from kafana.competitions.hosted.store import EventStore, now_ms
from kafana.competitions.hosted.views import View, Views
from kafana.competitions.quota import EVENTS_PER_HOUR, CreationQuota
from kafana.competitions.tournament import EventError, Status
from kafana.competitions.wire import phase_enum, status_enum
from kafana.errors import (
    AlreadyExistsError,
    AuthenticationError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from kafana.service.auth import caller_of, metadata_token
from kafana.service.errors import unary
from kafana.service.inputs import ENTRANT, check, page_token, read_page_token
from kafana.service.limits import HOUR_MS
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc, events_pb2

Context = grpc.aio.ServicerContext[Any, Any]
ControlRequest = pb.PauseEventRequest | pb.ResumeEventRequest | pb.EndEventRequest
WATCH_POLL_S = 0.25
HEARTBEAT_S = 3.0
PAGE_SIZE, MAX_PAGE_SIZE = 50, 500
ANSWERS_KEPT = 16
"""Events whose last GetEvent answer a process keeps (rebuilt when the event changes)."""
_ENTER_REFUSALS = {
    "closed": "event {e!r} has started: entries are closed",
    "taken": "event {e!r} already has an entrant named {n!r}",
    "full": "event {e!r} is full",
}


class CompetitionsServiceServicer(competitions_pb2_grpc.CompetitionsServiceServicer):
    """Create, enter, start, follow and control hosted events."""

    def __init__(self, store: EventStore, wake: Callable[[], None]) -> None:
        self.store = store
        self.wake = wake
        self.stopping = asyncio.Event()
        # events created per account (counted in the server's shared counters once started)
        self.quota = CreationQuota("events", EVENTS_PER_HOUR, HOUR_MS, "hour")
        self.views = Views(store, WATCH_POLL_S)  # one poll per watched event, for every stream
        self._answers: OrderedDict[str, tuple[tuple[Any, ...], pb.EventInfo]] = OrderedDict()
        self._building: dict[str, asyncio.Lock] = {}

    async def _meta(self, event_id: str) -> dict[str, str]:
        if not event_id or any(c in event_id for c in "{} \n"):
            raise InvalidInputError(f"event id {event_id[:64]!r} is not valid")
        meta = await self.store.meta(event_id)
        if not meta.get("config"):
            raise missing(event_id)
        return meta

    async def _hosted(self, event_id: str) -> Hosted | None:
        text = await self.store.state(event_id)
        return Hosted.loads(text) if text else None

    async def _info(self, event_id: str, *, records: bool = False) -> pb.EventInfo:
        """The event as everyone may see it: built once per change of what it is made of (in a
        worker thread: a 1,024-entrant Swiss takes seconds) and kept for the next callers."""
        meta = await self._meta(event_id)
        raw = await self.store.entrants(event_id)
        control = await self.store.control(event_id)
        marks = await self.store.marks(event_id)
        text = await self.store.state(event_id)
        digest = hashlib.blake2b((text or "").encode(), digest_size=16).digest()
        now = now_ms()
        taking = not ev.registration(meta, marks).refusal(now)  # changes with the time
        made_of = (records, meta, raw, control, marks, digest, taking)
        lock = self._building.setdefault(event_id, asyncio.Lock())
        async with lock:  # callers at once wait for one build, then share it
            kept = self._answers.get(event_id)
            if kept is not None and kept[0] == made_of:
                self._answers.move_to_end(event_id)
                return kept[1]

            def build() -> pb.EventInfo:
                hosted = Hosted.loads(text) if text else None
                entrants = entrants_of(raw)
                return event_info(
                    event_id, meta, entrants, hosted, control, records=records, marks=marks,
                    now=now,
                )  # fmt: skip

            info = await asyncio.to_thread(build)
            self._answers[event_id] = (made_of, info)
            self._answers.move_to_end(event_id)
            while len(self._answers) > ANSWERS_KEPT:
                gone, _ = self._answers.popitem(last=False)
                self._building.pop(gone, None)
        return info

    async def _organiser(self, event_id: str, context: Context) -> dict[str, str]:
        """The event's meta if the caller is its organiser (its token) or an operator."""
        meta = await self._meta(event_id)
        if caller_of(context).role == "operator":  # operators act on any event
            return meta
        token = metadata_token(context.invocation_metadata(), ORGANISER_TOKEN)
        check_token(token, meta["organiser"], "organiser")
        return meta

    @unary
    async def CreateEvent(
        self, request: pb.CreateEventRequest, context: Context
    ) -> pb.CreateEventResponse:
        """A new event, open for entries; the organiser token is in this answer only."""
        config = ev.event_config(request)
        token = ev.new_token()
        event_id = "ev-" + secrets.token_hex(6)
        caller = caller_of(context)
        owner = caller.key if caller.account else ""
        now = now_ms()
        meta = ev.meta_fields(
            config,
            token,
            request.parallel,
            now,
            request.entries_per_account,
            owner,
            request.start_at_ms,
            request.check_in_ms,
            request.max_entrants,
            request.entries_open_at_ms,
            request.entries_close_at_ms,
        )
        await self.quota.admit(caller, now)
        if not await self.store.create(event_id, meta):
            raise AlreadyExistsError(f"event id {event_id!r} exists: try again", resource="event")
        if request.start_at_ms:  # the directors start it at its time
            await self.store.list_started(event_id)
        info = await self._info(event_id)
        return pb.CreateEventResponse(event_id=event_id, organiser_token=token, event=info)

    @unary
    async def EnterEvent(
        self, request: pb.EnterEventRequest, context: Context
    ) -> pb.EnterEventResponse:
        """Enter an open event: a built-in bot by name, or a person / remote bot (a token)."""
        meta = await self._meta(request.event_id)
        name = check(ENTRANT, request.name)
        token = "" if request.bot else ev.new_token()
        caller = caller_of(context)
        account = caller.account or ""
        # a caller with a key enters as many entrants as the organiser allows (1 unless told);
        # without a key (`--auth open`, one machine's callers) entries are not counted
        charged = caller.key if account else ""
        game = ev.config_from_meta(meta).game
        value = ev.entrant_value(request.bot, token, game, account, charged)
        most = ev.entries_per_account(meta)
        if meta.get("phase") == "open":  # a started event is refused below, as it was
            window = ev.registration(meta, await self.store.marks(request.event_id))
            refusal = window.refusal(now_ms())
            if refusal:
                raise EventError(f"event {request.event_id!r} takes no entries now: {refusal}")
        answer = await self.store.enter(request.event_id, name, value, charged, most)
        if answer == "missing":
            raise missing(request.event_id)
        if answer == "many":
            raise PermissionDeniedError(
                f"event {request.event_id!r} takes {most} entrant(s) per account and yours has"
                f" entered {most}: withdraw one (WithdrawEntry) or ask the organiser to allow"
                " more (entries_per_account)",
                quota="entries_per_account",
                limit=most,
            )
        if answer != "ok":
            refused = AlreadyExistsError if answer == "taken" else EventError
            raise refused(_ENTER_REFUSALS[answer].format(e=request.event_id, n=name))
        return pb.EnterEventResponse(event_id=request.event_id, name=name, entry_token=token)

    @unary
    async def WithdrawEntry(
        self, request: pb.WithdrawEntryRequest, context: Context
    ) -> pb.EventInfo:
        """Take an entrant out of an open event: by its entry token, the account that entered
        it, or the organiser token."""
        meta = await self._meta(request.event_id)
        entrants = {e.name: e for e in entrants_of(await self.store.entrants(request.event_id))}
        entrant = entrants.get(request.name)
        metadata = context.invocation_metadata()
        organiser = metadata_token(metadata, ORGANISER_TOKEN)
        if organiser:
            check_token(organiser, meta["organiser"], "organiser")
        elif entrant is None:
            raise NotFoundError(
                f"event {request.event_id!r} has no entrant named {request.name!r}",
                resource="entrant",
            )
        elif not (entrant.account and entrant.account == caller_of(context).account):
            check_token(metadata_token(metadata, ENTRY_TOKEN), entrant.token, "entry")
        caller = entrant.caller if entrant is not None else ""
        answer = await self.store.withdraw(request.event_id, request.name, caller)
        if answer == "missing":
            raise missing(request.event_id)
        if answer == "closed":
            raise EventError(f"event {request.event_id!r} has started: entries are closed")
        if answer == "gone":
            raise NotFoundError(
                f"event {request.event_id!r} has no entrant named {request.name!r}",
                resource="entrant",
            )
        return await self._info(request.event_id)

    @unary
    async def CheckIn(self, request: pb.CheckInRequest, context: Context) -> pb.EventInfo:
        """An entrant confirms it is present (its entry token, or the account that entered
        it), while the event is open and its check-in window is."""
        meta = await self._meta(request.event_id)
        entrants = {e.name: e for e in entrants_of(await self.store.entrants(request.event_id))}
        entrant = entrants.get(request.name)
        if entrant is None:
            raise NotFoundError(
                f"event {request.event_id!r} has no entrant named {request.name!r}",
                resource="entrant",
            )
        if not (entrant.account and entrant.account == caller_of(context).account):
            token = metadata_token(context.invocation_metadata(), ENTRY_TOKEN)
            check_token(token, entrant.token, "entry")
        if meta.get("phase") != "open":
            raise EventError(f"event {request.event_id!r} has started: check-in is closed")
        opens = ev.check_in_opens(meta)
        if now_ms() < opens:
            raise EventError(
                f"check-in of event {request.event_id!r} opens at {opens} (Unix ms),"
                f" {ev.check_in_window(meta) // 1000} s before its start"
            )
        await self.store.mark(request.event_id, f"in:{request.name}", str(now_ms()))
        return await self._info(request.event_id)

    @unary
    async def StartEvent(self, request: pb.StartEventRequest, context: Context) -> pb.EventInfo:
        """Close entries; the service directs the event from now on. A Swiss with more rounds
        than its entrants can play without a repeat is refused. With check-in, the entrants
        who did not check in are dropped."""
        meta = await self._organiser(request.event_id, context)
        entrants = entrants_of(await self.store.entrants(request.event_id))
        entrants = ev.present(meta, entrants, await self.store.marks(request.event_id))
        if meta.get("phase") == "open" and ev.check_in_window(meta) and len(entrants) < 2:
            raise EventError(
                f"event {request.event_id!r} needs two entrants or more checked in to start,"
                f" not {len(entrants)}"
            )
        if meta.get("phase") == "open" and len(entrants) >= 2:  # else refused below
            ev.with_entrants(ev.config_from_meta(meta), [e.name for e in entrants])
        answer = await self.store.start(request.event_id)
        if answer == "closed":
            raise EventError(f"event {request.event_id!r} has already started")
        if answer == "few":
            raise EventError(f"event {request.event_id!r} needs two entrants or more to start")
        if answer == "missing":
            raise missing(request.event_id)
        self.wake()
        return await self._info(request.event_id)

    @unary
    async def SetRegistration(
        self, request: pb.SetRegistrationRequest, context: Context
    ) -> pb.EventInfo:
        """Open or close an open event's registration now (organiser token, or an operator)."""
        meta = await self._organiser(request.event_id, context)
        if meta.get("phase") != "open":
            raise EventError(
                f"event {request.event_id!r} is {meta.get('phase')}: registration closed at"
                " its start"
            )
        state = "open" if request.open else "closed"
        await self.store.mark(request.event_id, ev.REGISTRATION, f"{state} {now_ms()}")
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
        found = await self.store.newest(size + 1, before)
        out = pb.ListEventsResponse()
        for event_id, _created in found[:size]:
            meta = await self.store.meta(event_id)
            if not meta.get("config"):
                continue
            entrants = entrants_of(await self.store.entrants(event_id))
            control = await self.store.control(event_id)
            marks = await self.store.marks(event_id)
            out.events.append(
                event_info(event_id, meta, entrants, None, control, marks=marks, now=now_ms())
            )
        if len(found) > size:
            last, created = found[size - 1]
            out.next_page_token = page_token((created, last), "events")
        return out

    async def _control(
        self,
        request: ControlRequest,
        context: Context,
        status: Status,
        allowed: tuple[Status, ...],
    ) -> pb.EventInfo:
        meta = await self._organiser(request.event_id, context)
        phase = meta.get("phase")
        if phase == "open" and status is Status.ENDED:
            await self.store.set_control(request.event_id, status.value, request.note)
            await self.store.finish(request.event_id)  # nothing was played
            return await self._info(request.event_id)
        if phase != "started":
            raise EventError(f"event {request.event_id!r} is {phase}, not running")
        current, _ = await self.store.control(request.event_id)
        now = Status(current) if current else Status.RUNNING
        if now not in allowed:
            raise EventError(f"event {request.event_id!r} is {now.value}")
        await self.store.set_control(request.event_id, status.value, request.note)
        return await self._info(request.event_id)

    @unary
    async def PauseEvent(self, request: pb.PauseEventRequest, context: Context) -> pb.EventInfo:
        """No new game starts until resumed (games running finish)."""
        allowed = (Status.RUNNING, Status.PAUSED)
        return await self._control(request, context, Status.PAUSED, allowed)

    @unary
    async def ResumeEvent(self, request: pb.ResumeEventRequest, context: Context) -> pb.EventInfo:
        """Games start again."""
        return await self._control(request, context, Status.RUNNING, (Status.PAUSED,))

    @unary
    async def EndEvent(self, request: pb.EndEventRequest, context: Context) -> pb.EventInfo:
        """End now: running games stop, undecided ones are recorded as not played."""
        allowed = (Status.RUNNING, Status.PAUSED)
        return await self._control(request, context, Status.ENDED, allowed)

    @unary
    async def AdjudicateGame(
        self, request: pb.AdjudicateGameRequest, context: Context
    ) -> pb.EventInfo:
        """Decide a game handed out and not decided yet (its table is closed)."""
        meta = await self._organiser(request.event_id, context)
        if meta.get("phase") != "started":
            raise EventError(f"event {request.event_id!r} is {meta.get('phase')}, not running")
        hosted = await self._hosted(request.event_id)
        t = hosted.tournament if hosted else None
        if t is None or not any(g.game_id == request.game_id for r in t.rounds for g in r):
            raise NotFoundError(
                f"no game {request.game_id!r} in event {request.event_id!r}", resource="game"
            )
        if request.game_id in t.results:
            raise EventError(f"game {request.game_id!r} already has a result")
        winner = request.winner if request.HasField("winner") else None
        sides = len(t.game(request.game_id).sides)
        if winner is not None and winner >= sides:
            raise InvalidInputError(f"winner side {winner}: 0 to {sides - 1} (or none for a draw)")
        value = adjudication(winner, request.note)
        await self.store.adjudicate(request.event_id, request.game_id, value)
        return await self._info(request.event_id)

    @unary
    async def RemoveEntrant(
        self, request: pb.RemoveEntrantRequest, context: Context
    ) -> pb.EventInfo:
        """Take an entrant out of a started event: disqualified (organiser or operator) or
        withdrawn (also by the entrant); the director forfeits its games still to come."""
        meta = await self._meta(request.event_id)
        entrants = {e.name: e for e in entrants_of(await self.store.entrants(request.event_id))}
        entrant = entrants.get(request.name)
        if entrant is None:
            raise NotFoundError(
                f"event {request.event_id!r} has no entrant named {request.name!r}",
                resource="entrant",
            )
        metadata = context.invocation_metadata()
        own = (entrant.account and entrant.account == caller_of(context).account) or (
            entrant.token and ev.digest(metadata_token(metadata, ENTRY_TOKEN)) == entrant.token
        )
        if request.disqualify or not own:
            await self._organiser(request.event_id, context)
        if meta.get("phase") != "started":
            raise EventError(
                f"event {request.event_id!r} is {meta.get('phase')}: only a started event's"
                " entrants are removed (WithdrawEntry takes one out before the start)"
            )
        gone = ev.removed(await self.store.marks(request.event_id)).get(request.name)
        if gone is not None:
            raise EventError(f"entrant {request.name!r} is already {gone[0]}")
        state = "disqualified" if request.disqualify else "withdrawn"
        note = " ".join(request.note.split())[:200]
        await self.store.mark(request.event_id, f"out:{request.name}", f"{state} {note}".strip())
        return await self._info(request.event_id)

    @unary
    async def WatchEntry(  # type: ignore[override]  # streams with context.write
        self, request: pb.WatchEntryRequest, context: Context
    ) -> None:
        """An entrant's games (with seat tokens) as their tables are created; ends with the
        event."""
        await self._meta(request.event_id)
        token = metadata_token(context.invocation_metadata(), ENTRY_TOKEN)
        entrants = entrants_of(await self.store.entrants(request.event_id))
        me = next((e for e in entrants if e.token and ev.digest(token) == e.token), None)
        if me is None:
            raise AuthenticationError(f"wrong or missing entry token ({ENTRY_TOKEN} metadata)")
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
