"""Every Redis key of events, in one place: hosted events and a run's organiser controls.

Each event's keys carry its hash tag (a league's keys are in `league.keys`).

>>> EventKeys("open-2026").control
'{ev:open-2026}:control'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.competitions.hash_tag import hash_tag

EVENT_INDEX = "{ev}:index"
"""Sorted set: hosted event id -> the time it was created (ms)."""


@dataclass(frozen=True)
class EventKeys:
    """Key names of event `event`: organiser controls, and a hosted event's state."""

    event: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", hash_tag("ev", self.event, "event"))

    tag: str = field(init=False, repr=False, compare=False)
    """The hash tag: ``{ev:<event>}``."""

    @property
    def control(self) -> str:
        """Hash: status (running, paused, ended) and the organiser's note."""
        return f"{self.tag}:control"

    @property
    def adjudications(self) -> str:
        """Hash: game id -> "<winner seat or draw> <note>" decided by an organiser."""
        return f"{self.tag}:adjudications"

    @property
    def meta(self) -> str:
        """Hash (hosted events): name, format, config JSON, organiser token digest, phase."""
        return f"{self.tag}:meta"

    @property
    def entrants(self) -> str:
        """Hash (hosted events): entrant -> "<entry number> <JSON: bot, token digest>"."""
        return f"{self.tag}:entrants"

    @property
    def state(self) -> str:
        """String (hosted events): the director's snapshot (tournament, tables, seat tokens)."""
        return f"{self.tag}:state"

    @property
    def lease(self) -> str:
        """String with expiry (hosted events): the id of the process directing the event."""
        return f"{self.tag}:lease"
