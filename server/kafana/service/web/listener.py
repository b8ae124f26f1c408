"""The `--http` listening socket: a bounded number of connections, in all and per address.

hypercorn accepts every connection it is offered; 1,100 slow ones used every file descriptor
of the process (1,024), and the gRPC port of the same process stopped answering. `Listener`
is the listening socket hypercorn serves on: past `MAX_CONNECTIONS` open connections (at most
a quarter of the process's file descriptors), or `MAX_PER_ADDRESS` from one address, a new
connection is accepted and closed at once, so the kernel's queue does not fill and the
descriptors left stay for gRPC, Redis and the rest.

Each connection also notes when a byte last went either way (`Connection.last`), and since when
it has had no request in flight (`Connection.free`, kept by the app's `Bounded` through
`Counts.began` / `Counts.ended`), so that one idle either way for a while can be closed
(`Counts.idle`, `HttpServer`'s reaper): hypercorn stops its own idle timer once an HTTP/2
connection has begun (PINGs kept one open for good), and bounds no answer a client never reads.
"""

from __future__ import annotations

import resource
import socket
import time
from typing import Any

MAX_CONNECTIONS = 1024
"""HTTP connections open at once (fewer if the process may open few files: see `budget`)."""
MAX_PER_ADDRESS = 128
"""HTTP connections open at once from one address (a browser opens up to 6; NATs share)."""


def budget(limit: int = MAX_CONNECTIONS, share: int = 4) -> int:
    """`limit`, or a `share`-th of the file descriptors the process may open if that is less
    (the gRPC port takes half, `kafana.service.server`; this one a quarter)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limit
    return max(1, min(limit, soft // share))


class Counts:
    """Open connections, in all and by address."""

    def __init__(self, limit: int, per_address: int) -> None:
        self.limit = limit
        self.per_address = per_address
        self.by_address: dict[str, int] = {}  # bounded by `limit` entries
        self.connections: set[Connection] = set()  # those admitted and not closed
        self.peers: dict[tuple[str, int], Connection] = {}  # the same, by the client's address
        self.refused = 0

    @property
    def open(self) -> int:
        """Connections admitted and not closed."""
        return len(self.connections)

    def idle(self, since: float) -> list[Connection]:
        """The open connections on which no byte has moved since `since` (monotonic), or that
        have had no request in flight since then (whatever control frames they sent)."""
        return [
            c for c in self.connections if c.last < since or (not c.requests and c.free < since)
        ]

    def began(self, peer: tuple[str, int]) -> None:
        """A request from `peer` (the ASGI scope's "client") is in flight."""
        conn = self.peers.get(peer)
        if conn is not None:
            conn.requests += 1

    def ended(self, peer: tuple[str, int]) -> None:
        """A request from `peer` is over."""
        conn = self.peers.get(peer)
        if conn is not None and conn.requests > 0:
            conn.requests -= 1
            if not conn.requests:
                conn.free = time.monotonic()

    def admit(self, conn: Connection) -> bool:
        """Count `conn` (from `conn.address`) in, or False if it would be over a bound."""
        here = self.by_address.get(conn.address, 0)
        if self.open >= self.limit or here >= self.per_address:
            self.refused += 1
            return False
        self.connections.add(conn)
        self.peers[conn.peer] = conn
        self.by_address[conn.address] = here + 1
        return True

    def release(self, conn: Connection) -> None:
        """`conn` closed."""
        self.connections.discard(conn)
        if self.peers.get(conn.peer) is conn:
            del self.peers[conn.peer]
        left = self.by_address.get(conn.address, 0) - 1
        if left > 0:
            self.by_address[conn.address] = left
        else:
            self.by_address.pop(conn.address, None)


class Connection(socket.socket):
    """An accepted connection that gives its place back when it is closed, and notes when a
    byte last went either way (`last`; asyncio's transports read and write through these
    methods) and how many requests it has in flight (`requests`), none since `free`."""

    counts: Counts | None = None
    address = ""
    peer: tuple[str, int] = ("", 0)  # (address, port): the ASGI scope's "client"
    last = 0.0
    requests = 0
    free = 0.0

    def moved(self, count: int) -> int:
        """Note `count` bytes moved (none: nothing noted); `count`."""
        if count:
            self.last = time.monotonic()
        return count

    def recv(self, size: int, *flags: int) -> bytes:
        """`socket.recv`, noted."""
        data = super().recv(size, *flags)
        self.moved(len(data))
        return data

    def recv_into(self, buffer: Any, *args: int) -> int:
        """`socket.recv_into`, noted."""
        return self.moved(super().recv_into(buffer, *args))

    def send(self, data: Any, *flags: int) -> int:
        """`socket.send`, noted."""
        return self.moved(super().send(data, *flags))

    def sendmsg(self, buffers: Any, *args: Any) -> int:
        """`socket.sendmsg`, noted."""
        return self.moved(super().sendmsg(buffers, *args))

    def close(self) -> None:
        """Close it (its place is given back once)."""
        counts, self.counts = self.counts, None
        if counts is not None:
            counts.release(self)
        super().close()


class Listener(socket.socket):
    """A listening socket whose `accept` keeps to `counts` (asyncio calls it)."""

    counts: Counts

    def accept(self) -> tuple[socket.socket, Any]:
        """The next connection; one over a bound is closed and ConnectionAbortedError raised
        (asyncio then waits for the next one, as for a connection the client aborted)."""
        fd, where = self._accept()  # type: ignore[attr-defined]
        conn = Connection(self.family, self.type, self.proto, fileno=fd)
        conn.address = str(where[0]) if isinstance(where, tuple) else str(where)
        conn.peer = (conn.address, int(where[1]) if isinstance(where, tuple) else 0)
        conn.last = conn.free = time.monotonic()
        if not self.counts.admit(conn):
            socket.socket.close(conn)
            raise ConnectionAbortedError(f"too many HTTP connections ({conn.address})")
        conn.counts = self.counts
        return conn, where


def listener(
    sock: socket.socket, limit: int | None = None, per_address: int = MAX_PER_ADDRESS
) -> Listener:
    """The bound socket `sock` as a `Listener` (`sock` is detached: use the result)."""
    bounded = Listener(sock.family, sock.type, sock.proto, fileno=sock.detach())
    bounded.counts = Counts(budget() if limit is None else limit, per_address)
    return bounded
