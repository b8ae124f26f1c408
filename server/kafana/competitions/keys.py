"""Every Redis key of events, in one place: hosted events and a run's organiser controls.

Each event's keys carry its hash tag (a league's keys are in `league.keys`).

>>> EventKeys("open-2026").control
'{ev:open-2026}:control'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.competitions.hash_tag import TaggedKey, hash_tag

EVENT_INDEX = "{ev}:index"
"""Sorted set: hosted event id -> the time it was created (ms)."""
STARTED_INDEX = "{ev}:started"
"""Set: hosted events started and not finished (what the directors scan)."""
SCHEDULED_INDEX = "{ev}:scheduled"
"""Sorted set: hosted event id -> its scheduled start (ms); listed as started at that time."""


def rating_book(pool: str) -> str:
    """Hash: the service-wide rating book of `pool` (entrant -> JSON of its `Rating`).

    >>> rating_book("tablic/serbian-2")
    '{ev}:ratings:tablic/serbian-2'
    """
    return "{ev}:ratings:" + pool


@dataclass(frozen=True)
class EventKeys:
    """Key names of event `event`: organiser controls, and a hosted event's state."""

    event: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", hash_tag("ev", self.event, "event"))

    tag: str = field(init=False, repr=False, compare=False)
    """The hash tag: ``{ev:<event>}``."""

    control = TaggedKey("control")
    """Hash: status (running, paused, ended) and the organiser's note."""

    adjudications = TaggedKey("adjudications")
    """Hash: game id -> "<winner seat or draw> <note>" decided by an organiser."""

    meta = TaggedKey("meta")
    """Hash (hosted events): name, format, config JSON, organiser token digest, phase."""

    entrants = TaggedKey("entrants")
    """Hash (hosted events): entrant -> "<entry number> <JSON: bot, token digest, account,
    caller key>"."""

    callers = TaggedKey("callers")
    """Hash (hosted events): caller key (`a:<account>`, `p:<address>`) -> entrants it entered."""

    marks = TaggedKey("marks")
    """Hash (hosted events): `in:<entrant>` -> when it checked in (ms); `out:<entrant>` ->
    "withdrawn <note>" or "disqualified <note>"."""

    state = TaggedKey("state")
    """String (hosted events): the director's snapshot (tournament, tables, seat tokens)."""

    lease = TaggedKey("lease")
    """String with expiry (hosted events): the id of the process directing the event."""
