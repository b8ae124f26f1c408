"""Account notices: a bounded stream of bytes per account, read after an id, woken live.

The service (`kafana.service.notices`) decides what a notice says and encodes it; the store
keeps bytes and knows no game. Every bound is the store's:

- an account keeps its newest `max_len` notices (older ones are trimmed as new ones come), for
  `ttl_ms` after its last one;
- ids are `"<ms>-<n>"` and only increase, so a reader resumes after the last id it saw;
- a notice may carry a `Mark` so the same news told by several server processes is kept once:
  per mark field (a table's seat) the store remembers a holder and a rank, and drops a notice
  whose holder is the same and whose rank is not higher; an account keeps `max_marks` marks,
  the oldest going first;
- a table's seats taken with an API key are bound (`bind`) holder -> account, a few per table.

`MemoryNotices` is the in-process one (bounded in accounts and tables too); the Redis one is
`kafana.store.redis_notices`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Collection
from dataclasses import dataclass, field

MAX_LEN = 256
"""Notices an account keeps (a client away for longer resumes from the oldest kept)."""
TTL_MS = 24 * 3_600_000
"""How long an account's notices are kept after its last one."""
MAX_MARKS = 1024
"""Dedupe marks an account keeps (two per table it plays at, at most, while it plays)."""
MAX_ACCOUNTS = 10_000
"""Accounts the memory store keeps notices of (the least recently used go first)."""
MAX_TABLES = 10_000
"""Tables the memory store keeps seat bindings of (the least recently used go first)."""
MAX_BOUND = 64
"""Bindings one table keeps (a seat taken, left and taken again makes one more)."""
NONE = "0-0"
"""The id before every notice."""
_ID = re.compile(r"(\d{1,20})-(\d{1,20})")


def parse_id(text: str) -> tuple[int, int]:
    """The two numbers of a notice id; ValueError when `text` is not one.

    >>> parse_id("1733000000000-3")
    (1733000000000, 3)
    """
    found = _ID.fullmatch(text)
    if found is None:
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


@dataclass(frozen=True, slots=True)
class Mark:
    """Keeps one notice per news: dropped when `field` has this `holder` at `rank` or higher."""

    field: str
    holder: str
    rank: int


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


@dataclass
class _Account:
    notices: deque[Notice]
    expires_ms: int = 0
    count: int = 0
    last: tuple[int, int] = (0, 0)
    marks: OrderedDict[str, tuple[str, int]] = field(default_factory=OrderedDict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryNotices(NoticeStore):
    """Notices in this process only (the memory table store's companion)."""

    def __init__(
        self,
        *,
        max_len: int = MAX_LEN,
        ttl_ms: int = TTL_MS,
        max_marks: int = MAX_MARKS,
        max_accounts: int = MAX_ACCOUNTS,
        max_tables: int = MAX_TABLES,
    ) -> None:
        super().__init__(max_len=max_len, ttl_ms=ttl_ms, max_marks=max_marks)
        self.max_accounts = max_accounts
        self.max_tables = max_tables
        self._accounts: OrderedDict[str, _Account] = OrderedDict()
        self._tables: OrderedDict[str, tuple[int, dict[str, str]]] = OrderedDict()

    def _account(self, name: str, create: bool) -> _Account | None:
        now = now_ms()
        found = self._accounts.get(name)
        if found is not None and found.expires_ms <= now:
            del self._accounts[name]
            found.changed.set()
            found = None
        if found is None and create:
            found = self._accounts[name] = _Account(deque(maxlen=self.max_len))
            while len(self._accounts) > self.max_accounts:
                _name, gone = self._accounts.popitem(last=False)
                gone.changed.set()
        if found is not None:
            self._accounts.move_to_end(name)
        return found

    def _duplicate(self, account: _Account, mark: Mark) -> bool:
        old = account.marks.get(mark.field)
        if old is not None and old[0] == mark.holder and old[1] >= mark.rank:
            return True
        account.marks[mark.field] = (mark.holder, mark.rank)
        account.marks.move_to_end(mark.field)
        while len(account.marks) > self.max_marks:
            account.marks.popitem(last=False)
        return False

    async def publish(
        self, account: str, data: bytes, mark: Mark | None = None, *, keep_table: str = ""
    ) -> str | None:
        """See `NoticeStore.publish`."""
        found = self._account(account, create=True)
        assert found is not None
        if mark is not None and self._duplicate(found, mark):
            return None
        now = now_ms()
        ms, n = found.last
        found.last = (now, 0) if now > ms else (ms, n + 1)
        notice = Notice(f"{found.last[0]}-{found.last[1]}", data)
        found.notices.append(notice)
        found.count += 1
        found.expires_ms = now + self.ttl_ms
        if keep_table and keep_table in self._tables:
            self._tables[keep_table] = (now + self.ttl_ms, self._tables[keep_table][1])
        found.changed.set()
        found.changed = asyncio.Event()
        return notice.id

    async def read(self, account: str, after: str, limit: int) -> Page:
        """See `NoticeStore.read`."""
        found = self._account(account, create=False)
        if found is None or not found.notices:
            return Page(found.count if found is not None else 0, NONE)
        last = found.notices[-1].id
        if not after:
            return Page(found.count, last)
        start = parse_id(after)
        later = [n for n in found.notices if parse_id(n.id) > start]
        return Page(found.count, last, later[:limit])

    async def wait(self, account: str, count: int, block_ms: int) -> int:
        """See `NoticeStore.wait`."""
        found = self._account(account, create=True)
        assert found is not None
        if found.count <= count and block_ms > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(found.changed.wait(), block_ms / 1000)
        return found.count

    async def bind(
        self, table_id: str, holder: str, account: str, keep: Collection[str] = ()
    ) -> None:
        """See `NoticeStore.bind`."""
        _expires, holders = self._tables.pop(table_id, (0, {}))
        holders[holder] = account
        if len(holders) > MAX_BOUND:
            holders = {h: a for h, a in holders.items() if h in keep or h == holder}
        self._tables[table_id] = (now_ms() + self.ttl_ms, holders)
        while len(self._tables) > self.max_tables:
            self._tables.popitem(last=False)

    async def bound(self, table_id: str) -> dict[str, str]:
        """See `NoticeStore.bound`."""
        found = self._tables.get(table_id)
        if found is None or found[0] <= now_ms():
            self._tables.pop(table_id, None)
            return {}
        self._tables.move_to_end(table_id)
        return dict(found[1])
