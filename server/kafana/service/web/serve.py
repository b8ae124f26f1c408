"""The HTTP listener of `kafana serve --http`: hypercorn on the server's own event loop.

Bound when the server is made (so the port is known, and a taken one refused, before it
starts), serving until `stop`, which lets running calls finish for the grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass

from hypercorn.asyncio.run import worker_serve
from hypercorn.config import Config, Sockets
from hypercorn.utils import wrap_app

from kafana.logs import INTERVAL_S
from kafana.service.web.cors import App, Message, Receive, Scope, Send
from kafana.service.web.listener import Counts, Listener, listener

log = logging.getLogger("kafana.http")
BACKLOG = 128
MAX_HEADER_BYTES = 16 * 1024
"""Bytes of a request's headers (names and values) before it is refused (gRPC's own hard
limit on metadata): 431, before any handler runs."""
BODY_TIMEOUT_S = 10.0
"""Seconds a request's body may take to arrive whole, from its headers: then 408, and the
connection is closed."""
HEADER_TIMEOUT_S = 5.0
"""Seconds a connection may wait with no request under way (a request's headers incomplete,
or kept alive between requests): then it is closed (hypercorn's keep-alive timeout)."""
IDLE_TIMEOUT_S = 30.0
"""Seconds a connection may go with no byte moving either way, whatever it is doing, or with no
request in flight, whatever control frames (PINGs) it sends: then it is closed. hypercorn's own
timer stops once an HTTP/2 connection has begun (24 bytes of preface, or PINGs, held a place for
good) and none bounds an answer the client never reads (a zero flow-control window held every
answer in memory). Streams send a heartbeat every 5 s at most."""
BODY_PARTS = 64
"""Parts (HTTP/1.1 chunks or reads, HTTP/2 DATA frames) a request's body may come in whatever
their size: a real client sends a body in few."""
PART_BYTES = 512
"""Bytes a body's parts past the first `BODY_PARTS` bring on average at least (a TCP segment
holds more): a body in smaller parts is refused (413), so its CPU stays in proportion to its
bytes (300,000 one-byte chunks took 3.57 s; 150,000 empty HTTP/2 DATA frames 1.98 s)."""
H2_STREAMS = 32
"""HTTP/2 requests at once on one connection (hypercorn's default: 100): with the static files
sent in chunks, what one connection can hold unread in memory is about this many times 48 KB."""


FLOOD_LINES = 10
"""Lines one logger of the HTTP listener (hypercorn's, asyncio's) writes per `INTERVAL_S`;
past it, one line says how many were dropped."""


class FloodFilter(logging.Filter):
    """Lets through at most `lines` records per `interval` seconds, then one that counts the
    ones dropped: a flood of connections (accept failures, broken handshakes) writes a few
    lines, not one per connection."""

    def __init__(
        self,
        lines: int = FLOOD_LINES,
        interval: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.lines = lines
        self.interval = interval
        self.clock = clock
        self.started = -interval
        self.passed = 0
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether `record` is written (a dropped count goes with the first one let through)."""
        now = self.clock()
        if now - self.started >= self.interval:
            if self.dropped:
                record.msg = f"{record.getMessage()} ({self.dropped} similar lines dropped)"
                record.args = ()
            self.started, self.passed, self.dropped = now, 0, 0
        if self.passed >= self.lines:
            self.dropped += 1
            return False
        self.passed += 1
        return True


FLOODED = ("kafana.http", "asyncio")
"""The loggers a flood of HTTP connections writes to."""


@dataclass(frozen=True)
class HttpTls:
    """The certificate and key of the HTTPS listener (and a CA for client certificates)."""

    cert: str
    key: str
    client_ca: str | None = None


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free one); OSError if it cannot be."""
    family, kind, proto, _name, where = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(where)
        sock.listen(BACKLOG)  # connections wait in the backlog until the server starts
    except OSError:
        sock.close()
        raise
    return sock


async def refuse(send: Send, status: int, text: str) -> None:
    """Answer `status` with `text` (plain), before any handler runs."""
    body = text.encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class NotReading(ConnectionError):
    """A part of an answer waited `IDLE_TIMEOUT_S` for the client to take it: the app's send
    fails, so the request ends (hypercorn waited for good, the answer held in memory)."""


class Bounded:
    """ASGI middleware: a request whose headers are over `MAX_HEADER_BYTES` is refused (431), as
    is one with a header value that is not UTF-8 (400); one whose body has not arrived whole
    within `body_timeout` seconds is refused (408), as is one whose body comes in parts too
    many for its bytes (413: `BODY_PARTS`, `PART_BYTES`); a WebSocket is refused (403); a part
    of an answer the client has not taken within `idle_timeout` seconds fails the app's send
    (`NotReading`).

    hypercorn bounds only a header block still incomplete (`h11_max_incomplete_size`); one that
    arrives whole in a read (up to 64 KB) would pass. It bounds no body in time: a body that
    never ends kept its connection for ever.

    With `counts` (the listener's), the requests in flight on each connection are counted
    there, so that one with none for `idle_timeout` seconds is closed (`HttpServer._reap`)."""

    def __init__(
        self,
        app: App,
        limit: int = MAX_HEADER_BYTES,
        body_timeout: float = BODY_TIMEOUT_S,
        idle_timeout: float = IDLE_TIMEOUT_S,
    ) -> None:
        self.app = app
        self.limit = limit
        self.body_timeout = body_timeout
        self.idle_timeout = idle_timeout
        self.counts: Counts | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse WebSockets, and headers over the limit; pass the rest on."""
        if scope["type"] == "websocket":  # (no route takes one: the app raised, 500 logged)
            await send({"type": "websocket.close", "code": 1008})  # hypercorn answers 403
            return
        if scope["type"] == "http":
            client = scope.get("client")
            peer = None if client is None else (str(client[0]), int(client[1]))
            if self.counts is not None and peer is not None:
                self.counts.began(peer)
            try:
                await self._http(scope, receive, send)
            finally:
                if self.counts is not None and peer is not None:
                    self.counts.ended(peer)
            return
        await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request: headers over the limit, or not UTF-8, refused; the rest timed."""
        size = sum(len(name) + len(value) for name, value in scope["headers"])
        if size > self.limit:
            text = f"request headers are {size} bytes: this server takes at most {self.limit}"
            await refuse(send, 431, text)
            return
        for name, value in scope["headers"]:
            try:
                value.decode()
            except UnicodeDecodeError:  # (the RPC routes read them as UTF-8: a 500 before)
                await refuse(send, 400, f"request header {name.decode('latin-1')!r} is not UTF-8")
                return
        await self._timed(scope, receive, send)

    async def _timed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request with its body bounded in time and in parts: past the deadline, or past
        the parts its bytes allow, the app is told the client left, and the client gets 408 or
        413 instead of the app's answer (if nothing was answered yet), and its connection is
        closed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout
        state = {"body": False, "started": False, "late": False, "parts": False}
        parts = received = 0

        async def timed_receive() -> Message:
            nonlocal parts, received
            if state["parts"]:
                return {"type": "http.disconnect"}  # the rest of the body is not read
            if state["body"] or state["late"]:
                return await receive()  # the body is in: no bound on waiting for the end
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                state["late"] = True
                return {"type": "http.disconnect"}
            if message.get("type") != "http.request" or not message.get("more_body", False):
                state["body"] = True
            elif message.get("type") == "http.request":
                parts += 1
                received += len(message.get("body", b""))
                if parts > BODY_PARTS + received // PART_BYTES:
                    state["parts"] = True
                    return {"type": "http.disconnect"}
            return message

        async def watched_send(message: Message) -> None:
            if (state["late"] or state["parts"]) and not state["started"]:
                return  # the app's answer to a client gone ("canceled"): 408 or 413 instead
            if message.get("type") == "http.response.start":
                state["started"] = True
            try:
                async with asyncio.timeout(self.idle_timeout):
                    await send(message)
            except TimeoutError:  # (ASGI: a send to a client gone raises an OSError)
                raise NotReading(f"the client took nothing for {self.idle_timeout:g} s") from None

        try:
            await self.app(scope, timed_receive, watched_send)
        except NotReading:  # the answer is given up: nothing to log, the client left it
            return
        if state["started"]:
            return
        if state["late"]:
            status, text = 408, f"the request body did not arrive within {self.body_timeout:g} s"
        elif state["parts"]:
            text = f"the request body came in {parts} parts of {received} bytes in all: too many"
            status = 413
        else:
            return
        body = text.encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
        if scope.get("http_version") != "2":  # (HTTP/2 has no such header: the stream ends)
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class HttpServer:
    """Serves the ASGI `app` on a socket bound now, from `start` until `stop`."""

    def __init__(self, app: App, host: str, port: int, tls: HttpTls | None = None) -> None:
        self.app = Bounded(app)
        self.host = host
        self.tls = tls
        self._socket: Listener | None = listener(bind(host, port))  # bounded connections
        self.counts = self._socket.counts
        self.app.counts = self.counts  # requests in flight per connection, for `_reap`
        self.port: int = self._socket.getsockname()[1]
        self._reaper: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._config: Config | None = None
        self.header_timeout = HEADER_TIMEOUT_S
        # one a logger of `FLOODED` while serving (asyncio's, process-wide, used up the lines
        # of the listener's own when they shared one)
        self.floods = {name: FloodFilter() for name in FLOODED}

    @property
    def url(self) -> str:
        """Where browsers and HTTP clients call it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def config(self) -> Config:
        """hypercorn's settings: bounded headers and waits, no server banner."""
        config = Config()
        config.backlog = BACKLOG
        config.h11_max_incomplete_size = MAX_HEADER_BYTES
        config.keep_alive_timeout = self.header_timeout
        config.h2_max_concurrent_streams = H2_STREAMS
        config.include_server_header = False
        config.accesslog = None
        config.errorlog = log
        if self.tls is not None:
            config.certfile, config.keyfile = self.tls.cert, self.tls.key
            if self.tls.client_ca is not None:
                config.ca_certs = self.tls.client_ca
                config.verify_mode = ssl.CERT_REQUIRED
        return config

    async def start(self) -> None:
        """Serve (in a task of the running loop)."""
        if self._socket is None:
            raise RuntimeError("the HTTP server was started already")
        for name, flood in self.floods.items():
            logging.getLogger(name).addFilter(flood)
        self._config = config = self.config()
        sock, self._socket = self._socket, None  # hypercorn owns the socket now
        # hypercorn's `serve` with the socket given (it would make its own from `bind`)
        sockets = Sockets([sock], [], []) if config.ssl_enabled else Sockets([], [sock], [])
        app = wrap_app(self.app, config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
        self._task = asyncio.create_task(
            worker_serve(app, config, sockets=sockets, shutdown_trigger=self._stopping.wait),
            name="kafana-http",
        )
        self._reaper = asyncio.create_task(self._reap(), name="kafana-http-idle")
        await asyncio.sleep(0)  # let it take the socket

    async def _reap(self) -> None:
        """Close every connection idle for the app's `idle_timeout` (no byte moved, or no request
        in flight: `Counts.idle`; checked every second at least): shut down, so hypercorn sees
        it end and lets go of what it held for it."""
        while True:
            idle = self.app.idle_timeout
            await asyncio.sleep(min(1.0, idle / 4))
            for conn in self.counts.idle(time.monotonic() - idle):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)

    async def stop(self, grace: float | None = 5.0) -> None:
        """Accept no more connections; wait up to `grace` seconds for the calls running."""
        if self._config is not None:
            self._config.graceful_timeout = 0.0 if grace is None else grace
        self._stopping.set()
        if self._reaper is not None:
            self._reaper.cancel()
        try:
            if self._task is not None:
                task, self._task = self._task, None
                await task
            elif self._socket is not None:
                self._socket.close()
                self._socket = None
        finally:  # the bound stays on while the connections end (one line each, else)
            for name, flood in self.floods.items():
                logging.getLogger(name).removeFilter(flood)
