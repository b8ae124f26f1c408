"""Which seats of a table have been seen: calls and streams that carry their seat token.

Kept in the store's shared counters (`Counters.hold`), so every server process sees every
other's sightings. Per table one small set (`seen:<table id>`) with, per seat, two members:
`s<seat>` once it was ever seen (the no-show check) and `<seat>`, held until the grace plus two
throttle periods after its last sighting (the disconnect check), longer by what the one who
marks it vouches for (a built-in bot's director: as long as another takes over when it dies).
Only tables whose clock checks presence are written, and a process writes a seat at most once
per `THROTTLE_MS` unless what it vouches for changes; what it remembers for the throttle is
bounded (`MAX_REMEMBERED`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafana.store.counters import Counters
from kafana.v1 import rules_pb2

THROTTLE_MS = 1_000
"""At most one store write per seat per process per this many milliseconds."""
EVER_MS = 24 * 3_600_000
"""How long an `s<seat>` (ever seen) member is kept: longer than any table lives unfinished."""
MAX_REMEMBERED = 20_000
"""Sightings remembered for the throttle; older ones are dropped when there are more."""


def checks_presence(clock: rules_pb2.ClockSpec) -> bool:
    """Whether a table with this clock watches its seats' presence."""
    return bool(clock.disconnect_grace_millis or clock.no_show_millis)


def _key(table_id: str) -> str:
    return f"seen:{table_id}"


@dataclass(frozen=True)
class Seen:
    """The seats of one table seen at some time: ever, and within the grace."""

    ever: frozenset[int]
    recent: frozenset[int]


class Presence:
    """Marks and reads sightings of seats on the shared counters."""

    def __init__(self, counters: Counters) -> None:
        self.counters = counters
        # (table, seat) -> ms vouched for: one per built-in seat this process plays now
        self._vouched: dict[tuple[str, int], int] = {}
        # (table, seat) -> (last write ms, what it vouched for)
        self._written: dict[tuple[str, int], tuple[int, int]] = {}
        self.writes = 0

    async def mark(
        self,
        table_id: str,
        seat: int,
        seats: int,
        clock: rules_pb2.ClockSpec,
        now_ms: int,
    ) -> None:
        """Seat `seat` of `table_id` was seen now: present for its grace, longer by what this
        process vouches for it (throttled; nothing when nothing checks it)."""
        if not checks_presence(clock):
            return
        slot = (table_id, seat)
        vouch_ms = self._vouched.get(slot, 0)
        last = self._written.get(slot)
        if last is not None and now_ms - last[0] < THROTTLE_MS and vouch_ms == last[1]:
            return
        self._written[slot] = (now_ms, vouch_ms)
        if len(self._written) > MAX_REMEMBERED:
            self._forget(now_ms)
        key, places = _key(table_id), 2 * seats
        if last is None:  # first sighting by this process: the no-show member
            await self.counters.hold(key, f"s{seat}", places, now_ms + EVER_MS, now_ms)
            self.writes += 1
        if clock.disconnect_grace_millis:
            until = now_ms + clock.disconnect_grace_millis + 2 * THROTTLE_MS + vouch_ms
            await self.counters.hold(key, str(seat), places, until, now_ms)
            self.writes += 1

    def vouch(self, table_id: str, seat: int, ms: int) -> None:
        """From the seat's next sighting on, hold it present `ms` longer than its grace (0:
        no longer; the next sighting writes the plain grace)."""
        if ms:
            self._vouched[(table_id, seat)] = ms
        else:
            self._vouched.pop((table_id, seat), None)

    def _forget(self, now_ms: int) -> None:
        fresh = {k: t for k, t in self._written.items() if now_ms - t[0] < THROTTLE_MS}
        self._written = fresh if len(fresh) <= MAX_REMEMBERED else {}

    async def seen(self, table_id: str, now_ms: int) -> Seen:
        """The seats of `table_id` ever seen, and seen within their grace."""
        ever: set[int] = set()
        recent: set[int] = set()
        for member in await self.counters.holders(_key(table_id), now_ms):
            if member.startswith("s"):
                ever.add(int(member[1:]))
            else:
                recent.add(int(member))
        return Seen(frozenset(ever), frozenset(recent))
