"""The store's one Redis client, for every deployment: one server or a Redis Cluster.

`redis://host:port/db` (`unix:///path.sock?db=N`) is one lane to one server;
`redis+cluster://host:port` (any node) is a lane per primary, each command sent to the node of its
key's slot (a table's keys share the hash tag `{t:<id>}`, so they share a slot), the
slot map read with `CLUSTER SLOTS` and read again after a `MOVED` or a lost node. Error replies
and lost connections are the store's own errors (`kafana.store.errors`). TLS: `rediss://` and
`rediss+cluster://`, with `?ssl_ca_certs=ca.pem` to trust a private CA. `?timeout=SECONDS`:
how long calls wait on a server that stopped answering before they fail (2 s; 0: for ever).
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from kafana import metrics
from kafana.store.errors import NoScriptError, RedirectError, StoreError, StoreUnavailable
from kafana.store.lane import TIMEOUT_S, Address, Lane
from kafana.store.resp import Reply, pack, pack_bytes

CLUSTER_SCHEME = "redis+cluster"
SLOTS = 16384
MAX_KNOWN = 64
"""Cluster nodes remembered for health checks (primaries and replicas of the slot maps read)."""
Command = tuple[str, bytes]
"""A packed command and the key that routes it (any key of its slot; "" for any node)."""
T = TypeVar("T")


def key_slot(key: str) -> int:
    """The cluster slot of `key`: of its `{hash tag}` when it has a non-empty one.

    >>> key_slot("{t:ab12}:state") == key_slot("{t:ab12}:log")
    True
    >>> key_slot("123456789") == 0x31C3 % 16384
    True
    """
    start = key.find("{")
    if start >= 0:
        end = key.find("}", start + 1)
        if end > start + 1:
            key = key[start + 1 : end]
    return binascii.crc_hqx(key.encode(), 0) % SLOTS  # CRC16-CCITT (XModem), as Redis


@dataclass(frozen=True)
class Script:
    """A Lua script of `kafana/store/lua/`, run by its SHA1 (loaded again on `NOSCRIPT`)."""

    name: str
    text: str
    sha: bytes

    @staticmethod
    def of(name: str, text: str) -> Script:
        """The script `text`, called `name` in messages."""
        return Script(name, text, hashlib.sha1(text.encode()).hexdigest().encode())

    @staticmethod
    def named(name: str, package: str = "kafana.store") -> Script:
        """The script `<package>/lua/<name>.lua`."""
        return Script.of(name, (resources.files(package) / "lua" / f"{name}.lua").read_text())

    def command(self, keys: list[bytes], args: list[bytes]) -> bytes:
        """Its `EVALSHA` in RESP."""
        return pack_bytes([b"EVALSHA", self.sha, b"%d" % len(keys), *keys, *args])


def parse_url(url: str) -> tuple[bool, Address]:
    """Whether `url` names a cluster, and the address it names (a cluster's: any node).

    >>> cluster, address = parse_url("redis://:pw@10.0.0.5:6380/2")
    >>> cluster, address.host, address.port, address.db, address.password
    (False, '10.0.0.5', 6380, 2, 'pw')
    """
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if parts.scheme not in ("redis", "rediss", "unix", CLUSTER_SCHEME, "rediss+cluster"):
        raise ValueError(
            f"not a Redis URL: {url!r} (redis://, rediss://, unix://, {CLUSTER_SCHEME}://)"
        )
    path = parts.path.strip("/")
    db = int(query["db"][0]) if "db" in query else int(path) if path.isdigit() else 0
    address = Address(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 6379,
        db=0 if parts.scheme == "unix" and "db" not in query else db,
        username=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        tls=parts.scheme.startswith("rediss"),
        ca_file=query.get("ssl_ca_certs", [""])[0],
        path=parts.path if parts.scheme == "unix" else "",
        timeout=float(query["timeout"][0]) if "timeout" in query else TIMEOUT_S,
    )
    return parts.scheme.endswith("+cluster"), address


class RedisClient:
    """Pipelined lanes to one Redis server or to every primary of a cluster."""

    def __init__(self, address: Address, *, cluster: bool = False, url: str = "") -> None:
        self.address = address
        self.cluster = cluster
        self.url = url  # the URL it was made from ("" when made from an address)
        self._lanes: dict[Address, Lane] = {}
        self._slots: list[Address] = []  # a cluster's slot -> primary; [] until read
        self._nodes: list[Address] = []  # the primaries last read (kept when a node is lost)
        self._known: list[Address] = []  # every node seen, replicas too (health asks any)
        self._refreshing: asyncio.Lock | None = None
        self._main = self._lane(address)
        self._pool: dict[tuple[Address, int], Lane] = {}  # more lanes per node (`calls(pool=)`)

    @staticmethod
    def from_url(url: str) -> RedisClient:
        """The client of a `redis://`, `rediss://`, `unix://` or `redis+cluster://` URL."""
        cluster, address = parse_url(url)
        return RedisClient(address, cluster=cluster, url=url)

    def describe(self) -> str:
        """What and where, for logs."""
        where = self.address.path or f"{self.address.host}:{self.address.port}"
        return f"{'Redis Cluster' if self.cluster else 'Redis'} at {where}"

    def _lane(self, address: Address, pool: int = 0) -> Lane:
        """The lane to `address`; `pool` > 0: the pool's lane of that number to it (a write
        that waits on its own connection, WAIT, blocks no other call)."""
        if pool:
            pooled = self._pool.get((address, pool))
            if pooled is None:
                pooled = self._pool[(address, pool)] = Lane(address)
            return pooled
        lane = self._lanes.get(address)
        if lane is None:
            lane = self._lanes[address] = Lane(address)
        return lane

    async def node_of(self, key: str) -> Address:
        """The address of the server that holds `key`."""
        if not self.cluster:
            return self.address
        if not self._slots:
            await self._read_slots()
        return self._slots[key_slot(key)] if key else self.address

    async def _read_slots(self) -> None:
        """Read the slot map (`CLUSTER SLOTS`) from the first node that answers."""
        if self._refreshing is None:
            self._refreshing = asyncio.Lock()
        async with self._refreshing:
            await self._first_answer(self._nodes, ("CLUSTER", "SLOTS"), self._take_slots)

    def _take_slots(self, address: Address, reply: Reply) -> bool | None:
        """Keep the slot map of a `CLUSTER SLOTS` reply from `address` (None: no map)."""
        if not isinstance(reply, list):
            return None
        slots = [self.address] * SLOTS
        seen = []
        for start, end, primary, *replicas in reply:
            node = self.address.node(primary[0].decode() or address.host, primary[1])
            slots[start : end + 1] = [node] * (end - start + 1)
            seen += [self.address.node(r[0].decode() or address.host, r[1]) for r in replicas]
        self._slots, self._nodes = slots, list(dict.fromkeys(slots))
        self._known = list(dict.fromkeys([*self._nodes, *seen, *self._known]))[:MAX_KNOWN]
        return True

    async def _first_answer(
        self,
        nodes: list[Address],
        command: tuple[str, ...],
        take: Callable[[Address, Reply], T | None],
    ) -> T:
        """What `take` makes of `command`'s reply from the first node that answers with one it
        can use (not None): the seed, then `nodes`. The last error (StoreUnavailable when no
        node answered) when none does."""
        error: Exception = StoreUnavailable("no cluster node answered")
        for address in dict.fromkeys([self.address, *nodes]):
            try:
                reply = await self._lane(address).call(pack(*command))
            except StoreUnavailable as lost:
                error = lost
                continue
            if isinstance(reply, Exception):
                error = reply
                continue
            taken = take(address, reply)
            if taken is not None:
                return taken
        raise error

    async def calls(self, commands: list[Command], *, pool: int = 0) -> list[Reply]:
        """Send commands, each to its key's server (one write per server); replies in order.

        `pool` > 0: on that lane of the pool to each server instead of the shared one.
        Error replies are returned as exceptions; a lost connection raises StoreUnavailable.
        Counted in `kafana.metrics` (one round trip; an error when unavailable).
        """
        metrics.REDIS_CALLS.inc()
        try:
            if not self.cluster:  # here, not in a coroutine of its own: the move path
                lane = self._lane(self.address, pool) if pool else self._main
                if len(commands) == 1:  # the common case: no list of futures to build
                    return [await lane.call(commands[0][1])]
                return await lane.calls([command for _key, command in commands])
            return await self._cluster_calls(commands, pool)
        except StoreUnavailable:
            metrics.REDIS_ERRORS.inc()
            raise

    async def _cluster_calls(self, commands: list[Command], pool: int = 0) -> list[Reply]:
        try:
            groups: dict[Address, list[int]] = {}
            for i, (key, _command) in enumerate(commands):
                groups.setdefault(await self.node_of(key), []).append(i)
            replies: list[Reply] = [None] * len(commands)

            async def send(address: Address, indexes: list[int]) -> None:
                got = await self._lane(address, pool).calls([commands[i][1] for i in indexes])
                for i, reply in zip(indexes, got, strict=True):
                    replies[i] = reply

            await asyncio.gather(*(send(a, i) for a, i in groups.items()))
            moved: set[int] = set()
            for i, reply in enumerate(replies):
                if i in moved or not isinstance(reply, RedirectError):
                    continue
                if reply.ask:
                    replies[i] = await self._redirected(reply, commands[i][1])
                    continue
                # The commands routed by the same slot after it go along (a WAIT that follows
                # a write must run on the connection that made the write).
                along = [
                    j
                    for j in range(i, len(commands))
                    if key_slot(commands[j][0]) == reply.slot and commands[j][0]
                ]
                along = along if i in along else [i]
                moved.update(along)
                await self._read_slots()
                node = self.address.node(reply.host, reply.port)
                got = await self._lane(node, pool).calls([commands[j][1] for j in along])
                for j, again in zip(along, got, strict=True):
                    replies[j] = again
            return replies
        except StoreUnavailable:
            self._slots = []  # a node is gone: read the map again next time
            raise

    async def _redirected(self, redirect: RedirectError, command: bytes) -> Reply:
        """Send `command` again where the cluster said its slot is now (once)."""
        node = self.address.node(redirect.host, redirect.port)
        if redirect.ask:
            return (await self._lane(node).calls([pack("ASKING"), command]))[1]
        await self._read_slots()
        return await self._lane(node).call(command)

    async def call(self, key: str, *args: bytes | str | int) -> Reply:
        """One command routed by `key`; an error reply is raised."""
        reply = (await self.calls([(key, pack(*args))]))[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def run(
        self,
        script: Script,
        keys: list[str],
        args: list[bytes],
        *also: Command,
        pool: int = 0,
    ) -> list[Reply]:
        """`script` on `keys` and `args`, with `also` in the same write (`pool`: on that lane
        of the pool): the replies, raised if any is an error. A server that forgot the script
        gets it loaded again, once."""
        command = script.command([key.encode() for key in keys], args)
        batch = [(keys[0] if keys else "", command), *also]
        return await self.run_batch(script, batch, pool=pool)

    async def run_batch(
        self, script: Script, batch: list[Command], *, pool: int = 0
    ) -> list[Reply]:
        """`run` of `script`'s command packed already (`batch[0]`: its key and command) and
        the commands after it."""
        replies = await self.calls(batch, pool=pool)
        if isinstance(replies[0], NoScriptError):
            await self.call(batch[0][0], "SCRIPT", "LOAD", script.text)
            replies = await self.calls(batch, pool=pool)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    async def primaries(self) -> list[Address]:
        """The server, or every primary of the cluster's slot map."""
        if not self.cluster:
            return [self.address]
        if not self._slots:
            await self._read_slots()
        return list(self._nodes)

    async def call_at(self, address: Address, *args: bytes | str | int) -> Reply:
        """One command to the node at `address`; an error reply is raised."""
        reply = await self._lane(address).call(pack(*args))
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def cluster_state(self) -> str:
        """The cluster's own word on itself (`cluster_state` of CLUSTER INFO: "ok" or "fail"),
        from the first node that answers: the seed, then every node seen in the slot map.
        StoreUnavailable when none answers."""
        if not self._slots:
            with contextlib.suppress(StoreUnavailable):
                await self._read_slots()  # learn the other nodes while one answers
        return await self._first_answer(self._known, ("CLUSTER", "INFO"), _cluster_state)

    async def close(self) -> None:
        """Close every lane (a later call connects again)."""
        lanes = [*self._lanes.values(), *self._pool.values()]
        await asyncio.gather(*(lane.close() for lane in lanes))


def _cluster_state(address: Address, reply: Reply) -> str | None:
    """The `cluster_state` line of a `CLUSTER INFO` reply (None: not one)."""
    if isinstance(reply, bytes):
        for line in reply.decode(errors="replace").splitlines():
            if line.startswith("cluster_state:"):
                return line.partition(":")[2].strip()
    return None


__all__ = ["Command", "RedisClient", "Script", "StoreError", "key_slot", "parse_url"]
