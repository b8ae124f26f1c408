"""The one way the service's interceptors wrap method handlers: once per method, both kinds.

A subclass says which methods it `covers`, how to `wrap` a method's behaviour, and (if it
must) how to decode its requests; the handler is rebuilt once per method and reused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc  # type: ignore[import-untyped, unused-ignore]

Context = grpc.aio.ServicerContext[Any, Any]
Behavior = Callable[..., Any]  # grpc's stubs type handlers as sync ones
if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]
else:  # not subscriptable at run time
    Handler = grpc.RpcMethodHandler


class WrappingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc, unused-ignore]
    """Wraps the unary and server-streaming handlers of the methods it covers."""

    def __init__(self) -> None:
        # method -> (its handler, the wrapped handler): wrapped once, not on every call
        self._wrapped: dict[str, tuple[Any, Handler]] = {}

    def covers(self, method: str) -> bool:
        """Whether to wrap `method` (its full name, `/package.Service/Method`)."""
        raise NotImplementedError

    def wrap(self, behavior: Behavior, name: str, streaming: bool) -> Behavior:
        """The behaviour of method `name` (its short name) with this interceptor in front."""
        raise NotImplementedError

    def deserializer(self, handler: Handler, name: str) -> Callable[[bytes], Any] | None:
        """How requests of `name` are decoded (the handler's own by default)."""
        return handler.request_deserializer

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        """The method's handler, wrapped when this interceptor covers the method."""
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method: str = handler_call_details.method
        known = self._wrapped.get(method)
        if known is not None and known[0] is handler:  # a call costs this one lookup
            return known[1]
        # A method not covered is kept as it is, so `covers` too runs once per method.
        wrapped = (
            self._rebuild(handler, method.rsplit("/", 1)[-1]) if self.covers(method) else handler
        )
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def _rebuild(self, handler: Handler, name: str) -> Handler:
        decode = self.deserializer(handler, name)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self.wrap(handler.unary_unary, name, False),
                request_deserializer=decode,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self.wrap(handler.unary_stream, name, True),
                request_deserializer=decode,
                response_serializer=handler.response_serializer,
            )
        return handler
