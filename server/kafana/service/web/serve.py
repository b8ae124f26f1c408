"""The HTTP listener of `kafana serve --http`: hypercorn on the server's own event loop.

Bound when the server is made (so the port is known, and a taken one refused, before it
starts), serving until `stop`, which lets running calls finish for the grace period.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from dataclasses import dataclass

from hypercorn.asyncio import serve
from hypercorn.config import Config

from kafana.service.web.cors import App, Receive, Scope, Send

log = logging.getLogger("kafana.http")
BACKLOG = 128
MAX_HEADER_BYTES = 16 * 1024
"""Bytes of a request's headers (names and values) before it is refused (gRPC's own hard
limit on metadata): 431, before any handler runs."""


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
    """ASGI middleware: a request whose headers are over `MAX_HEADER_BYTES` is refused (431).

    hypercorn bounds only a header block still incomplete (`h11_max_incomplete_size`); one that
    arrives whole in a read (up to 64 KB) would pass."""

    def __init__(self, app: App, limit: int = MAX_HEADER_BYTES) -> None:
        self.app = app
        self.limit = limit

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
        await self.app(scope, receive, send)


class HttpServer:
    """Serves the ASGI `app` on a socket bound now, from `start` until `stop`."""

    def __init__(self, app: App, host: str, port: int, tls: HttpTls | None = None) -> None:
        self.app = Bounded(app)
        self.host = host
        self.tls = tls
        self._socket: socket.socket | None = bind(host, port)
        self.port: int = self._socket.getsockname()[1]
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._config: Config | None = None

    @property
    def url(self) -> str:
        """Where browsers and HTTP clients call it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def config(self) -> Config:
        """hypercorn's settings: this socket, bounded headers, no server banner."""
        if self._socket is None:
            raise RuntimeError("the HTTP server was started already")
        config = Config()
        config.bind = [f"fd://{self._socket.detach()}"]  # hypercorn owns the socket now
        self._socket = None
        config.backlog = BACKLOG
        config.h11_max_incomplete_size = MAX_HEADER_BYTES
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
        self._config = config = self.config()
        self._task = asyncio.create_task(
            serve(self.app, config, shutdown_trigger=self._stopping.wait, mode="asgi"),  # type: ignore[arg-type]
            name="kafana-http",
        )
        await asyncio.sleep(0)  # let it take the socket

    async def stop(self, grace: float | None = 5.0) -> None:
        """Accept no more connections; wait up to `grace` seconds for the calls running."""
        if self._config is not None:
            self._config.graceful_timeout = 0.0 if grace is None else grace
        self._stopping.set()
        if self._task is not None:
            task, self._task = self._task, None
            await task
        elif self._socket is not None:
            self._socket.close()
            self._socket = None
