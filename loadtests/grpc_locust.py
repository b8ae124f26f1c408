"""gRPC the locust way: gevent-friendly channels and an interceptor reporting every call.

Importing this module switches grpc to gevent (`grpc.experimental.gevent.init_gevent()`), so
it must be imported before any channel exists, which the locustfile does on its first line
after locust's own imports (locust has monkey-patched by then). Every unary call made through
`channel(...)` fires `environment.events.request` with request_type "grpc", the RPC's name,
the time taken in milliseconds, the response size and the exception, so locust's statistics
and any listener see gRPC calls exactly as they see HTTP requests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import grpc.experimental.gevent as grpc_gevent  # type: ignore[import-untyped, unused-ignore]

grpc_gevent.init_gevent()

# A table with many cards has very many captures; grpc's default limit (4 MB) is too small.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

Fire = Callable[..., None]


class ReportingInterceptor(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc, unused-ignore]
    """Times each unary call and fires locust's request event with the outcome."""

    def __init__(self, fire: Fire) -> None:
        self._fire = fire

    def intercept_unary_unary(
        self,
        continuation: Callable[[Any, Any], Any],
        client_call_details: Any,
        request: Any,
    ) -> Any:
        """Run the call to completion, report it, and hand the outcome back unchanged."""
        name = client_call_details.method.rsplit("/", 1)[-1]
        start = time.perf_counter()
        outcome = continuation(client_call_details, request)
        exception = outcome.exception()  # waits (cooperatively, under gevent) for the answer
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        length = 0 if exception is not None else outcome.result().ByteSize()
        self._fire(
            request_type="grpc",
            name=name,
            response_time=elapsed_ms,
            response_length=length,
            exception=exception,
            context={},
        )
        return outcome


class ChannelPool:
    """A few channels per target, shared by all users of a locust process.

    Ten thousand users need not open ten thousand connections: gRPC multiplexes calls over
    HTTP/2, so users share `per_target` channels per server (each its own TCP connection).
    """

    def __init__(self, targets: list[str], per_target: int, fire: Fire) -> None:
        if not targets:
            raise ValueError("at least one target host:port is needed")
        self._channels: list[grpc.Channel] = []
        interceptor = ReportingInterceptor(fire)
        for index in range(per_target):
            for target in targets:
                options = [
                    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                    # A distinct argument per channel keeps gRPC from sharing one connection.
                    ("kafana.loadtest.channel", index),
                ]
                raw = grpc.insecure_channel(target, options=options)
                self._channels.append(grpc.intercept_channel(raw, interceptor))

    def pick(self, number: int) -> grpc.Channel:
        """The channel for user `number` (round robin over targets and connections)."""
        return self._channels[number % len(self._channels)]

    def close(self) -> None:
        """Close every channel."""
        for channel in self._channels:
            channel.close()
