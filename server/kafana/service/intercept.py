"""The one way the service's interceptors wrap method handlers: once per method, both kinds.

A subclass says which methods it `covers`, how to `wrap` a method's behaviour, and (if it
must) how to decode its requests; the handler is rebuilt once per method and reused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
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
        return self.wrapped(handler_call_details.method, handler)

    def wrapped(self, method: str, handler: Handler) -> Handler:
        """`handler` of `method` (its full name) with this interceptor in front when it
        covers the method: made once, then the same object for the same handler."""
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


def chained(interceptors: Sequence[WrappingInterceptor], method: str, handler: Handler) -> Handler:
    """`handler` of `method` behind `interceptors`, the first one outermost: what gRPC runs
    when they are the server's interceptors."""
    for interceptor in reversed(interceptors):
        handler = interceptor.wrapped(method, handler)
    return handler


class _Chained(grpc.GenericRpcHandler):  # type: ignore[misc, unused-ignore]
    """A generic handler whose handlers come wrapped by the interceptors."""

    def __init__(self, inner: Any, interceptors: Sequence[WrappingInterceptor]) -> None:
        self.inner = inner
        self.interceptors = interceptors

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        handler = self.inner.service(handler_call_details)
        if handler is None:
            return None
        return chained(self.interceptors, handler_call_details.method, handler)


class _Paths(grpc.GenericRpcHandler):  # type: ignore[misc, unused-ignore]
    """The handlers of registered methods, wrapped once, by path: one lookup a call."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        return self.handlers.get(handler_call_details.method)


class Wrapped:
    """Stands in for a grpc.aio server while services are added: every handler is wrapped by
    `interceptors` as it is added, so the server runs no interceptor of its own on a call.

    The same handlers as the interceptors give per call, without gRPC's per-call interceptor
    machinery (a coroutine and a `functools.partial` per interceptor, to find a handler that
    is the same object every time).

    Methods the generated code registers (`add_registered_method_handlers`) are served by one
    generic handler, a dict by path ahead of every other, not registered with gRPC: grpc.aio
    keeps a pending request per registered method and waits on all of them for every call
    (`asyncio.wait`: a callback added and removed and a coroutine check per method, ~50
    methods with the competitions' services), which cost more than the dict lookup.
    """

    def __init__(self, server: Any, interceptors: Sequence[WrappingInterceptor]) -> None:
        self.server = server
        self.interceptors = list(interceptors)
        self.paths = _Paths()
        server.add_generic_rpc_handlers([self.paths])

    def add_generic_rpc_handlers(self, handlers: Sequence[Any]) -> None:
        """As `grpc.aio.Server.add_generic_rpc_handlers`, each wrapped."""
        self.server.add_generic_rpc_handlers([_Chained(h, self.interceptors) for h in handlers])

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Handler]) -> None:
        """As `grpc.aio.Server.add_registered_method_handlers`, each wrapped, found by the one
        generic handler of paths (see the class)."""
        for name, handler in handlers.items():
            path = f"/{service}/{name}"
            self.paths.handlers[path] = chained(self.interceptors, path, handler)
