"""A server interceptor in front of the Kafana service: undecodable requests and rate limits.

Both refusals use the same trailing metadata as the domain errors (`kafana-error`, see
`kafana.service.errors`):

- a request that is not a valid protobuf message of the method's type (random bytes, a string
  field that is not UTF-8) is `INVALID_ARGUMENT`, reason `InvalidInputError` (grpc alone would
  answer `INTERNAL`);
- a client over its rate limit is `RESOURCE_EXHAUSTED`, reason `RateLimited`, with the
  milliseconds to wait in `retry-after-ms`;
- a client with `max_streams` event streams open already is `RESOURCE_EXHAUSTED`, reason
  `TooManyStreams` (close one first).

A client is its seat or admin token when the request carries one (each seat has its own
budget), else its network address. A call whose token turns out wrong (`UNAUTHENTICATED`,
`PERMISSION_DENIED`) is charged to its address as well, and an address out of budget is refused
whatever token it sends: made-up tokens buy no fresh budgets. Health checks and reflection are
not limited.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import InvalidInputError
from kafana.service.errors import refuse
from kafana.service.ratelimit import RateLimit, RateLimiter
from kafana.v1 import service_pb2

RETRY_AFTER_METADATA = "retry-after-ms"
RATE_LIMITED = "RateLimited"
TOO_MANY_STREAMS = "TooManyStreams"
BAD_TOKEN = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
PREFIX = "/" + service_pb2.DESCRIPTOR.services_by_name["Kafana"].full_name + "/"

Context = grpc.aio.ServicerContext[Any, Any]
Behavior = Callable[..., Any]  # grpc's stubs type handlers as sync ones


class Undecodable:
    """What the request deserializer returns instead of raising for bytes it cannot parse."""

    def __init__(self, type_name: str, error: Exception) -> None:
        self.message = f"the request is not a valid {type_name} message ({type(error).__name__})"


def address_key(context: Context) -> str:
    """The rate-limit key of the peer's address (without its port)."""
    peer = context.peer() or ""
    host = peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer  # ipv4:1.2.3.4:port
    return "p:" + host


def client_key(request: Any, context: Context) -> str:
    """The rate-limit key: a digest of the request's token, else the peer's address.

    The token itself is never kept: only a short digest of it.
    """
    token = getattr(request, "seat_token", "") or getattr(request, "admin_token", "")
    if isinstance(token, str) and token:
        return "t:" + hashlib.blake2b(token.encode(), digest_size=12).hexdigest()
    return address_key(context)


class Guard(grpc.aio.ServerInterceptor):  # type: ignore[misc, unused-ignore]
    """Wraps every Kafana method handler: safe decoding, then the rate limit."""

    def __init__(self, limit: RateLimit) -> None:
        self.limiter = RateLimiter(limit)
        self.streams: dict[str, int] = {}  # open event streams by client key
        # method -> (its handler, the guarded handler): wrapped once, not on every call
        self._guarded: dict[str, tuple[Any, grpc.RpcMethodHandler[Any, Any]]] = {}

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        """The method's handler, wrapped when it is one of the Kafana service's."""
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(PREFIX):
            return handler
        known = self._guarded.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        guarded = self._guard(handler, method[len(PREFIX) :])
        self._guarded[method] = (handler, guarded)
        return guarded

    def _guard(
        self, handler: grpc.RpcMethodHandler[Any, Any], name: str
    ) -> grpc.RpcMethodHandler[Any, Any]:
        """The handler with safe decoding and the rate limit in front."""
        decode = _safe(handler.request_deserializer, name)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._wrap(handler.unary_unary),
                request_deserializer=decode,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._wrap(handler.unary_stream, streaming=True),
                request_deserializer=decode,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _wrap(self, behavior: Behavior, streaming: bool = False) -> Behavior:
        limited = self.limiter.limit.enabled

        async def guarded(request: Any, context: Context) -> Any:
            if isinstance(request, Undecodable):
                await refuse(
                    context,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    request.message,
                    InvalidInputError.__name__,
                )
            if not (limited or streaming):  # no limit to keep: no client key to work out
                return await behavior(request, context)
            key = client_key(request, context)
            address = address_key(context)
            wait = 0.0
            if key != address:  # an address out of budget gets nowhere with any token
                wait = self.limiter.take(address, commit=False)
            wait = wait or self.limiter.take(key)
            if wait > 0:
                millis = max(1, math.ceil(wait * 1000))
                await refuse(
                    context,
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"rate limit: at most {self.limiter.limit.rate:g} calls per second per "
                    f"client (bursts of {self.limiter.limit.burst:g}); retry in {millis} ms",
                    RATE_LIMITED,
                    (RETRY_AFTER_METADATA, str(millis)),
                )
            try:
                return await self._call(behavior, request, context, key, streaming)
            except grpc.aio.AbortError:
                if key != address and context.code() in BAD_TOKEN:
                    self.limiter.take(address)  # a made-up token costs its address
                raise

        return guarded

    async def _call(
        self, behavior: Behavior, request: Any, context: Context, key: str, streaming: bool
    ) -> Any:
        """The call itself; an event stream counts against its client's open streams."""
        if not streaming:
            return await behavior(request, context)
        limit = self.limiter.limit.max_streams
        if limit and self.streams.get(key, 0) >= limit:
            await refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {limit} event streams per client are open at once: close one",
                TOO_MANY_STREAMS,
            )
        self.streams[key] = self.streams.get(key, 0) + 1
        try:
            return await behavior(request, context)
        finally:
            self.streams[key] -= 1
            if not self.streams[key]:
                del self.streams[key]


def _safe(deserializer: Callable[[bytes], Any] | None, method: str) -> Callable[[bytes], Any]:
    """A deserializer that returns `Undecodable` rather than raising."""

    def decode(data: bytes) -> Any:
        if deserializer is None:
            return data
        try:
            return deserializer(data)
        except Exception as error:
            return Undecodable(f"{method} request", error)

    return decode
