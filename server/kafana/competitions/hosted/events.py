"""The hosted events' domain layer: every operation on an event, with typed answers.

`Events` checks who may do what (tokens, accounts, operators), turns the store's answers
("missing", "closed", "taken", "full", "many", "few", "gone") into typed results or
`KafanaError`s naming what was wrong, and returns values (`StoredEvent`, `Created`,
`Entered`, `EventPage`); the gRPC servicer (`hosted/servicer.py`) only reads requests and
metadata and converts these values to messages. Reading an event is one store call
(`EventStore.record`); a page of the listing is one more (`EventStore.records`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from kafana.competitions.control import adjudication
from kafana.competitions.hosted import event as ev
from kafana.competitions.hosted.event import Entrant, Hosted, check_token, entrants_of, missing
from kafana.competitions.hosted.store import EventStore, StoredEvent, now_ms
from kafana.competitions.quota import EVENTS_PER_HOUR, CreationQuota
from kafana.competitions.tournament import EventError, Status
from kafana.errors import (
    AlreadyExistsError,
    AuthenticationError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from kafana.service.auth import Caller
from kafana.service.inputs import ENTRANT, EVENT_ID, GAME_ID, NOTE, check
from kafana.service.limits import HOUR_MS
from kafana.v1 import competitions_pb2 as pb

_ENTER_REFUSALS = {
    "closed": "event {e!r} has started: entries are closed",
    "taken": "event {e!r} already has an entrant named {n!r}",
    "full": "event {e!r} is full",
}


@dataclass(frozen=True)
class Created:
    """A new event: its id and the organiser token (shown once)."""

    event_id: str
    organiser_token: str


@dataclass(frozen=True)
class Entered:
    """A new entrant: its name and entry token ("" for a built-in bot)."""

    event_id: str
    name: str
    entry_token: str


@dataclass(frozen=True)
class EventPage:
    """A page of events, newest first, and the cursor of the next page (None: the last)."""

    events: list[StoredEvent]
    next: tuple[int, str] | None


def hosted_of(stored: StoredEvent) -> Hosted | None:
    """The director's tournament of a started event (None before its start)."""
    return Hosted.loads(stored.state) if stored.state else None


def entrant_of(stored: StoredEvent, name: str) -> Entrant:
    """Entrant `name` of the event; NotFoundError if it has none of that name."""
    found = {e.name: e for e in entrants_of(stored.entrants)}.get(name)
    if found is None:
        raise NotFoundError(
            f"event {stored.event_id!r} has no entrant named {name!r}", resource="entrant"
        )
    return found


def _own(entrant: Entrant, caller: Caller, entry_token: str) -> bool:
    """Whether the caller is the entrant: the account that entered it, or its entry token."""
    if entrant.account and entrant.account == caller.account:
        return True
    return bool(entrant.token and entry_token and ev.digest(entry_token) == entrant.token)


class Events:
    """Hosted events on `store`; `wake` tells this process's director an event started."""

    def __init__(self, store: EventStore, wake: Callable[[], None]) -> None:
        self.store = store
        self.wake = wake
        # events created per account (counted in the server's shared counters once started)
        self.quota = CreationQuota("events", EVENTS_PER_HOUR, HOUR_MS, "hour")

    async def load(self, event_id: str, *, state: bool = True) -> StoredEvent:
        """The event (with the director's snapshot unless `state` is False); NotFoundError
        for an unknown one, InvalidInputError for an id that cannot be one."""
        check(EVENT_ID, event_id)
        stored = await self.store.record(event_id, state=state)
        if not stored.meta.get("config"):
            raise missing(event_id)
        return stored

    async def organised(
        self, event_id: str, caller: Caller, organiser_token: str, *, state: bool = False
    ) -> StoredEvent:
        """The event, if the caller is its organiser (its token) or an operator."""
        stored = await self.load(event_id, state=state)
        if caller.role != "operator":  # operators act on any event
            check_token(organiser_token, stored.meta["organiser"], "organiser")
        return stored

    async def create(self, request: pb.CreateEventRequest, caller: Caller) -> Created:
        """A new event, open for entries (the request checked: InvalidInputError naming the
        field)."""
        config = ev.event_config(request)
        token = ev.new_token()
        event_id = "ev-" + secrets.token_hex(6)
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
        if request.start_at_ms:  # the directors start it at its time (listed then)
            await self.store.schedule(event_id, request.start_at_ms)
        return Created(event_id, token)

    async def enter(self, event_id: str, name: str, bot: str, caller: Caller) -> Entered:
        """Enter an open event, inside its registration window: a built-in bot by name, or a
        person / remote bot (a fresh entry token)."""
        stored = await self.load(event_id, state=False)
        meta = stored.meta
        name = check(ENTRANT, name)
        token = "" if bot else ev.new_token()
        account = caller.account or ""
        # a caller with a key enters as many entrants as the organiser allows (1 unless told);
        # without a key (`--auth open`, one machine's callers) entries are not counted
        charged = caller.key if account else ""
        game = ev.config_from_meta(meta).game
        value = ev.entrant_value(bot, token, game, account, charged)
        most = ev.entries_per_account(meta)
        if meta.get("phase") == "open":  # a started event is refused below, as it was
            refusal = ev.registration(meta, stored.marks).refusal(now_ms())
            if refusal:
                raise EventError(f"event {event_id!r} takes no entries now: {refusal}")
        answer = await self.store.enter(event_id, name, value, charged, most)
        if answer == "missing":
            raise missing(event_id)
        if answer == "many":
            raise PermissionDeniedError(
                f"event {event_id!r} takes {most} entrant(s) per account and yours has"
                f" entered {most}: withdraw one (WithdrawEntry) or ask the organiser to allow"
                " more (entries_per_account)",
                quota="entries_per_account",
                limit=most,
            )
        if answer != "ok":
            refused = AlreadyExistsError if answer == "taken" else EventError
            raise refused(_ENTER_REFUSALS[answer].format(e=event_id, n=name))
        return Entered(event_id, name, token)

    async def withdraw(
        self, event_id: str, name: str, caller: Caller, entry_token: str, organiser_token: str
    ) -> None:
        """Take an entrant out of an open event: by its entry token, the account that entered
        it, or the organiser token."""
        check(ENTRANT, name)
        stored = await self.load(event_id, state=False)
        entrant = {e.name: e for e in entrants_of(stored.entrants)}.get(name)
        if organiser_token:
            check_token(organiser_token, stored.meta["organiser"], "organiser")
        elif entrant is None:
            entrant_of(stored, name)  # NotFoundError
        elif not (entrant.account and entrant.account == caller.account):
            check_token(entry_token, entrant.token, "entry")
        answer = await self.store.withdraw(event_id, name, entrant.caller if entrant else "")
        if answer == "missing":
            raise missing(event_id)
        if answer == "closed":
            raise EventError(f"event {event_id!r} has started: entries are closed")
        if answer == "gone":
            raise NotFoundError(
                f"event {event_id!r} has no entrant named {name!r}", resource="entrant"
            )

    async def check_in(self, event_id: str, name: str, caller: Caller, entry_token: str) -> None:
        """An entrant confirms it is present (its entry token, or the account that entered
        it), while the event is open and its check-in window is."""
        check(ENTRANT, name)
        stored = await self.load(event_id, state=False)
        entrant = entrant_of(stored, name)
        if not (entrant.account and entrant.account == caller.account):
            check_token(entry_token, entrant.token, "entry")
        meta = stored.meta
        if meta.get("phase") != "open":
            raise EventError(f"event {event_id!r} has started: check-in is closed")
        opens = ev.check_in_opens(meta)
        if now_ms() < opens:
            raise EventError(
                f"check-in of event {event_id!r} opens at {opens} (Unix ms),"
                f" {ev.check_in_window(meta) // 1000} s before its start"
            )
        await self.store.mark(event_id, f"in:{name}", str(now_ms()))

    async def start(self, event_id: str, caller: Caller, organiser_token: str) -> None:
        """Close entries; the service directs the event from now on. A Swiss with more rounds
        than its entrants can play without a repeat is refused. With check-in, the entrants
        who did not check in are dropped."""
        stored = await self.organised(event_id, caller, organiser_token)
        meta = stored.meta
        entrants = ev.present(meta, entrants_of(stored.entrants), stored.marks)
        if meta.get("phase") == "open" and ev.check_in_window(meta) and len(entrants) < 2:
            raise EventError(
                f"event {event_id!r} needs two entrants or more checked in to start,"
                f" not {len(entrants)}"
            )
        if meta.get("phase") == "open" and len(entrants) >= 2:  # else refused below
            ev.with_entrants(ev.config_from_meta(meta), [e.name for e in entrants])
        answer = await self.store.start(event_id)
        if answer == "closed":
            raise EventError(f"event {event_id!r} has already started")
        if answer == "few":
            raise EventError(f"event {event_id!r} needs two entrants or more to start")
        if answer == "missing":
            raise missing(event_id)
        self.wake()

    async def page(self, size: int, before: tuple[int, str] | None) -> EventPage:
        """Up to `size` events, newest first, after the cursor `before` (without snapshots):
        two store calls a page, whatever its size."""
        found = await self.store.newest(size + 1, before)
        stored = await self.store.records([event_id for event_id, _ in found[:size]])
        events = [s for s in stored if s.meta.get("config")]  # expired meanwhile: left out
        more = None
        if len(found) > size:
            last, created = found[size - 1]
            more = (created, last)
        return EventPage(events, more)

    async def set_registration(
        self, event_id: str, caller: Caller, organiser_token: str, open_: bool
    ) -> None:
        """Open or close an open event's registration now."""
        stored = await self.organised(event_id, caller, organiser_token)
        phase = stored.meta.get("phase")
        if phase != "open":
            raise EventError(f"event {event_id!r} is {phase}: registration closed at its start")
        state = "open" if open_ else "closed"
        await self.store.mark(event_id, ev.REGISTRATION, f"{state} {now_ms()}")

    async def control(
        self,
        event_id: str,
        caller: Caller,
        organiser_token: str,
        status: Status,
        note: str,
    ) -> None:
        """Pause, resume or end: `status` from the states that allow it (ending an open event
        finishes it with nothing played)."""
        check(NOTE, note)
        allowed = {
            Status.PAUSED: (Status.RUNNING, Status.PAUSED),
            Status.RUNNING: (Status.PAUSED,),
            Status.ENDED: (Status.RUNNING, Status.PAUSED),
        }[status]
        stored = await self.organised(event_id, caller, organiser_token)
        phase = stored.meta.get("phase")
        if phase == "open" and status is Status.ENDED:
            await self.store.set_control(event_id, status.value, note)
            await self.store.finish(event_id)  # nothing was played
            return
        if phase != "started":
            raise EventError(f"event {event_id!r} is {phase}, not running")
        current, _ = stored.control
        now = Status(current) if current else Status.RUNNING
        if now not in allowed:
            raise EventError(f"event {event_id!r} is {now.value}")
        await self.store.set_control(event_id, status.value, note)

    async def adjudicate(
        self,
        event_id: str,
        caller: Caller,
        organiser_token: str,
        game_id: str,
        winner: int | None,
        note: str,
    ) -> None:
        """Decide a game handed out and not decided yet (the director closes its table)."""
        check(GAME_ID, game_id)
        check(NOTE, note)
        stored = await self.organised(event_id, caller, organiser_token, state=True)
        if stored.meta.get("phase") != "started":
            raise EventError(f"event {event_id!r} is {stored.meta.get('phase')}, not running")
        hosted = hosted_of(stored)
        t = hosted.tournament if hosted else None
        if t is None or not any(g.game_id == game_id for r in t.rounds for g in r):
            raise NotFoundError(f"no game {game_id!r} in event {event_id!r}", resource="game")
        if game_id in t.results:
            raise EventError(f"game {game_id!r} already has a result")
        sides = len(t.game(game_id).sides)
        if winner is not None and winner >= sides:
            raise InvalidInputError(f"winner side {winner}: 0 to {sides - 1} (or none for a draw)")
        await self.store.adjudicate(event_id, game_id, adjudication(winner, note))

    async def remove(
        self,
        event_id: str,
        name: str,
        caller: Caller,
        entry_token: str,
        organiser_token: str,
        disqualify: bool,
        note: str,
    ) -> None:
        """Take an entrant out of a started event: disqualified (organiser or operator) or
        withdrawn (also by the entrant); the director forfeits its games still to come."""
        check(ENTRANT, name)
        check(NOTE, note)
        stored = await self.load(event_id, state=False)
        entrant = entrant_of(stored, name)
        if disqualify or not _own(entrant, caller, entry_token):
            await self.organised(event_id, caller, organiser_token)
        phase = stored.meta.get("phase")
        if phase != "started":
            raise EventError(
                f"event {event_id!r} is {phase}: only a started event's entrants are removed"
                " (WithdrawEntry takes one out before the start)"
            )
        gone = ev.removed(stored.marks).get(name)
        if gone is not None:
            raise EventError(f"entrant {name!r} is already {gone[0]}")
        state = "disqualified" if disqualify else "withdrawn"
        note = " ".join(note.split())
        await self.store.mark(event_id, f"out:{name}", f"{state} {note}".strip())

    async def entrant_by_token(self, event_id: str, entry_token: str) -> Entrant:
        """The entrant whose entry token this is (AuthenticationError if none)."""
        stored = await self.load(event_id, state=False)
        for e in entrants_of(stored.entrants):
            if e.token and ev.digest(entry_token) == e.token:
                return e
        raise AuthenticationError(f"wrong or missing entry token ({ev.ENTRY_TOKEN} metadata)")
