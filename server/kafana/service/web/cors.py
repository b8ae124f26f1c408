"""CORS for the HTTP endpoint: which web pages may call it from a browser.

Origins are listed (`kafana serve --http-origins`); `*` admits any page. With none listed (the
default) only the server's own pages may call, reached by its address or as localhost (the web
app at `/`, `pages.py`): a request that carries another `Origin` is refused (403) before it
reaches a handler, so a page on another site (or a DNS-rebinding name) cannot drive a server on
the visitor's machine or network. A server reached by a name lists its own origin. Credentials
are never ambient (no cookies: keys and tokens travel in headers the page sets), so
`Access-Control-Allow-Credentials` is never sent.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

ANY = "*"
METHODS = ("POST", "GET")  # Connect's GET is for side-effect-free methods only
PROTOCOL_HEADERS = frozenset(
    {
        "content-type",
        "connect-protocol-version",
        "connect-timeout-ms",
        "connect-accept-encoding",
        "connect-content-encoding",
        "grpc-timeout",
        "x-grpc-web",
        "x-user-agent",
        "authorization",  # Bearer <API key>
    }
)
"""Request headers a page may send besides `kafana-*` ones (the seat, admin, organiser and
entry tokens)."""
EXPOSED = (
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    "kafana-state-bin",
    "trailer-kafana-state-bin",
    "connect-content-encoding",
    "content-encoding",
)
"""Response headers a page may read: the gRPC-Web status and the state a STALE_SEQ refusal
carries (Connect sends unary trailers as `trailer-` headers)."""
MAX_AGE_S = 7200  # browsers cache a preflight this long at most


def parse_origins(text: str) -> tuple[str, ...]:
    """The origins of a comma list (`--http-origins`); ValueError for one that is not
    `scheme://host[:port]` or `*`.

    >>> parse_origins("https://a.example, http://localhost:5173")
    ('https://a.example', 'http://localhost:5173')
    >>> parse_origins("a.example")
    Traceback (most recent call last):
    ...
    ValueError: origin 'a.example' is not scheme://host[:port] (or *)
    """
    origins = tuple(part.strip().rstrip("/") for part in text.split(",") if part.strip())
    for origin in origins:
        scheme, sep, rest = origin.partition("://")
        if origin != ANY and (
            not sep or scheme not in ("http", "https") or not rest or "/" in rest
        ):
            raise ValueError(f"origin {origin!r} is not scheme://host[:port] (or *)")
    return origins


def host_name(host: str) -> str:
    """The name or address of a `Host` header value, without its port.

    >>> host_name("a.example:8080"), host_name("[::1]:8080"), host_name("127.0.0.1")
    ('a.example', '::1', '127.0.0.1')
    """
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def same_origin(scope: Scope, headers: dict[str, str]) -> bool:
    """Whether the call comes from a page this server served, reached by its address or as
    localhost (the `Origin` is the request's own scheme and `Host`). A page reached by another
    name must be listed: the name may be a DNS-rebinding page's, pointed at this server."""
    host = headers.get("host", "")
    if headers.get("origin") != f"{scope.get('scheme', 'http')}://{host}":
        return False
    name = host_name(host)
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_header(name: str) -> bool:
    """Whether a page may send request header `name`."""
    return name in PROTOCOL_HEADERS or name.startswith("kafana-")


class Cors:
    """ASGI middleware: preflights answered, listed origins admitted, others refused."""

    def __init__(self, app: App, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origins)
        self.any = ANY in self.origins

    def admits(self, origin: str) -> bool:
        """Whether a page of `origin` may call."""
        return self.any or origin in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer or refuse cross-origin requests; pass the others on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if origin is None or same_origin(scope, headers):  # not a cross-origin call
            await self.app(scope, receive, send)
            return
        preflight = scope["method"] == "OPTIONS" and "access-control-request-method" in headers
        if not self.admits(origin):
            await _plain(send, 403, f"origin {origin} may not call this server (--http-origins)")
            return
        if preflight:
            await self._preflight(send, origin, headers)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", ()), *self._common(origin)]
                message["headers"].append(
                    (b"access-control-expose-headers", ", ".join(EXPOSED).encode())
                )
            await send(message)

        await self.app(scope, receive, with_cors)

    def _common(self, origin: str) -> list[tuple[bytes, bytes]]:
        if self.any:
            return [(b"access-control-allow-origin", b"*")]
        return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]

    async def _preflight(self, send: Send, origin: str, headers: dict[str, str]) -> None:
        method = headers["access-control-request-method"].strip().upper()
        asked = [
            h.strip().lower() for h in headers.get("access-control-request-headers", "").split(",")
        ]
        refused = [h for h in asked if h and not allowed_header(h)]
        if method not in METHODS or refused:
            what = f"method {method}" if method not in METHODS else f"headers {', '.join(refused)}"
            await _plain(send, 403, f"{what} may not be sent to this server")
            return
        granted = ", ".join(h for h in asked if h)
        response = [
            *self._common(origin),
            (b"access-control-allow-methods", ", ".join(METHODS).encode()),
            (b"access-control-allow-headers", granted.encode("latin-1")),
            (b"access-control-max-age", str(MAX_AGE_S).encode()),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": response})
        await send({"type": "http.response.body", "body": b""})


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
