"""A server interceptor in front of the Kafana service: what every request must pass.

Refusals are `google.rpc.Status` with an ErrorInfo, as the domain errors are
(`kafana.service.errors`):

- a request over `message_bytes` serialized is `INVALID_ARGUMENT`, reason INVALID_ARGUMENT,
  metadata "field" `request` and "max_bytes" (waiting does not help: send less); past twice
  that, gRPC itself refuses it unread (`RESOURCE_EXHAUSTED`, "Received message larger than max",
  without details);
- a request that is not a valid protobuf message of the method's type (random bytes, a string
  field that is not UTF-8), or holds an enum value its enum does not define, is
  `INVALID_ARGUMENT`, reason INVALID_ARGUMENT (the message, and metadata "field", name it);
- a caller over its rate limit is `RESOURCE_EXHAUSTED`, reason RATE_LIMITED, with a RetryInfo
  saying when a call is admitted again;
- a caller with `max_streams` event streams open already is `RESOURCE_EXHAUSTED`, reason
  QUOTA_EXCEEDED, metadata "quota" `max_streams` (close one first; no RetryInfo: only closing
  one helps).

Every limit is charged to the caller (`kafana.service.auth.caller_of`): its account, else its
network address. Seat and admin tokens buy nothing: a caller who mints seats at tables of its own
shares one budget and one stream allowance across all of them. Health checks and reflection
are not limited.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kafana import metrics
from kafana.service.auth import caller_of, peer_address
from kafana.service.errors import refuse_rate_limited, refuse_reason
from kafana.service.inputs import bad_enum
from kafana.service.intercept import Behavior, Context, Handler, WrappingInterceptor
from kafana.service.limits import Limits
from kafana.service.ratelimit import RateLimit, RateLimiter, charging
from kafana.v1 import service_pb2

__all__ = ["Guard", "address_key", "caller_key", "message_options"]
PREFIX = "/" + service_pb2.DESCRIPTOR.package + "."
"""Every kafana.v1 service: tables, accounts, competitions and leagues are all guarded."""


class Undecodable:
    """What the request deserializer returns instead of raising for bytes it cannot take."""

    def __init__(self, message: str, **metadata: Any) -> None:
        self.message = message
        self.metadata = metadata


def address_key(context: Context) -> str:
    """The key of the peer's address (without its port): `p:ipv4:10.0.0.7`."""
    return "p:" + peer_address(context)


def caller_key(context: Context) -> str:
    """The key every limit of the call is charged to: `a:<account>`, else `p:<address>`."""
    return caller_of(context).key


def message_options(message_bytes: int) -> list[tuple[str, int]]:
    """gRPC server options: requests up to twice `message_bytes` are read (so the guard can
    refuse the too large ones with a reason); larger ones gRPC refuses unread.

    >>> message_options(1000)
    [('grpc.max_receive_message_length', 2000)]
    """
    if not message_bytes:
        return []
    return [("grpc.max_receive_message_length", 2 * message_bytes)]


class Guard(WrappingInterceptor):
    """Wraps every Kafana method handler: safe decoding, then the rate limit."""

    def __init__(self, limit: RateLimit, message_bytes: int = Limits().message_bytes) -> None:
        super().__init__()
        self.limiter = RateLimiter(limit)
        self.message_bytes = message_bytes  # 0: only gRPC's own limit
        self.streams: dict[str, int] = {}  # open event streams by caller key

    def covers(self, method: str) -> bool:
        """Every method of every kafana.v1 service (not health or reflection)."""
        return method.startswith(PREFIX)

    def deserializer(self, handler: Handler, name: str) -> Callable[[bytes], Any]:
        """Safe decoding: `Undecodable` instead of an error, sizes checked."""
        return _safe(handler.request_deserializer, name, self.message_bytes)

    def wrap(self, behavior: Behavior, name: str, streaming: bool) -> Behavior:
        """The behaviour with decoding checks, enum checks and the caller's limits first."""
        limited = self.limiter.limit.enabled

        async def guarded(request: Any, context: Context) -> Any:
            if isinstance(request, Undecodable):
                await refuse_reason(
                    context, "INVALID_ARGUMENT", request.message, **request.metadata
                )
            wrong = bad_enum(request)
            if wrong is not None:
                await refuse_reason(
                    context,
                    "INVALID_ARGUMENT",
                    f"{wrong} is not a value of its enum",
                    field=wrong.split(" ", 1)[0],
                )
            if not (limited or streaming):  # no limit to keep: no caller key to work out
                return await behavior(request, context)
            key = caller_key(context)
            wait = self.limiter.take(key)
            if wait > 0:
                await refuse_rate_limited(
                    context,
                    wait,
                    "rate",
                    f"rate limit: at most {self.limiter.limit.rate:g} calls per second per "
                    f"caller (bursts of {self.limiter.limit.burst:g}); ",
                    "calls_per_second",
                )
            return await self._call(behavior, request, context, key, streaming)

        return guarded

    async def _call(
        self, behavior: Behavior, request: Any, context: Context, key: str, streaming: bool
    ) -> Any:
        """The call itself, with what it charges beyond one token taken after it
        (`ratelimit.charge`; a stream's at once); an event stream counts against its caller's
        open streams."""
        if not streaming:
            charged = charging()
            try:
                return await behavior(request, context)
            finally:
                if charged:
                    self.limiter.charge(key, sum(charged))
        limit = self.limiter.limit.max_streams
        if limit and self.streams.get(key, 0) >= limit:
            metrics.REFUSALS.labels("streams").inc()
            await refuse_reason(
                context,
                "QUOTA_EXCEEDED",
                f"at most {limit} event streams per caller are open at once: close one",
                quota="max_streams",
                limit=limit,
            )
        self.streams[key] = self.streams.get(key, 0) + 1
        charging(functools.partial(self.limiter.charge, key))
        try:
            return await behavior(request, context)
        finally:
            self.streams[key] -= 1
            if not self.streams[key]:
                del self.streams[key]


def _safe(
    deserializer: Callable[[bytes], Any] | None, method: str, max_bytes: int
) -> Callable[[bytes], Any]:
    """A deserializer that returns `Undecodable` rather than raising (or reading too much)."""

    def decode(data: bytes) -> Any:
        if max_bytes and len(data) > max_bytes:
            metrics.REFUSALS.labels("message_bytes").inc()
            return Undecodable(
                f"the {method} request is {len(data)} bytes: this server takes at most "
                f"{max_bytes} (send less; waiting does not help)",
                field="request",
                max_bytes=max_bytes,
            )
        if deserializer is None:
            return data
        try:
            return deserializer(data)
        except Exception as error:
            message = (
                f"the request is not a valid {method} request message ({type(error).__name__})"
            )
            return Undecodable(message, field="request")

    return decode
