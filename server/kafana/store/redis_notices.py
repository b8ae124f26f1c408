"""`NoticeStore` in Redis: a stream per account (`XADD`, `XTRIM MAXLEN`), one script per notice.

An account's keys share the hash tag `{<namespace>:a:<account>}` (one slot on a cluster):
`lua/notice.lua` checks the notice's mark, trims the stream to `max_len` (every `max_len // 8`
notices: see `notices.trim_every`), bumps the count and
`SPUBLISH`es it on the account's live channel, all atomically. Readers wait on that channel
through the store's `Notifier`, the one subscriber lane per Redis server that wakes table
feeds too: one blocking `XREAD` per open stream would cost a connection each (a lane is
pipelined: a command that blocks stalls every call queued behind it). A lost wake-up costs a
re-read after `block_ms`, never a notice. Table bindings live beside the table's keys
(`{t:<id>}:accounts`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from kafana.store.base import Rider, TableStore
from kafana.store.client import Command, RedisClient, Script
from kafana.store.errors import NoScriptError
from kafana.store.keys import notice_keys, seat_accounts_key
from kafana.store.notices import (
    MAX_BOUND,
    MAX_LEN,
    MAX_MARKS,
    NONE,
    TTL_MS,
    Mark,
    Notice,
    NoticeStore,
    Page,
    Publish,
)
from kafana.store.notify import Notifier
from kafana.store.redis_store import RedisStore, ttl_slack
from kafana.store.resp import Reply, bulks, pack, pack_bytes

ACCOUNTS_KEYED = 4096
"""Accounts whose encoded notice keys are kept (the least recently used go first)."""


@lru_cache(maxsize=ACCOUNTS_KEYED)
def _account_keys(namespace: str, account: str) -> tuple[str, tuple[bytes, ...], bytes]:
    """An account's notice stream key (it routes the script), the script's three keys and
    its live channel, encoded once."""
    keys = notice_keys(namespace, account)
    return (
        keys.stream,
        (keys.stream.encode(), keys.marks.encode(), keys.order.encode()),
        keys.live.encode(),
    )


def _text(value: Reply) -> str:
    return value.decode() if isinstance(value, bytes) else ""


def _count(value: Reply) -> int:
    return int(value) if isinstance(value, bytes | int) and value != b"" else 0


def _notices(reply: Reply) -> list[Notice]:
    """The entries of an XRANGE reply: [[id, [field, value, ...]], ...]."""
    if isinstance(reply, Exception):
        raise reply
    out = []
    for entry in reply if isinstance(reply, list) else []:
        entry_id, fields = entry
        values = dict(zip(fields[::2], fields[1::2], strict=True))
        out.append(Notice(entry_id.decode(), values.get(b"d", b"")))
    return out


class RedisNotices(NoticeStore):
    """Notices on the table store's Redis (standalone or cluster)."""

    def __init__(
        self,
        client: RedisClient,
        notifier: Notifier,
        *,
        namespace: str = "kafana",
        max_len: int = MAX_LEN,
        ttl_ms: int = TTL_MS,
        max_marks: int = MAX_MARKS,
    ) -> None:
        super().__init__(max_len=max_len, ttl_ms=ttl_ms, max_marks=max_marks)
        self._client = client
        self._notifier = notifier
        self._namespace = namespace
        self._script = Script.named("notice")
        self._head = [b"EVALSHA", self._script.sha, b"3"]
        # ARGV 5-7 (max len, ttl ms, max marks): the same for every notice; 9: the ttl's slack.
        self._limits = (b"%d" % self.max_len, b"%d" % self.ttl_ms, b"%d" % self.max_marks)
        self._slack = b"%d" % ttl_slack(self.ttl_ms)
        # (account, mark field, holder) -> a rider's routing key and packed parts
        self._rider_parts: dict[tuple[str, str, str], tuple[str, bytes, bytes, bytes]] = {}

    async def publish(
        self, account: str, data: bytes, mark: Mark | None = None, *, keep_table: str = ""
    ) -> str | None:
        """The notice script; a table's bindings kept alive in the same write."""
        return (await self.publish_many([Publish(account, data, mark, keep_table)]))[0]

    def _args(self, notice: Publish) -> tuple[str, list[bytes]]:
        """The notice script's command for `notice` (its 3 keys and 8 arguments), and the key
        that routes it."""
        stream, keys, live = _account_keys(self._namespace, notice.account)
        mark = notice.mark
        return stream, [
            *self._head,
            *keys,
            mark.field.encode() if mark else b"",
            mark.holder.encode() if mark else b"",
            b"%d" % (mark.rank if mark else 0),
            notice.data,
            *self._limits,
            live,
            self._slack,
        ]

    def rider(self, notice: Publish) -> Rider | None:
        """The notice script's keys and arguments, run inside the append's own script after
        it applied (`RedisStore.append`, `lua/append_told.lua`): one Redis server only (on a
        cluster the account's keys and the table's are in other slots)."""
        if self._client.cluster:
            return None
        mark = notice.mark or Mark("", "", 0)
        key = (notice.account, mark.field, mark.holder)
        fixed = self._rider_parts.get(key)
        if fixed is None:  # what a seat's notices share, packed once
            stream, keys, live = _account_keys(self._namespace, notice.account)
            before = bulks([mark.field.encode(), mark.holder.encode()])
            after = bulks([*self._limits, live, self._slack])
            if len(self._rider_parts) >= ACCOUNTS_KEYED:
                self._rider_parts.clear()
            fixed = self._rider_parts[key] = (stream, bulks(list(keys)), before, after)
        stream, keys_packed, before, after = fixed
        return Rider(stream, keys_packed, before + bulks([b"%d" % mark.rank, notice.data]) + after)

    async def publish_many(self, notices: Sequence[Publish]) -> list[str | None]:
        """One notice script per notice, all in one write (per node), in order; a server
        that forgot the script gets it loaded again, once."""
        if not notices:
            return []
        commands: list[Command] = []
        at: list[int] = []  # where each notice's script is in `commands`
        for notice in notices:
            stream, args = self._args(notice)
            at.append(len(commands))
            commands.append((stream, pack_bytes(args)))
            if notice.keep_table:
                key = seat_accounts_key(notice.keep_table)
                commands.append((key, pack("PEXPIRE", key, self.ttl_ms)))
        replies = await self._client.calls(commands)
        forgot = [i for i in at if isinstance(replies[i], NoScriptError)]
        if forgot:
            for i in forgot:  # each node that forgot it (a cluster has several)
                await self._client.call(commands[i][0], "SCRIPT", "LOAD", self._script.text)
            again = await self._client.calls([commands[i] for i in forgot])
            for i, reply in zip(forgot, again, strict=True):
                replies[i] = reply
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return [_text(replies[i]) or None for i in at]

    async def read(self, account: str, after: str, limit: int) -> Page:
        """The count, the newest id and the notices after `after`, in one write."""
        keys = notice_keys(self._namespace, account)
        commands: list[Command] = [
            (keys.marks, pack("HGET", keys.marks, "#")),
            (keys.stream, pack("XREVRANGE", keys.stream, "+", "-", "COUNT", 1)),
        ]
        if after:
            commands.append(
                (keys.stream, pack("XRANGE", keys.stream, f"({after}", "+", "COUNT", limit))
            )
        replies = await self._client.calls(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        newest = _notices(replies[1])
        return Page(
            _count(replies[0]),
            newest[0].id if newest else NONE,
            _notices(replies[2]) if after else [],
        )

    async def _current(self, account: str) -> int:
        key = notice_keys(self._namespace, account).marks
        return _count(await self._client.call(key, "HGET", key, "#"))

    async def wait(self, account: str, count: int, block_ms: int) -> int:
        """The count once past `count` (woken by the script's SPUBLISH) or after `block_ms`."""
        live = notice_keys(self._namespace, account).live
        return await self._notifier.wait(live, lambda: self._current(account), count, block_ms)

    async def bind(
        self, table_id: str, holder: str, account: str, keep: Collection[str] = ()
    ) -> None:
        """HSET the binding and keep the table's bindings for `ttl_ms`; past `MAX_BOUND`,
        drop the ones of holders not in `keep`."""
        key = seat_accounts_key(table_id)
        replies = await self._client.calls(
            [
                (key, pack("HSET", key, holder, account)),
                (key, pack("PEXPIRE", key, self.ttl_ms)),
                (key, pack("HLEN", key)),
            ]
        )
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if _count(replies[2]) > MAX_BOUND:
            stale = [h for h in await self.bound(table_id) if h not in keep and h != holder]
            if stale:
                await self._client.call(key, "HDEL", key, *stale)

    async def bound(self, table_id: str) -> dict[str, str]:
        """HGETALL of the table's bindings."""
        key = seat_accounts_key(table_id)
        flat = await self._client.call(key, "HGETALL", key)
        assert isinstance(flat, list)
        return {_text(k): _text(v) for k, v in zip(flat[::2], flat[1::2], strict=True)}


def notices_for(store: TableStore) -> NoticeStore:
    """The notice store that goes with a table store: in its Redis (TypeError for a store that
    is not in Redis)."""
    if not isinstance(store, RedisStore):
        raise TypeError(f"{type(store).__name__} is not in Redis: account notices live in Redis")
    return RedisNotices(store.client, store.notifier, namespace=store.namespace)
