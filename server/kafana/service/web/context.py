"""A grpc.aio `ServicerContext` answered from an HTTP call: what the gRPC handlers ask of theirs.

The servicers and interceptors take `(request, context)` and read the call metadata, the peer,
the deadline; they refuse with `context.abort`, set trailing metadata and stream with
`context.write`. This context answers all of it from a Connect or gRPC-Web request: metadata
from the request headers, the peer from the connection, `abort` as an `Aborted` the adapter
turns into the protocol's error, `write` into a bounded queue the response stream drains.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

import grpc  # type: ignore[import-untyped, unused-ignore]
from connectrpc.request import RequestContext

Metadata = tuple[tuple[str, str | bytes], ...]
NOT_METADATA = frozenset(
    {
        # the transport's and the protocols' own headers, not call metadata
        "host",
        "connection",
        "keep-alive",
        "upgrade",
        "transfer-encoding",
        "te",
        "content-type",
        "content-length",
        "content-encoding",
        "accept",
        "accept-encoding",
        "origin",
        "referer",
        "cookie",  # never ambient credentials: auth travels in explicit headers only
        "connect-protocol-version",
        "connect-timeout-ms",
        "connect-content-encoding",
        "connect-accept-encoding",
        "grpc-timeout",
        "grpc-encoding",
        "grpc-accept-encoding",
        "x-grpc-web",
        "x-user-agent",
    }
)


class Aborted(grpc.aio.AbortError):  # type: ignore[misc, unused-ignore]
    """`context.abort` over HTTP: the status the call ends with (the servicers re-raise it)."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: Metadata) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
        self.trailing = trailing


def unbase64(text: str) -> bytes | None:
    """The bytes of a `-bin` header (base64, padded or not); None if it is not base64.

    >>> unbase64("a2Fm"), unbase64("a2FmYQ"), unbase64("!")
    (b'kaf', b'kafa', None)
    """
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def call_metadata(headers: Iterable[tuple[str, str]]) -> Metadata:
    """The gRPC metadata of an HTTP request's headers (`-bin` values decoded to bytes)."""
    found: list[tuple[str, str | bytes]] = []
    for name, value in headers:
        key = name.lower()
        if key in NOT_METADATA or key.startswith(":"):
            continue
        if key.endswith("-bin"):
            data = unbase64(value)
            if data is not None:
                found.append((key, data))
        else:
            found.append((key, value))
    return tuple(found)


def grpc_peer(client: str | None) -> str:
    """The peer as grpc-python names it, from an HTTP `host:port` client address.

    >>> grpc_peer("127.0.0.1:5000"), grpc_peer("::1:5000"), grpc_peer(None)
    ('ipv4:127.0.0.1:5000', 'ipv6:%5B::1%5D:5000', 'unknown')
    """
    if not client:
        return "unknown"
    host, _, port = client.rpartition(":")
    if ":" in host:
        return f"ipv6:%5B{host}%5D:{port}"
    return f"ipv4:{host}:{port}"


class HttpContext(grpc.aio.ServicerContext[Any, Any]):  # type: ignore[misc, unused-ignore]
    """The context of one HTTP call, as a gRPC handler sees it."""

    def __init__(self, request: RequestContext[Any, Any], queue_size: int = 1) -> None:
        self.request = request
        self.metadata = call_metadata(request.request_headers.allitems())
        self.peer_name = grpc_peer(request.client_address)
        self.status: grpc.StatusCode | None = None
        self.message: str | None = None
        self.trailing: Metadata = ()
        self.initial: Metadata = ()
        # What a streaming handler writes, drained by the response (None: the end).
        self.written: asyncio.Queue[Any] = asyncio.Queue(maxsize=queue_size)
        self.finished = False
        self.callbacks: list[Callable[[Any], None]] = []

    # -- what the call carries
    def invocation_metadata(self) -> Any:  # Metadata
        """The request's metadata (its headers, less the protocols' own)."""
        return self.metadata

    def peer(self) -> str:
        """The caller's address, as gRPC writes it (`ipv4:127.0.0.1:5678`)."""
        return self.peer_name

    def time_remaining(self) -> Any:  # float | None
        """Seconds left before the call's deadline (None: no deadline, as grpc says)."""
        left = self.request.timeout_ms
        return None if left is None else max(0.0, left / 1000)

    def peer_identities(self) -> None:
        """No TLS client identity over HTTP."""
        return None

    def peer_identity_key(self) -> None:
        """No TLS client identity over HTTP."""
        return None

    def auth_context(self) -> dict[str, Any]:
        """No transport security properties over HTTP."""
        return {}

    # -- how it ends
    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Any = (),  # Sequence[tuple[str, str | bytes]]
    ) -> NoReturn:
        """End the call with `code`: raises `Aborted`, which the adapter answers."""
        self.status, self.message = code, details
        trailing = tuple(trailing_metadata) or self.trailing
        raise Aborted(code, details, trailing)

    async def abort_with_status(self, status: Any) -> NoReturn:  # grpc.Status
        """`abort` with a grpc.Status (grpcio-status' `rpc_status.to_status`)."""
        await self.abort(status.code, status.details, status.trailing_metadata)
        raise AssertionError("unreachable: abort raises")

    def set_code(self, code: grpc.StatusCode) -> None:
        """The status the call ends with when the handler returns."""
        self.status = code

    def set_details(self, details: str) -> None:
        """The status message the call ends with."""
        self.message = details

    def code(self) -> Any:  # grpc.StatusCode | None
        """The status set so far (None: none)."""
        return self.status

    def details(self) -> Any:  # str | None
        """The status message set so far."""
        return self.message

    def set_trailing_metadata(self, trailing_metadata: Any) -> None:
        """Metadata sent when the call ends (HTTP trailers, or trailer- headers)."""
        self.trailing = tuple(trailing_metadata)

    def trailing_metadata(self) -> Any:  # Metadata
        """The trailing metadata set so far."""
        return self.trailing

    async def send_initial_metadata(self, initial_metadata: Any) -> None:
        """Metadata sent as response headers (before the first message)."""
        self.initial = self.initial + tuple(initial_metadata)

    # -- messages
    async def write(self, message: Any) -> None:
        """Send one message of a server stream (waits while the client is behind)."""
        await self.written.put(message)

    async def read(self) -> NoReturn:
        """No method of Kafana's streams requests."""
        raise NotImplementedError("client streams are not served over HTTP")

    def set_compression(self, compression: grpc.Compression) -> None:
        """The HTTP protocols negotiate compression themselves."""

    def disable_next_message_compression(self) -> None:
        """The HTTP protocols negotiate compression themselves."""

    # -- its life
    def done(self) -> bool:
        """Whether the call has ended."""
        return self.finished

    def cancelled(self) -> bool:
        """Whether the client went away before the end (HTTP: the call is cancelled)."""
        return self.finished and self.status == grpc.StatusCode.CANCELLED

    def add_done_callback(self, callback: Any) -> None:  # Callable[[HttpContext], None]
        """Call `callback(self)` when the call ends."""
        self.callbacks.append(callback)

    def end(self, status: grpc.StatusCode | None = None) -> None:
        """The call is over (`status` if it was cut short): run the done callbacks."""
        if self.finished:
            return
        if status is not None:
            self.status = status
        self.finished = True
        for callback in self.callbacks:
            callback(self)
