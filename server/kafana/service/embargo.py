"""Embargoes: while a label is embargoed, its tables' seeds, decks and records stay unserved.

An event whose games share deals (a duplicate board: every pairing is dealt the same decks)
tags their tables with one label (`TableConfig.embargo`) and embargoes it until the last of
them is over: a finished game's record, or a spectator's view of any of them, would show the
cards still to come at the others. The flag is a place held in the store's shared counters
(`Counters.hold`), so every server process on one store sees it, and it lapses by itself
after its time to live (an organiser that dies does not keep records hidden for ever).

With `store` a table store (`tests/competitions/test_embargo.py` runs this on Redis):

    embargoes = Embargoes(store.counters)
    await embargoes.embargo("cup/board-1", 60_000)
    await embargoes.active("cup/board-1"), await embargoes.active("cup/board-2")  # True, False
    await embargoes.release("cup/board-1")
    await embargoes.active("cup/board-1")  # False
"""

from __future__ import annotations

from collections.abc import Callable

from kafana.errors import InvalidInputError, KafanaError
from kafana.service.inputs import check_name
from kafana.store.counters import Counters

MAX_LABEL = 200
"""Characters in an embargo label."""
MAX_TTL_MS = 30 * 24 * 3_600_000
"""The longest embargo (30 days); an organiser renews a longer one."""
HOLDER = "embargo"


class EmbargoedError(KafanaError):
    """A table's seed, decks or record asked for while its label is embargoed.

    FAILED_PRECONDITION, reason EMBARGOED: the call succeeds once the embargo is released."""

    reason = "EMBARGOED"


def check_label(label: str) -> str:
    """`label` if it is a valid embargo label (1-200 printable characters)."""
    if not label:
        raise InvalidInputError("an embargo label is not empty")
    check_name(label, "an embargo label", MAX_LABEL)
    return label


def _key(label: str) -> str:
    return f"embargo:{label}"


class Embargoes:
    """Embargo flags by label, in the counters every process on one store shares."""

    def __init__(self, counters: Counters, clock: Callable[[], int]) -> None:
        self.counters = counters
        self.now = clock

    async def embargo(self, label: str, ttl_ms: int) -> None:
        """Embargo `label` for `ttl_ms` from now (again: from now on, for `ttl_ms`)."""
        check_label(label)
        if not 1 <= ttl_ms <= MAX_TTL_MS:
            raise InvalidInputError(f"an embargo lasts 1 ms to {MAX_TTL_MS} ms, not {ttl_ms}")
        now = self.now()
        await self.counters.hold(_key(label), HOLDER, 1, now + ttl_ms, now)

    async def release(self, label: str) -> None:
        """Lift the embargo of `label` (nothing if there is none)."""
        await self.counters.release(_key(check_label(label)), HOLDER)

    async def active(self, label: str) -> bool:
        """Whether `label` is embargoed now ("": never)."""
        if not label:
            return False
        return bool(await self.counters.holders(_key(label), self.now()))

    async def check(self, label: str, table_id: str, what: str) -> None:
        """Raise EmbargoedError when `label` is embargoed: `what` of the table is not served."""
        if await self.active(label):
            raise EmbargoedError(
                f"table {table_id} is under embargo {label!r}: its {what} is not served until "
                "every game dealt the same cards is over"
            )
