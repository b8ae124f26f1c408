"""Account notices: a bounded stream of bytes per account, read after an id, woken live.

The service (`kafana.service.notices`) decides what a notice says and encodes it; the store
keeps bytes and knows no game. Every bound is the store's:

- an account keeps its newest `max_len` notices, for `ttl_ms` after its last one; older ones
  are trimmed every `trim_every(max_len)` notices (a trim costs Redis about as much for many
  notices as for one), so it holds fewer than `max_len + trim_every(max_len)`;
- ids are `"<ms>-<n>"` and only increase, so a reader resumes after the last id it saw;
- a notice may carry a `Mark` so the same news told by several server processes is kept once:
  per mark field (a table's seat) the store remembers a holder and a rank, and drops a notice
  whose holder is the same and whose rank is not higher; an account keeps `max_marks` marks,
  the first set going first (a mark told again keeps its place);
- a table's seats taken with an API key are bound (`bind`) holder -> account, a few per table.

The store is `kafana.store.redis_notices.RedisNotices`.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from kafana.store.base import Rider

MAX_LEN = 256
"""Notices an account keeps (a client away for longer resumes from the oldest kept)."""
TTL_MS = 24 * 3_600_000
"""How long an account's notices are kept after its last one."""
MAX_MARKS = 1024
"""Dedupe marks an account keeps (two per table it plays at, at most, while it plays)."""
MAX_BOUND = 64
"""Bindings one table keeps (a seat taken, left and taken again makes one more)."""


def trim_every(max_len: int) -> int:
    """Notices between two trims of an account's stream (`lua/notice.lua` computes the same).

    >>> trim_every(256), trim_every(5)
    (32, 1)
    """
    return max(1, max_len // 8)


NONE = "0-0"
"""The id before every notice."""
_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
ID_MAX = 2**64 - 1
"""Each number of a stream id (Redis: 64 bits)."""


def parse_id(text: str) -> tuple[int, int]:
    """The two numbers of a notice id; ValueError when `text` is not one.

    >>> parse_id("1733000000000-3")
    (1733000000000, 3)
    >>> parse_id("99999999999999999999-1")  # past a stream id's 64 bits: Redis refuses it
    Traceback (most recent call last):
    ...
    ValueError: '99999999999999999999-1' is not a notice id (<ms>-<n>, as AccountNotice.id gives)
    >>> parse_id("\u0661\u0667-\u0663")  # digits, but not ASCII ones
    Traceback (most recent call last):
    ...
    ValueError: '١٧-٣' is not a notice id (<ms>-<n>, as AccountNotice.id gives)
    """
    found = _ID.fullmatch(text)
    if found is None or max(int(found[1]), int(found[2])) > ID_MAX:
        raise ValueError(f"{text!r} is not a notice id (<ms>-<n>, as AccountNotice.id gives)")
    return int(found[1]), int(found[2])


def now_ms() -> int:
    """Unix time in milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Notice:
    """One stored notice: its id and its bytes."""

    id: str
    data: bytes


@dataclass(frozen=True)
class Page:
    """What a read found: the account's count of notices so far (for `wait`), its newest id,
    and the notices after the id asked for, oldest first."""

    count: int
    last: str
    notices: list[Notice] = field(default_factory=list)


@dataclass(slots=True)
class Mark:
    """Keeps one notice per news: dropped when `field` has this `holder` at `rank` or higher.

    Slotted, not frozen (a move's notice makes one; a frozen dataclass sets each field through
    `object.__setattr__`), as `Publish` and `Rider`: do not change one once made."""

    field: str
    holder: str
    rank: int


@dataclass(slots=True)
class Publish:
    """One notice to append (`NoticeStore.publish_many`): for `account`, its bytes, its mark,
    and `keep_table`: a table whose bindings to keep alive in the same write ("": none)."""

    account: str
    data: bytes
    mark: Mark | None = None
    keep_table: str = ""


class NoticeStore(ABC):
    """Where account notices live. Safe to call from many processes at once (Redis)."""

    def __init__(
        self, *, max_len: int = MAX_LEN, ttl_ms: int = TTL_MS, max_marks: int = MAX_MARKS
    ) -> None:
        if max_len < 1 or ttl_ms < 1 or max_marks < 1:
            raise ValueError("max_len, ttl_ms and max_marks are at least 1")
        self.max_len = max_len
        self.ttl_ms = ttl_ms
        self.max_marks = max_marks

    @abstractmethod
    async def publish(
        self, account: str, data: bytes, mark: Mark | None = None, *, keep_table: str = ""
    ) -> str | None:
        """Append a notice for `account`: its id, or None when `mark` says it is a duplicate.

        `keep_table`: also keep that table's bindings for another `ttl_ms`.
        """

    async def publish_many(self, notices: Sequence[Publish]) -> list[str | None]:
        """`publish` each of `notices`, in order: their ids (None: a duplicate). A store may
        send them all in one write (Redis does); an error raises for the whole batch."""
        return [
            await self.publish(n.account, n.data, n.mark, keep_table=n.keep_table) for n in notices
        ]

    def rider(self, notice: Publish) -> Rider | None:
        """`notice` packed to ride on an append (`Append.riders`): told in that append's own
        write, only if it applied. None when this store cannot (the caller publishes it after
        the append instead); `notice.keep_table` is not kept by a rider."""
        return None

    @abstractmethod
    async def read(self, account: str, after: str, limit: int) -> Page:
        """At most `limit` notices after id `after` ("": none, only the count and last id)."""

    @abstractmethod
    async def wait(self, account: str, count: int, block_ms: int) -> int:
        """The account's count of notices once it passes `count`, or after `block_ms`.

        A wake-up may be lost (a reconnect): callers read again every `block_ms`.
        """

    @abstractmethod
    async def bind(
        self, table_id: str, holder: str, account: str, keep: Collection[str] = ()
    ) -> None:
        """Record that the seat held by `holder` at `table_id` is `account`'s. Past
        `MAX_BOUND` bindings, those of holders not in `keep` (the seats held now) go."""

    @abstractmethod
    async def bound(self, table_id: str) -> dict[str, str]:
        """Every binding of `table_id`: holder -> account."""
