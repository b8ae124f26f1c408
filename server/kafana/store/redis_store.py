"""The Redis store: Lua scripts make every append one atomic round trip.

Works on one Redis or a Redis Cluster (`redis+cluster://host:port`): all keys of a table
share a hash tag, and every script touches one table's keys or one global key only.
"""

from __future__ import annotations

from importlib import resources
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, ResponseError

from kafana.store.base import Append, AppendResult, Entry, Outcome, Snapshot, TableStore
from kafana.store.framing import frame, skip
from kafana.store.keys import deadlines_index, live_channel, table_keys, tables_index
from kafana.store.lane import Lane, pack, pack_bytes
from kafana.store.notify import Notifier

CLUSTER_SCHEME = "redis+cluster"


def _script(name: str) -> str:
    return (resources.files("kafana.store") / "lua" / f"{name}.lua").read_text()


def _int(value: Any) -> int:
    if isinstance(value, bytes):
        value = value.decode()
    return int(value) if value not in (None, "") else 0


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_OUTCOMES: dict[Any, Outcome] = {o.value: o for o in Outcome} | {
    o.value.encode(): o for o in Outcome
}


def _pairs(flat: Any) -> dict[str, bytes]:
    if isinstance(flat, dict):
        return {_text(k): bytes(v) for k, v in flat.items()}
    return {_text(k): bytes(v) for k, v in zip(flat[::2], flat[1::2], strict=True)}


def _marks(state: dict[str, bytes]) -> dict[int, tuple[int, str]]:
    """The `d<slot>` fields of a state hash: slot -> (seq, tag)."""
    out = {}
    for name, value in state.items():
        if name.startswith("d") and name[1:].isdigit():
            seq, _, tag = value.decode().partition(":")
            out[int(name[1:])] = (int(seq), tag)
    return out


class RedisStore(TableStore):
    """Tables in Redis (standalone or cluster)."""

    def __init__(self, client: Redis | RedisCluster, *, namespace: str = "kafana") -> None:
        self._client = client
        self._cluster = isinstance(client, RedisCluster)
        self._namespace = namespace
        self._create = client.register_script(_script("create"))
        self._load = client.register_script(_script("load"))
        self._append = client.register_script(_script("append"))
        self._claim = client.register_script(_script("claim"))
        self._notifier = Notifier(client)
        self._where = ""
        # Scripts go down one pipelined connection when the client allows it (a standalone
        # Redis over TCP): a fraction of redis-py's cost per call. Else through redis-py.
        self._lane = Lane.for_client(client)
        self._append_sha = self._append.sha.encode()

    @classmethod
    def from_url(
        cls, url: str, *, namespace: str = "kafana", max_connections: int = 256
    ) -> RedisStore:
        """Connect to `redis://host:port/db` or `redis+cluster://host:port` (any node)."""
        parts = urlsplit(url)
        client: Redis | RedisCluster
        if parts.scheme == CLUSTER_SCHEME:
            plain = urlunsplit(("redis", parts.netloc, parts.path, parts.query, parts.fragment))
            client = RedisCluster.from_url(plain, max_connections=max_connections)
        else:
            pool = BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=20)
            client = Redis.from_pool(pool)  # the client owns the pool: closing closes both
        store = cls(client, namespace=namespace)
        store._where = f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"
        return store

    def describe(self) -> str:
        """What and where."""
        kind = "Redis Cluster" if self._cluster else "Redis"
        return f"{kind} at {self._where or 'a given client'}"

    @property
    def client(self) -> Redis | RedisCluster:
        """The underlying client (tests use it to inspect keys)."""
        return self._client

    async def _run(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any:
        if self._lane is None:
            return await script(keys=keys, args=args)
        command = pack("EVALSHA", script.sha, len(keys), *keys, *args)
        return (await self._lane_calls(script, [command]))[0]

    async def _lane_calls(self, script: AsyncScript, commands: list[bytes]) -> list[Any]:
        """Commands down the lane, the first one running `script`: loaded again once if
        Redis forgot it (NOSCRIPT); an error reply is raised."""
        assert self._lane is not None
        replies = await self._lane.calls(commands)
        if isinstance(replies[0], NoScriptError):
            await self._client.script_load(script.script)
            replies = await self._lane.calls(commands)
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    async def create(self, table_id: str, table: bytes, ttl_ms: int, now_ms: int) -> bool:
        """Create the table, then index it for listing."""
        keys = table_keys(table_id)
        created = await self._run(self._create, [keys.table, keys.state], [table, ttl_ms])
        if created:
            await self._client.zadd(tables_index(self._namespace), {table_id: now_ms})
        return bool(created)

    async def load(
        self, table_id: str, after_seq: int = 0, *, offset: int | None = None
    ) -> Snapshot | None:
        """One script call: record, control state, seats, the log from `offset` on."""
        start = offset if offset is not None else 0
        raw = await self._run(self._load, list(table_keys(table_id)), [start])
        if not raw:
            return None
        record, state_flat, seats, tail = raw
        state = _pairs(state_flat)
        tail = bytes(tail)
        if offset is None and after_seq:
            tail = tail[skip(tail, after_seq) :]
        return Snapshot(
            table=bytes(record),
            seq=_int(state.get("seq")),
            status=_text(state.get("status", b"")),
            deadline_ms=_int(state.get("deadline")),
            seats={int(k): v for k, v in _pairs(seats).items()},
            tail=tail,
            marks=_marks(state),
        )

    def _append_args(self, append: Append) -> list[Any]:
        def opt(value: int | None) -> str | int:
            return "" if value is None else value

        return [
            opt(append.expected_seq),
            append.dedupe,
            frame(append.event),
            append.require_status,
            append.new_status,
            opt(append.deadline_ms),
            opt(append.take_seat),
            append.seat_data,
            opt(append.free_seat),
            append.start_at_seats,
            append.start_deadline_ms,
            append.ttl_ms,
            append.dedupe_slot,
        ]

    def _append_command(self, table_id: str, append: Append) -> bytes:
        """The append script's `EVALSHA` in RESP, its arguments made bytes inline.

        The move path: `pack` would convert its 18 arguments one call at a time.
        """
        keys = table_keys(table_id)
        seq, deadline = append.expected_seq, append.deadline_ms
        take, free = append.take_seat, append.free_seat
        return pack_bytes(
            [
                b"EVALSHA",
                self._append_sha,
                b"4",
                keys.state.encode(),
                keys.seats.encode(),
                keys.log.encode(),
                keys.table.encode(),
                b"" if seq is None else b"%d" % seq,
                append.dedupe.encode(),
                frame(append.event),
                append.require_status.encode(),
                append.new_status.encode(),
                b"" if deadline is None else b"%d" % deadline,
                b"" if take is None else b"%d" % take,
                append.seat_data,
                b"" if free is None else b"%d" % free,
                b"%d" % append.start_at_seats,
                b"%d" % append.start_deadline_ms,
                b"%d" % append.ttl_ms,
                b"%d" % append.dedupe_slot,
                live_channel(table_id).encode(),
            ]
        )

    async def append(self, table_id: str, append: Append) -> AppendResult:
        """The append script; a new clock deadline is indexed in the same round trip."""
        if self._lane is not None:
            raw = await self._lane_append(table_id, append)
        else:
            keys = table_keys(table_id)
            script_keys = [keys.state, keys.seats, keys.log, keys.table]
            args = [*self._append_args(append), live_channel(table_id)]
            if append.deadline_ms and not self._cluster:
                raw = await self._append_and_index(table_id, script_keys, args, append.deadline_ms)
            else:
                raw = await self._run(self._append, script_keys, args)
                if append.deadline_ms:
                    await self.schedule_early(table_id, append.deadline_ms)
        outcome, seq, status = raw
        result = AppendResult(_OUTCOMES[outcome], _int(seq), _text(status))
        if (
            result.outcome is Outcome.APPLIED
            and append.take_seat is not None
            and append.start_deadline_ms
            and result.status == "playing"
        ):
            await self.schedule_early(table_id, append.start_deadline_ms)
        return result

    async def _lane_append(self, table_id: str, append: Append) -> Any:
        """The append down the lane; with a new deadline, its index entry in the same write."""
        commands = [self._append_command(table_id, append)]
        if append.deadline_ms:
            # LT: the index may be early, never late; the clock sweeper repairs early ones.
            key = deadlines_index(self._namespace)
            commands.append(pack("ZADD", key, "LT", append.deadline_ms, table_id))
        return (await self._lane_calls(self._append, commands))[0]

    async def _append_and_index(
        self, table_id: str, keys: list[str], args: list[Any], deadline_ms: int
    ) -> Any:
        """The append script and the deadline index in one pipelined round trip."""
        for attempt in range(2):
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.evalsha(self._append.sha, len(keys), *keys, *args)
                # LT: the index may be early, never late; the clock sweeper repairs early ones.
                pipe.zadd(deadlines_index(self._namespace), {table_id: deadline_ms}, lt=True)
                try:
                    return (await pipe.execute())[0]
                except NoScriptError:
                    if attempt:
                        raise
                    await self._client.script_load(self._append.script)
        raise AssertionError("unreachable")

    async def schedule_early(self, table_id: str, deadline_ms: int) -> None:
        """Index a deadline unless an earlier one is indexed already."""
        await self._client.zadd(deadlines_index(self._namespace), {table_id: deadline_ms}, lt=True)

    async def events(self, table_id: str, after_seq: int, block_ms: int) -> list[Entry]:
        """The log after `after_seq`, waiting for a live notification when there is none."""
        if block_ms > 0:
            await self.wait(table_id, after_seq, block_ms)
        snapshot = await self.load(table_id, after_seq)
        return [] if snapshot is None else snapshot.events

    async def _seq(self, table_id: str) -> int:
        value = await self._client.hget(table_keys(table_id).state, "seq")
        return -1 if value is None else _int(value)

    async def wait(self, table_id: str, after_seq: int, block_ms: int) -> int:
        """The seq, once past `after_seq` (woken by the append's SPUBLISH) or after `block_ms`."""
        return await self._notifier.wait(
            live_channel(table_id), lambda: self._seq(table_id), after_seq, block_ms
        )

    async def list_tables(self, limit: int) -> list[str]:
        """Newest first from the creation index."""
        ids = await self._client.zrevrange(tables_index(self._namespace), 0, limit - 1)
        return [_text(i) for i in ids]

    async def forget(self, table_id: str) -> None:
        """Remove from both indexes."""
        await self._client.zrem(tables_index(self._namespace), table_id)
        await self._client.zrem(deadlines_index(self._namespace), table_id)

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Index entries at or before now."""
        ids = await self._client.zrangebyscore(
            deadlines_index(self._namespace), "-inf", now_ms, start=0, num=limit
        )
        return [_text(i) for i in ids]

    async def claim(self, table_id: str, now_ms: int, lease_ms: int) -> bool:
        """The claim script on the deadline index."""
        won = await self._run(
            self._claim, [deadlines_index(self._namespace)], [table_id, now_ms, lease_ms]
        )
        return bool(won)

    async def schedule(self, table_id: str, deadline_ms: int) -> None:
        """Set (or with 0 remove) the index entry."""
        key = deadlines_index(self._namespace)
        if deadline_ms:
            await self._client.zadd(key, {table_id: deadline_ms})
        else:
            await self._client.zrem(key, table_id)

    async def close(self) -> None:
        """Close the subscriber, the lane, the client and its pool."""
        if self._lane is not None:
            await self._lane.close()
        await self._notifier.close()
        await self._client.aclose()
