"""What `WatchEntry` streams follow: one poll of an event per process, however many streams.

Every stream of one event shares one poller (meta, controls and the director's snapshot, read
every `poll` seconds while a stream follows the event; the snapshot parsed only when it
changed), so 500 streams cost the store and the CPU what one does. A stream wakes at each poll
with the latest view. `Views.admit` bounds the streams of one entrant in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, field

from kafana.competitions.hosted.convert import assignments
from kafana.competitions.hosted.event import Hosted
from kafana.competitions.hosted.store import EventStore
from kafana.service.quotas import QuotaExceeded
from kafana.v1 import competitions_pb2 as pb

WATCHES_PER_ENTRY = 2
"""`WatchEntry` streams one entrant may hold open in one server process."""


@dataclass(frozen=True)
class View:
    """An event as one poll saw it."""

    meta: dict[str, str]
    status: str
    note: str
    hosted: Hosted | None
    assignments: dict[str, list[pb.Assignment]]  # entrant -> its games to play now


@dataclass
class _Shared:
    """One event's poller and the streams that follow it."""

    users: int = 0
    version: int = 0
    view: View | None = None
    error: BaseException | None = None
    text: str | None = None
    hosted: Hosted | None = None
    assignments: dict[str, list[pb.Assignment]] = field(default_factory=dict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    task: asyncio.Task[None] | None = None


class Views:
    """The shared pollers of one process's `WatchEntry` streams."""

    def __init__(self, store: EventStore, poll: float) -> None:
        self.store = store
        self.poll = poll
        self._shared: dict[str, _Shared] = {}
        self._entries: dict[tuple[str, str], int] = {}

    @contextlib.contextmanager
    def admit(self, event_id: str, entrant: str) -> Iterator[None]:
        """Hold one of the entrant's stream places while the block runs (QuotaExceeded past
        `WATCHES_PER_ENTRY`)."""
        key = (event_id, entrant)
        held = self._entries.get(key, 0)
        if held >= WATCHES_PER_ENTRY:
            raise QuotaExceeded(
                f"entrant {entrant!r} already has {held} WatchEntry streams open here (at most"
                f" {WATCHES_PER_ENTRY}): close one first",
                1000,
                quota="watches_per_entry",
                limit=WATCHES_PER_ENTRY,
            )
        self._entries[key] = held + 1
        try:
            yield None
        finally:
            self._entries[key] -= 1
            if not self._entries[key]:
                del self._entries[key]

    async def follow(self, event_id: str) -> AsyncGenerator[View, None]:
        """The event's view at every poll (the store's error, if a poll failed)."""
        shared = self._shared.get(event_id)
        if shared is None:
            shared = self._shared[event_id] = _Shared()
            shared.task = asyncio.create_task(
                self._poll(event_id, shared), name=f"kafana-watch-{event_id}"
            )
        shared.users += 1
        seen = 0
        try:
            while True:
                async with shared.changed:
                    while shared.version == seen:
                        await shared.changed.wait()
                seen = shared.version
                if shared.error is not None:
                    raise shared.error
                assert shared.view is not None
                yield shared.view
        finally:
            shared.users -= 1
            if not shared.users:
                self._shared.pop(event_id, None)
                if shared.task is not None:
                    shared.task.cancel()

    async def _poll(self, event_id: str, shared: _Shared) -> None:
        while True:
            try:
                shared.view = await self._read(event_id, shared)
                shared.error = None
            except Exception as error:  # the streams end with it (the store is down)
                shared.error = error
            shared.version += 1
            async with shared.changed:
                shared.changed.notify_all()
            await asyncio.sleep(self.poll)

    async def _read(self, event_id: str, shared: _Shared) -> View:
        meta = await self.store.meta(event_id)
        status, note = await self.store.control(event_id)
        text = await self.store.state(event_id)
        if text != shared.text:  # parsed once per change (in a worker thread: a large
            # event's snapshot takes most of a second), not once per stream and poll
            hosted, games = await asyncio.to_thread(_parse, text) if text else (None, {})
            shared.hosted, shared.assignments, shared.text = hosted, games, text
        return View(meta, status, note, shared.hosted, shared.assignments)


def _parse(text: str) -> tuple[Hosted, dict[str, list[pb.Assignment]]]:
    """The snapshot and every entrant's games to play."""
    hosted = Hosted.loads(text)
    return hosted, assignments(hosted)
