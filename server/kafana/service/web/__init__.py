"""Browser reach: the server's gRPC services over Connect and gRPC-Web (`kafana serve --http`).

The same process, event loop, domain objects and interceptors as the gRPC port: an HTTP call is
a gRPC call made another way (`adapter`; the event feeds also as Server-Sent Events, `sse`),
behind CORS (`cors`), served by hypercorn (`serve`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kafana.service.web.adapter import Bridge, KafanaApplication, Registry, services_named
from kafana.service.web.cors import Cors, parse_origins
from kafana.service.web.details import ReadableDetails
from kafana.service.web.pages import Pages
from kafana.service.web.serve import HttpServer, HttpTls
from kafana.service.web.sse import EventStreams, methods_of

DEFAULT_READ_BYTES = 4 * 1024 * 1024
"""Request bytes read when the server sets no message limit (gRPC's own default)."""

__all__ = ["HttpServer", "HttpTls", "Registry", "http_server", "parse_origins"]


def http_server(
    registry: Registry,
    interceptors: Sequence[Any],
    services: Iterable[str],
    host: str,
    port: int,
    *,
    origins: Iterable[str] = (),
    message_bytes: int = 0,
    tls: HttpTls | None = None,
) -> HttpServer:
    """An HTTP server (bound, not started) for `services`, through the gRPC `interceptors`.

    Requests up to twice `message_bytes` are read, as on the gRPC port, so the guard refuses
    the too large ones with their reason; larger ones are refused unread.
    """
    bridge = Bridge(registry, interceptors)
    read = 2 * message_bytes if message_bytes else DEFAULT_READ_BYTES
    descriptors = services_named(services)
    app = KafanaApplication(bridge, descriptors, read_max_bytes=read)
    readable = ReadableDetails(app)  # JSON errors: details as JSON too (`debug`)
    feeds = EventStreams(readable, bridge, methods_of(descriptors))  # the feeds as SSE too
    return HttpServer(Pages(Cors(feeds, origins)), host, port, tls)  # Pages: the web app
