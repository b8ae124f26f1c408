"""The Redis store: Lua scripts make every append one atomic round trip.

Works on one Redis or a Redis Cluster (`redis+cluster://host:port`) through the same client
(`kafana.store.client`): all keys of a table share a hash tag, and every script touches one
table's keys or one global key only.
"""

from __future__ import annotations

import functools

from kafana.store.base import (
    Append,
    AppendResult,
    Entry,
    Listed,
    Outcome,
    Snapshot,
    TableStore,
)
from kafana.store.client import Command, RedisClient, Script
from kafana.store.counters import Counters
from kafana.store.errors import StoreUnavailable
from kafana.store.framing import frame, skip
from kafana.store.keys import (
    deadline_shard_keys,
    deadlines_index,
    legacy_deadlines_index,
    live_channel,
    table_keys,
    tables_index,
)
from kafana.store.notify import Notifier
from kafana.store.redis_counters import RedisCounters
from kafana.store.resp import Reply, bulks, pack

_OUTCOMES = {o.value.encode(): o for o in Outcome}


def _int(value: Reply) -> int:
    return int(value) if isinstance(value, int | bytes) and value != b"" else 0


PRIMARY = "primary"
"""Durability: a write is acknowledged once the primary has it (and its AOF, per its fsync)."""
REPLICATED = "replicated"
"""Durability: a write is acknowledged once a replica has it too (`WAIT 1 <ms>`): a failover to
that replica loses no acknowledged move."""
DURABILITIES = (PRIMARY, REPLICATED)
REPLICA_WAIT_MS = 1000
"""How long a write waits for a replica's word before it is refused as not acknowledged."""
WAIT_LANES = 8
"""Connections per Redis node for writes that WAIT (each blocks its connection until a replica
answers): that many wait at once, and no read waits behind them."""

LIST_SLACK = 16
"""Index entries read beyond a page from a cursor: the cursor and its ties, mostly none."""


def _pairs(flat: Reply) -> dict[bytes, bytes]:
    assert isinstance(flat, list)
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _marks(state: dict[bytes, bytes]) -> dict[int, tuple[int, str]]:
    """The `d<slot>` fields of a state hash: slot -> (seq, tag)."""
    out = {}
    for name, value in state.items():
        if name.startswith(b"d") and name[1:].isdigit():
            seq, _, tag = value.decode().partition(":")
            out[int(name[1:])] = (int(seq), tag)
    return out


def _digest(state: dict[bytes, bytes], seq: int) -> str | None:
    """The state's log digest when it is of `seq` (None: the store cannot vouch for one)."""
    at, _, digest = state.get(b"h", b"").decode().partition(":")
    return digest if at.isdigit() and int(at) == seq and digest else None


def append_args(append: Append, live: bytes) -> list[bytes]:
    """The append script's 16 arguments (`lua/append.lua` names them), as bytes ('' for None);
    `live`: the table's live channel.

    The move path: each made bytes inline, no helper called per argument.
    """
    seq, deadline, take, free = (
        append.expected_seq,
        append.deadline_ms,
        append.take_seat,
        append.free_seat,
    )
    return [
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
        live,
        append.expected_digest.encode(),
        b"%d" % ttl_slack(append.ttl_ms),
    ]


APPEND_KEYS, APPEND_ARGS = 4, 16
"""The append script's keys and arguments (`append_args`)."""
APPEND_COUNT = b"*%d\r\n" % (3 + APPEND_KEYS + APPEND_ARGS)
"""The append's EVALSHA: the command, its SHA, the key count, its keys and arguments."""
TABLES_PACKED = 16_384
"""Tables whose append command head (EVALSHA, SHA, keys) is kept packed: ~250 bytes each."""
TTL_SLACK_FROM_MS = 600_000
"""Times to live from this long on are kept with a slack (`ttl_slack`); shorter ones exactly."""
TTL_SLACK_PARTS = 1000
"""The slack of a time to live: this fraction of it (a day's: 86 s)."""
RIDER_KEYS, RIDER_ARGS = 3, 9
"""A rider's keys and arguments in `append_told` (`lua/notice.lua`'s)."""


def ttl_slack(ttl_ms: int) -> int:
    """How much longer than `ttl_ms` keys may be kept, so that a write refreshes their time to
    live only once that long (`lua/append.lua`): they live at least `ttl_ms` after the last
    write, at most `ttl_ms` + the slack. None under `TTL_SLACK_FROM_MS`.

    >>> ttl_slack(86_400_000), ttl_slack(60_000)
    (86400, 0)
    """
    return ttl_ms // TTL_SLACK_PARTS if ttl_ms >= TTL_SLACK_FROM_MS else 0


@functools.lru_cache(maxsize=16)
def _told_head(sha: bytes, riders: int) -> bytes:
    """The array header, command, SHA and key count of `append_told` with `riders` riders
    (the same for every move with a notice: made once)."""
    count = 3 + APPEND_KEYS + APPEND_ARGS + riders * (RIDER_KEYS + RIDER_ARGS)
    keys = b"%d" % (APPEND_KEYS + riders * RIDER_KEYS)
    return b"*%d\r\n" % count + bulks([b"EVALSHA", sha, keys])


def told_script() -> Script:
    """`lua/append_told.lua` with `append.lua` and `notice.lua` before it as its functions."""
    parts = ["local function notice(KEYS, ARGV)", Script.named("notice").text, "end"]
    parts += ["local function append(KEYS, ARGV)", Script.named("append").text, "end"]
    return Script.of("append_told", "\n".join([*parts, Script.named("append_told").text]))


class RedisStore(TableStore):
    """Tables in Redis (standalone or cluster)."""

    def __init__(
        self,
        client: RedisClient,
        *,
        namespace: str = "kafana",
        durability: str = PRIMARY,
        wait_ms: int = REPLICA_WAIT_MS,
    ) -> None:
        if durability not in DURABILITIES:
            raise ValueError(f"durability is one of {', '.join(DURABILITIES)}, not {durability!r}")
        self.client = client  # the underlying client (tests use it to inspect keys)
        self.namespace = namespace  # the prefix of the store's global keys
        self.durability = durability
        self.wait_ms = wait_ms
        self._turn = 0  # the WAIT lane the next write takes
        self._create = Script.named("create")
        self._load = Script.named("load")
        self._append = Script.named("append")
        self._told = told_script()
        self._claim = Script.named("claim")
        self.notifier = Notifier(client)  # live notifications (account notices wake on it too)
        self._counters = RedisCounters(client, namespace)
        # table id -> its state key, its append's head packed, its live channel and its keys
        # packed (bounded)
        self._heads: dict[str, tuple[str, bytes, bytes, bytes]] = {}
        self._due: dict[int, list[tuple[str, bytes, bytes]]] = {}  # `_due_commands`

    @classmethod
    def from_url(
        cls, url: str, *, namespace: str = "kafana", durability: str = PRIMARY
    ) -> RedisStore:
        """Connect to `redis://host:port/db` or `redis+cluster://host:port` (any node);
        `durability`: PRIMARY or REPLICATED (each write waits for a replica)."""
        return cls(RedisClient.from_url(url), namespace=namespace, durability=durability)

    def describe(self) -> str:
        """What and where (and the durability when writes wait for a replica)."""
        what = self.client.describe()
        if self.durability == REPLICATED:
            what += f", each write acknowledged once a replica has it (WAIT 1 {self.wait_ms})"
        return what

    def _pool(self) -> int:
        """The lane for the next write: 0 (the shared one), or one of WAIT_LANES in turn."""
        if self.durability != REPLICATED:
            return 0
        self._turn = self._turn % WAIT_LANES + 1
        return self._turn

    def _replicated(self, *keys: str) -> list[Command]:
        """The WAITs that follow writes on the connections of `keys` (one a key: on a cluster
        the table and the deadline index may be on two nodes) when writes wait for a replica."""
        if self.durability != REPLICATED:
            return []
        return [(key, pack("WAIT", 1, self.wait_ms)) for key in keys]

    def _check_replicated(self, replies: list[Reply], waits: int = 1) -> None:
        """Refuse (retryably) a write no replica confirmed within `wait_ms` (`waits`: the last
        replies, one a WAIT)."""
        if self.durability == REPLICATED and min(_int(r) for r in replies[-waits:]) < 1:
            raise StoreUnavailable(
                f"no replica confirmed the write within {self.wait_ms} ms: it is not "
                "acknowledged (a retry with the same client_move_id is applied at most once)"
            )

    @property
    def counters(self) -> Counters:
        """Counters in the same Redis, shared by every process on it."""
        return self._counters

    @property
    def url(self) -> str:
        """The Redis URL the store was opened on ("" when given a client)."""
        return self.client.url

    async def create(self, table_id: str, table: bytes, ttl_ms: int, now_ms: int) -> bool:
        """Create the table, then index it for listing."""
        keys = table_keys(table_id)
        replies = await self.client.run(
            self._create,
            [keys.table, keys.state],
            [table, b"%d" % ttl_ms],
            *self._replicated(keys.state),
            pool=self._pool(),
        )
        created = replies[0]
        if created:
            self._check_replicated(replies)
            await self._zadd(tables_index(self.namespace), table_id, now_ms)
        return bool(created)

    async def load(
        self, table_id: str, after_seq: int = 0, *, offset: int | None = None
    ) -> Snapshot | None:
        """One script call: record, control state, seats, the log from `offset` on."""
        start = offset if offset is not None else 0
        (raw,) = await self.client.run(self._load, list(table_keys(table_id)), [b"%d" % start])
        if not raw:
            return None
        assert isinstance(raw, list)
        record, state_flat, seats, tail = raw
        state = _pairs(state_flat)
        if offset is None and after_seq:
            tail = tail[skip(tail, after_seq) :]
        seq = _int(state.get(b"seq"))
        return Snapshot(
            table=record,
            seq=seq,
            status=state.get(b"status", b"").decode(),
            deadline_ms=_int(state.get(b"deadline")),
            seats={int(k): v for k, v in _pairs(seats).items()},
            tail=tail,
            marks=_marks(state),
            digest=_digest(state, seq),
        )

    def _append_head(self, table_id: str) -> tuple[str, bytes, bytes, bytes]:
        """The table's state key, its append's EVALSHA packed up to the arguments (the same
        for every append: made once a table), its live channel and its 4 keys packed."""
        head = self._heads.get(table_id)
        if head is None:
            keys = table_keys(table_id)
            named = bulks([k.encode() for k in (keys.state, keys.seats, keys.log, keys.table)])
            packed = bulks([b"EVALSHA", self._append.sha, b"4"]) + named
            if len(self._heads) >= TABLES_PACKED:
                self._heads.clear()
            live = live_channel(table_id).encode()
            head = self._heads[table_id] = (keys.state, packed, live, named)
        return head

    async def append(self, table_id: str, append: Append) -> AppendResult:
        """The append script; a new clock deadline is indexed in the same write. With riders
        (one server only: on a cluster they may be on other nodes), `append_told`: the append
        and, if it applied, the riders' notices, in one script."""
        state, head, live, named = self._append_head(table_id)
        also: list[Command] = []
        if append.deadline_ms:
            # LT: the index may be early, never late; the clock sweeper repairs early ones.
            key = deadlines_index(self.namespace, table_id)
            also.append((key, pack("ZADD", key, "LT", append.deadline_ms, table_id)))
        replicated = self.durability == REPLICATED
        waits = self._replicated(state, *(key for key, _command in also)) if replicated else []
        also += waits
        riders = () if self.client.cluster else append.riders
        script = self._append
        if riders:
            script = self._told
            command = b"".join(
                [
                    _told_head(script.sha, len(riders)),
                    named,
                    *(r.keys for r in riders),
                    bulks(append_args(append, live)),
                    *(r.args for r in riders),
                ]
            )
        else:
            command = APPEND_COUNT + head + bulks(append_args(append, live))
        replies = await self.client.run_batch(
            script,
            [(state, command), *also],
            pool=self._pool() if replicated else 0,
        )
        raw = replies[0]
        assert isinstance(raw, list)
        outcome, seq, status = raw[:3]
        ran = bool(riders) and raw[3] == 1
        result = AppendResult(_OUTCOMES[outcome], _int(seq), status.decode(), riders_run=ran)
        if replicated and result.outcome in (Outcome.APPLIED, Outcome.DUPLICATE):
            self._check_replicated(replies, len(waits))
        if (
            result.outcome is Outcome.APPLIED
            and append.take_seat is not None
            and append.start_deadline_ms
            and result.status == "playing"
        ):
            await self.schedule_early(table_id, append.start_deadline_ms)
        return result

    async def _zadd(self, key: str, member: str, score: int, *flags: str) -> None:
        """Index `member` (a table's creation, its next deadline); waits for a replica as a
        write of the table does (a deadline lost in a failover would never fire)."""
        if self.durability != REPLICATED:
            await self.client.call(key, "ZADD", key, *flags, score, member)
            return
        command = (key, pack("ZADD", key, *flags, score, member))
        replies = await self.client.calls([command, *self._replicated(key)], pool=self._pool())
        if isinstance(replies[0], Exception):
            raise replies[0]
        self._check_replicated(replies)

    async def schedule_early(self, table_id: str, deadline_ms: int) -> None:
        """Index a deadline unless an earlier one is indexed already."""
        await self._zadd(deadlines_index(self.namespace, table_id), table_id, deadline_ms, "LT")

    async def events(self, table_id: str, after_seq: int, block_ms: int) -> list[Entry]:
        """The log after `after_seq`, waiting for a live notification when there is none."""
        if block_ms > 0:
            await self.wait(table_id, after_seq, block_ms)
        snapshot = await self.load(table_id, after_seq)
        return [] if snapshot is None else snapshot.events

    async def _seq(self, table_id: str) -> int:
        key = table_keys(table_id).state
        value = await self.client.call(key, "HGET", key, "seq")
        return -1 if value is None else _int(value)

    async def wait(self, table_id: str, after_seq: int, block_ms: int) -> int:
        """The seq, once past `after_seq` (woken by the append's SPUBLISH) or after `block_ms`."""
        return await self.notifier.wait(
            live_channel(table_id), lambda: self._seq(table_id), after_seq, block_ms
        )

    async def list_tables(self, limit: int, before: Listed | None = None) -> list[Listed]:
        """Newest first from the creation index (scored by created_ms; ties in reverse id
        order, as ZRANGE REV gives them), after `before`.

        From a cursor the range starts at its score, inclusive: the entries of that score
        not below it in the order (the cursor's own, its ties before it) are skipped, batch
        after batch if a millisecond holds that many tables.
        """
        if limit <= 0:
            return []
        key = tables_index(self.namespace)
        top = "+inf" if before is None else before[0]
        out: list[Listed] = []
        offset = 0
        while len(out) < limit:
            count = limit - len(out) + (0 if before is None else LIST_SLACK)
            flat = await self.client.call(
                key,
                "ZRANGE",
                key,
                top,
                "-inf",
                "BYSCORE",
                "REV",
                "LIMIT",
                offset,
                count,
                "WITHSCORES",
            )
            assert isinstance(flat, list)
            batch = [
                (int(float(score)), member.decode())
                for member, score in zip(flat[::2], flat[1::2], strict=True)
            ]
            out.extend(e for e in batch if before is None or e < before)
            if len(batch) < count:
                break
            offset += count
        return out[:limit]

    async def forget(self, table_id: str) -> None:
        """Remove from both indexes."""
        for key in (tables_index(self.namespace), deadlines_index(self.namespace, table_id)):
            await self.client.call(key, "ZREM", key, table_id)

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Index entries at or before now, earliest first: every shard read in one round trip
        (a command per shard, each sent to its node). Entries found in the index of releases
        before the shards are moved into their shards first."""
        now = bulks([b"%d" % now_ms])
        replies = await self.client.calls(
            [(key, head + now + tail) for key, head, tail in self._due_commands(limit)]
        )
        read: list[list[tuple[float, str]]] = []
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            assert isinstance(reply, list)
            read.append(
                [
                    (float(score), member.decode())
                    for member, score in zip(reply[::2], reply[1::2], strict=True)
                ]
            )
        if read[-1]:
            await self._move_legacy(read[-1])
        earliest: dict[str, float] = {}  # a table moving out of the legacy index: in both
        for score, table_id in (entry for shard in read for entry in shard):
            earliest[table_id] = min(score, earliest.get(table_id, score))
        found = sorted((score, table_id) for table_id, score in earliest.items())
        return [table_id for _score, table_id in found[:limit]]

    def _due_commands(self, limit: int) -> list[tuple[str, bytes, bytes]]:
        """Each index key (the shards, then the legacy one) with its `due` ZRANGE packed
        before and after the time (the clock asks ten times a second: packed once)."""
        found = self._due.get(limit)
        if found is None:
            keys = [*deadline_shard_keys(self.namespace), legacy_deadlines_index(self.namespace)]
            tail = bulks([b"BYSCORE", b"LIMIT", b"0", b"%d" % limit, b"WITHSCORES"])
            found = [(k, b"*9\r\n" + bulks([b"ZRANGE", k.encode(), b"-inf"]), tail) for k in keys]
            self._due = {limit: found}  # one limit (the clock's) kept
        return found

    async def _move_legacy(self, entries: list[tuple[float, str]]) -> None:
        """Move deadlines of the unsharded index into their shards (never later: LT)."""
        legacy = legacy_deadlines_index(self.namespace)
        for score, table_id in entries:
            await self._zadd(deadlines_index(self.namespace, table_id), table_id, int(score), "LT")
            await self.client.call(legacy, "ZREM", legacy, table_id)

    async def claim(self, table_id: str, now_ms: int, lease_ms: int) -> bool:
        """The claim script on the table's deadline shard."""
        key = deadlines_index(self.namespace, table_id)
        args = [table_id.encode(), b"%d" % now_ms, b"%d" % lease_ms]
        (won,) = await self.client.run(self._claim, [key], args)
        return bool(won)

    async def schedule(self, table_id: str, deadline_ms: int) -> None:
        """Set (or with 0 remove) the index entry."""
        key = deadlines_index(self.namespace, table_id)
        if deadline_ms:
            await self._zadd(key, table_id, deadline_ms)
        else:
            await self.client.call(key, "ZREM", key, table_id)

    async def ping(self) -> None:
        """Return when the store as a whole serves; StoreUnavailable when it does not.

        One server: it answers PING. A cluster: a node answers (the seed or any node seen in
        the slot map) and says `cluster_state:ok` (CLUSTERDOWN: not serving). With REPLICATED
        durability the server (each primary of a cluster) also has a replica connected: without
        one no write can be acknowledged.
        """
        if self.client.cluster:
            state = await self.client.cluster_state()
            if state != "ok":
                raise StoreUnavailable(f"CLUSTERDOWN: the cluster says cluster_state:{state}")
        else:
            await self.client.call("", "PING")
        if self.durability == REPLICATED:
            await self._replica_connected()

    async def _replica_connected(self) -> None:
        """StoreUnavailable unless each primary has a replica online (INFO replication: one
        still syncing acknowledges nothing)."""
        nodes = await self.client.primaries()
        for node in nodes:
            info = await self.client.call_at(node, "INFO", "replication")
            text = info.decode(errors="replace") if isinstance(info, bytes) else ""
            online = [
                line
                for line in text.splitlines()
                if line.startswith("slave") and "state=online" in line
            ]
            if not online:
                raise StoreUnavailable(
                    f"durability is replicated but {node.host}:{node.port} has no replica "
                    "connected and in sync: no write can be acknowledged"
                )

    async def close(self) -> None:
        """Close the subscriber lanes and the client's lanes."""
        await self.notifier.close()
        await self.client.close()


def redis_client_of(store: TableStore) -> RedisClient:
    """The Redis client under `store`: leagues, events, accounts and notices live beside its
    tables (TypeError for a store that has none)."""
    client = getattr(store, "client", None)
    if not isinstance(client, RedisClient):
        raise TypeError(f"{type(store).__name__} is not in Redis: it has no Redis client")
    return client
