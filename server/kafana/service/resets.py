"""HTTP/2 rapid reset: a connection whose streams fail too fast is closed.

A client may open a stream and reset it at once (HEADERS, then RST_STREAM), thousands a second
on one connection (CVE-2023-44487). gRPC core drops such streams before Python sees a call, but
its queue of calls waiting for the application grows, and past 1,000 core refused calls at
random, other connections' too: they were answered `CANCELLED` (docs/security.md). Core has
no bound on resets per connection (`grpc.http2.ping_on_rst_stream_percent` and its concurrent
stream cap slow such a client down but never close it), so the server keeps one itself:

- each connection may have `MAX_STREAMS_PER_CONNECTION` streams open at once (the core
  option `grpc.max_concurrent_streams`), and core queues up to `PENDING_CALLS` calls for the
  application before it refuses some (`reset_options`): a reset stream stays in that queue
  until Python takes it, and with core's defaults two connections filled it;
- `ResetWatch` reads core's own counters (channelz) of the server every `interval` seconds
  and, when its unfinished calls grow fast, those of every connection (the streams that
  failed, which is what a reset stream is, and those that succeeded), and closes a connection
  that failed more than `limit` streams a second, or more than a fifth of that while at most
  one stream in ten succeeded (core fails a flood's streams only as fast as the event loop
  takes them off its queue, slowly on a busy server): a GOAWAY frame (`ENHANCE_YOUR_CALM`,
  "too_many_resets") on a plaintext port, then the socket is shut down both ways, which core
  sees as the peer going away (it ends that connection's calls).

Closing finds the socket among this process's file descriptors (`/proc/self/fd`, Linux);
elsewhere a connection over the bound is logged and left open.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import json
import logging
import os
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from grpc._cython import cygrpc  # type: ignore[attr-defined, import-untyped, unused-ignore]

from kafana import metrics
from kafana.logs import Repeated

__all__ = [
    "MAX_STREAMS_PER_CONNECTION",
    "RESETS_PER_SECOND",
    "ResetWatch",
    "close_connection",
    "goaway_frame",
    "reset_options",
]
RESETS_PER_SECOND = 100
"""Streams one connection may have fail (reset, cancelled) a second before it is closed: a
client cancels a few a second (a watcher closing its stream); a rapid reset attack made core
fail 150-600 a second per connection on the 2-core test machine, with more sent."""
MAX_STREAMS_PER_CONNECTION = 1000
"""Streams open at once on one connection (more wait in the client until one ends)."""
PENDING_CALLS = 10_000
"""Calls gRPC core may queue for the application before it refuses some at random (twice
that: all). Core's default, 1,000 (3,000), let two resetting connections crowd other
callers' calls out: they were refused `CANCELLED`."""
INTERVAL_S = 0.5
"""How often the connections' counters are read."""
ENHANCE_YOUR_CALM = 0xB
log = logging.getLogger(__name__)


class TooManyResets(Exception):
    """A connection failed more streams a second than the bound (logged, not raised)."""


def reset_options() -> list[tuple[str, int]]:
    """gRPC server options: streams per connection and the queue of calls not yet taken."""
    return [
        ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
        ("grpc.server.max_pending_requests", PENDING_CALLS),
        ("grpc.server.max_pending_requests_hard_limit", 2 * PENDING_CALLS),
    ]


def goaway_frame(code: int = ENHANCE_YOUR_CALM, debug: bytes = b"too_many_resets") -> bytes:
    """An HTTP/2 GOAWAY frame on stream 0 (RFC 9113, 6.8); the last stream id is the largest,
    since the server does not know which streams gRPC core took.

    >>> goaway_frame(debug=b"").hex()
    '0000080700000000007fffffff0000000b'
    """
    payload = struct.pack(">II", 0x7FFFFFFF, code) + debug
    return struct.pack(">I", len(payload))[1:] + bytes([0x7, 0]) + struct.pack(">I", 0) + payload


def close_connection(local_port: int, remote: tuple[str, int], goaway: bytes = b"") -> bool:
    """Shut down this process's TCP connection from `remote` (host, port) to `local_port`,
    writing `goaway` on it first; False if it is not found (gone already, or no /proc)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return False
    for name in names:
        try:
            fd = int(name)
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            duplicate = os.dup(fd)  # the socket is gRPC's: only the duplicate is closed here
        except (OSError, ValueError):
            continue
        with socket.socket(fileno=duplicate) as sock:
            try:
                here, there = sock.getsockname(), sock.getpeername()
            except OSError:
                continue
            if not (isinstance(there, tuple) and isinstance(here, tuple)):
                continue
            if here[1] != local_port or (_host(there[0]), there[1]) != remote:
                continue
            if goaway:  # a full send buffer refuses it: the shutdown alone closes it then
                with contextlib.suppress(OSError):
                    sock.send(goaway, socket.MSG_DONTWAIT)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                return False
            return True
    return False


def _host(address: str) -> str:
    """An IPv4 address seen on an IPv6 socket (`::ffff:1.2.3.4`) as channelz writes it."""
    return address.removeprefix("::ffff:").split("%", 1)[0]


def _json(data: bytes | str) -> dict[str, Any]:
    found = json.loads(data)
    return found if isinstance(found, dict) else {}


def newest_server() -> int:
    """The channelz id of the gRPC server made last in this process (0: none): called right
    after `grpc.aio.server()`, it is that server's."""
    newest, start = 0, 0
    while True:
        page = _json(cygrpc.channelz_get_servers(start))
        servers = page.get("server", [])
        for server in servers:
            newest = max(newest, int(server["ref"]["serverId"]))
        if page.get("end", True) or not servers:
            return newest
        start = int(servers[-1]["ref"]["serverId"]) + 1


def unfinished_calls(server_id: int) -> int:
    """Calls the server started that did not succeed (failed, reset, or still running): one
    cheap read that says whether any connection may be resetting streams."""
    try:
        data = _json(cygrpc.channelz_get_server(server_id)).get("server", {}).get("data", {})
    except ValueError:  # no such server (any more)
        return 0
    return int(data.get("callsStarted", 0)) - int(data.get("callsSucceeded", 0))


Reading = tuple[int, tuple[str, int], int, int]
"""One connection's counters: channelz socket id, remote address, streams failed, succeeded."""


def server_connections(server_id: int) -> list[Reading]:
    """The counters of every connection of the server: one channelz read per connection
    (~0.5 ms each: a thread's work)."""
    found: list[Reading] = []
    start = 0
    while True:
        try:
            page = _json(cygrpc.channelz_get_server_sockets(server_id, start, 0))
        except ValueError:  # the server is gone
            return found
        refs = page.get("socketRef", [])
        for ref in refs:
            socket_id = int(ref["socketId"])
            try:
                data = _json(cygrpc.channelz_get_socket(socket_id)).get("socket", {})
            except ValueError:  # closed meanwhile
                continue
            remote = data.get("remote", {}).get("tcpipAddress", {})
            if "port" not in remote:
                continue
            address = _address(remote.get("ipAddress", ""))
            counters = data.get("data", {})
            failed = int(counters.get("streamsFailed", 0))
            succeeded = int(counters.get("streamsSucceeded", 0))
            found.append((socket_id, (address, int(remote["port"])), failed, succeeded))
        if page.get("end", True) or not refs:
            return found
        start = int(refs[-1]["socketId"]) + 1


def _address(encoded: str) -> str:
    """channelz's base64 bytes of an IP address as text."""
    raw = base64.b64decode(encoded)
    ip = ipaddress.ip_address(raw)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


class ResetWatch:
    """Closes connections of one gRPC server whose streams fail faster than `limit` a second,
    or faster than a fifth of it with at most one in ten succeeding (0: off); started and
    stopped with the server.

    Every `interval` (in a thread of its own) it reads the server's own call counters (one
    cheap channelz read). Only when its calls that did not succeed grew faster than the lower
    bound allows a single connection does it read every connection's counters (~0.3 ms each),
    twice in a row, and close those whose failed streams grew past the bound between the
    two. A reading that finds no one to close is followed by `quiet` intervals without one, so
    a load that keeps the server-wide count up with no connection over the bound costs at
    most one reading of the connections per `quiet + 1` intervals.
    """

    def __init__(
        self,
        limit: int = RESETS_PER_SECOND,
        *,
        goaway: bool = True,
        interval: float = INTERVAL_S,
        quiet: int = 1,
        close: Callable[[int, tuple[str, int], bytes], bool] = close_connection,
    ) -> None:
        self.limit = limit
        self.goaway = goaway_frame() if goaway else b""  # not on TLS: the stream is TLS's
        self.interval = interval
        self.quiet = quiet
        self.close = close
        self.server_id = 0  # channelz id of the server (set by `create_server`)
        self.port = 0
        self.closed = 0  # connections closed so far
        self.readings = 0  # readings of every connection so far
        self._calls: int | None = None  # the server's unfinished calls at the last look
        self._failed: dict[int, tuple[int, int, float]] = {}  # id -> failed, succeeded, at
        self._closing: set[int] = set()  # socket ids closed here, until they are gone
        self._skip = 0
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._log = Repeated(log, "the rapid reset bound", quiet=(TooManyResets,))

    def start(self, port: int) -> None:
        """Watch the connections of the server (its gRPC port: `port`, for the log), from a
        thread of its own: a flood of resets keeps the event loop busy, not this."""
        self.port = port
        if self.limit > 0 and self.server_id and self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="kafana-resets", daemon=True)
            self._thread.start()

    async def stop(self) -> None:
        """Stop watching (the thread ends within one reading)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stopping.set()
            await asyncio.to_thread(thread.join, 5.0)

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stopping.wait(self.interval):
            now = time.monotonic()
            try:
                self.look(now - last)
            except Exception as error:  # never let the watch die: say so, go on
                self._log.failed(error)
            last = now

    def look(self, elapsed: float) -> None:
        """One look: the server's counters; the connections' only if they may be over."""
        calls = unfinished_calls(self.server_id)
        grew = calls - (calls if self._calls is None else self._calls)
        self._calls = calls
        if grew <= self.limit / 5 * max(elapsed, self.interval) and not self._failed:
            return  # no connection can be over the bound, and none is being followed
        if self._skip:
            self._skip -= 1
            return
        readings = server_connections(self.server_id)
        self.readings += 1
        self._judge(readings, time.monotonic())

    def over(self, failed: int, succeeded: int, seconds: float) -> bool:
        """Whether a connection that failed `failed` streams and finished `succeeded` in
        `seconds` is resetting too fast: past the bound, or past a fifth of it while nine in
        ten of its streams failed."""
        seconds = max(seconds, self.interval)
        if failed > self.limit * seconds:
            return True
        return failed > self.limit / 5 * seconds and succeeded * 9 < failed

    def _judge(self, readings: list[Reading], now: float) -> None:
        """Close the connections whose failed streams grew past the bound since the last
        reading; keep these readings for the next (none kept when nothing grew)."""
        kept: dict[int, tuple[int, int, float]] = {}
        closing: set[int] = set()
        compared = 0
        for socket_id, remote, failed, succeeded in readings:
            if socket_id in self._closing:  # closed, and still listed until core sees it
                closing.add(socket_id)
                continue
            before = self._failed.get(socket_id)
            kept[socket_id] = (failed, succeeded, now)
            if before is None:
                continue
            compared += 1
            grew, finished = failed - before[0], succeeded - before[1]
            if not self.over(grew, finished, now - before[2]):
                continue
            closing.add(socket_id)
            self.closed += 1
            metrics.REFUSALS.labels("resets").inc()
            closed = self.close(self.port, remote, self.goaway)
            self._log.failed(
                TooManyResets(
                    f"{remote[0]}:{remote[1]} failed {grew} streams in {now - before[2]:.1f} s"
                    f" ({finished} succeeded), over the bound of {self.limit} a second: "
                    + ("connection closed" if closed else "its socket was not found")
                )
            )
        self._closing = closing
        if compared and not closing:
            self._failed, self._skip = {}, self.quiet  # nobody over: rest a while
        else:
            self._failed = kept  # compared next look (bounded by the connections open)
