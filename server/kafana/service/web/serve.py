"""The HTTP listener of `kafana serve --http`: hypercorn on the server's own event loop.

Bound when the server is made (so the port is known, and a taken one refused, before it
starts), serving until `stop`, which lets running calls finish for the grace period.
"""

from __future__ import annotations

import asyncio
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
from kafana.service.web.listener import Listener, listener

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


class Bounded:
    """ASGI middleware: a request whose headers are over `MAX_HEADER_BYTES` is refused (431);
    one whose body has not arrived whole within `body_timeout` seconds is refused (408).

    hypercorn bounds only a header block still incomplete (`h11_max_incomplete_size`); one that
    arrives whole in a read (up to 64 KB) would pass. It bounds no body in time: a body that
    never ends kept its connection for ever."""

    def __init__(
        self, app: App, limit: int = MAX_HEADER_BYTES, body_timeout: float = BODY_TIMEOUT_S
    ) -> None:
        self.app = app
        self.limit = limit
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse headers over the limit; pass the rest on."""
        if scope["type"] == "http":
            size = sum(len(name) + len(value) for name, value in scope["headers"])
            if size > self.limit:
                text = f"request headers are {size} bytes: this server takes at most {self.limit}"
                body = text.encode()
                headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
                await send({"type": "http.response.start", "status": 431, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await self._timed(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _timed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request with its body bounded in time: past the deadline the app is told the
        client left, and the client gets 408 instead of the app's answer (if nothing was
        answered yet), and its connection is closed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout
        state = {"body": False, "started": False, "late": False}

        async def timed_receive() -> Message:
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
            return message

        async def watched_send(message: Message) -> None:
            if state["late"] and not state["started"]:
                return  # the app's answer to a client gone ("canceled"): 408 instead
            if message.get("type") == "http.response.start":
                state["started"] = True
            await send(message)

        await self.app(scope, timed_receive, watched_send)
        if state["late"] and not state["started"]:
            text = f"the request body did not arrive within {self.body_timeout:g} s"
            body = text.encode()
            headers = [
                (b"content-type", b"text/plain"),
                (b"content-length", b"%d" % len(body)),
                (b"connection", b"close"),
            ]
            await send({"type": "http.response.start", "status": 408, "headers": headers})
            await send({"type": "http.response.body", "body": body})


class HttpServer:
    """Serves the ASGI `app` on a socket bound now, from `start` until `stop`."""

    def __init__(self, app: App, host: str, port: int, tls: HttpTls | None = None) -> None:
        self.app = Bounded(app)
        self.host = host
        self.tls = tls
        self._socket: Listener | None = listener(bind(host, port))  # bounded connections
        self.port: int = self._socket.getsockname()[1]
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._config: Config | None = None
        self.header_timeout = HEADER_TIMEOUT_S
        self.flood = FloodFilter()  # on the loggers of `FLOODED` while serving

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
        for name in FLOODED:
            logging.getLogger(name).addFilter(self.flood)
        self._config = config = self.config()
        sock, self._socket = self._socket, None  # hypercorn owns the socket now
        # hypercorn's `serve` with the socket given (it would make its own from `bind`)
        sockets = Sockets([sock], [], []) if config.ssl_enabled else Sockets([], [sock], [])
        app = wrap_app(self.app, config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
        self._task = asyncio.create_task(
            worker_serve(app, config, sockets=sockets, shutdown_trigger=self._stopping.wait),
            name="kafana-http",
        )
        await asyncio.sleep(0)  # let it take the socket

    async def stop(self, grace: float | None = 5.0) -> None:
        """Accept no more connections; wait up to `grace` seconds for the calls running."""
        if self._config is not None:
            self._config.graceful_timeout = 0.0 if grace is None else grace
        self._stopping.set()
        for name in FLOODED:
            logging.getLogger(name).removeFilter(self.flood)
        if self._task is not None:
            task, self._task = self._task, None
            await task
        elif self._socket is not None:
            self._socket.close()
            self._socket = None
