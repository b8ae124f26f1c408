"""The gRPC handlers of the server, served over Connect and gRPC-Web (connectrpc, ASGI).

One adapter, keyed by the service descriptors, for every method: an HTTP call runs the very
handler a gRPC call would, found through the same interceptors (auth, rate limits, stream caps,
metrics: charged to the same caller), given an `HttpContext`. Requests reach the handler as
bytes, decoded by its own (guarded) deserializer, so size and validity checks are the gRPC
ones; an abort becomes the protocol's error with the `google.rpc.Status` details (Connect error
details, or `grpc-status-details-bin`) and the trailing metadata (`kafana-state-bin`...).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import logging
import math
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import grpc  # type: ignore[import-untyped, unused-ignore]
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import (
    FieldDescriptor,
    MethodDescriptor,
    ServiceDescriptor,
)
from google.protobuf.message import Message
from google.rpc import (  # type: ignore[import-untyped, unused-ignore]
    error_details_pb2,
    status_pb2,
)

from kafana.errors import InvalidInputError
from kafana.games.records import MAX_DEPTH, json_text, json_value
from kafana.service.errors import DETAILS_METADATA
from kafana.service.intercept import Handler
from kafana.service.web.compression import Gzip
from kafana.service.web.context import Aborted, HttpContext, Metadata, unbase64
from kafana.service.web.status import connect_code, refused, rich_error

log = logging.getLogger(__name__)
PROTOCOL_TRAILERS = frozenset({DETAILS_METADATA, "grpc-status", "grpc-message"})
MAX_ITEMS = 20_000
"""Array items and object members of a JSON request, counted by its commas (those in strings
too: a real request has few): the most a real one holds is a `CreateTable` with 256 explicit
decks of 52 cards (~13,600). protobuf's `ParseDict` is pure Python (~2 us an item: 170,000
empty bots, a 680 KB body, took 369 ms before CreateTable refused them); a binary request is
read in C. Counting costs ~1 ms for a 2 MiB body."""


class CallDetails(NamedTuple):
    """`grpc.HandlerCallDetails` of an HTTP call: what interceptors are given."""

    method: str
    invocation_metadata: Metadata


class Registry:
    """Stands in for the grpc.aio server while services are added: passes every handler on
    and keeps them by method path (`/kafana.v1.KafanaService/CreateTable`) for HTTP."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.handlers: dict[str, Handler] = {}
        self.generic: list[Any] = []

    def add_generic_rpc_handlers(self, handlers: Sequence[Any]) -> None:
        """As `grpc.aio.Server.add_generic_rpc_handlers`."""
        self.server.add_generic_rpc_handlers(handlers)
        self.generic.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Handler]) -> None:
        """As `grpc.aio.Server.add_registered_method_handlers`."""
        self.server.add_registered_method_handlers(service, handlers)
        for name, handler in handlers.items():
            self.handlers[f"/{service}/{name}"] = handler

    def handler(self, path: str) -> Handler | None:
        """The handler of the method at `path`, as the grpc server would find it."""
        found = self.handlers.get(path)
        generic = iter(self.generic)
        while found is None and (handler := next(generic, None)) is not None:
            found = handler.service(CallDetails(path, ()))
        return found


class ProtoCodec:
    """`application/proto`: the request's bytes go to the handler's deserializer as they are."""

    def name(self) -> str:
        """The codec's name in content types."""
        return "proto"

    def encode(self, message: Message) -> bytes:
        """A response message, serialized."""
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> bytes:
        """The request's bytes."""
        return bytes(data)


class JsonCodec:
    """`application/json`: proto3 JSON, turned into the bytes the handler decodes."""

    def name(self) -> str:
        """The codec's name in content types."""
        return "json"

    def encode(self, message: Message) -> bytes:
        """A response message in proto3 JSON (lowerCamelCase names, 64-bit ints as strings)."""
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> bytes:
        """The request as protobuf bytes; INVALID_ARGUMENT naming the problem if it is not
        JSON of the method's request message (an unknown field or enum name included)."""
        message = message_class()
        name = message_class.DESCRIPTOR.full_name
        try:
            text = json_text(data)
            if text.count(",") > MAX_ITEMS:  # before anything reads it (commas in strings too)
                raise refused(
                    f"the request body has more than {MAX_ITEMS} values (array items and object "
                    f"members, counted by their commas) to be a {name} in JSON"
                )
            parsed = json_value(text)  # parsed, then its depth measured
        except InvalidInputError:  # no message nests that deep
            raise _too_deep(name) from None
        except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
            where = (
                f" (line {error.lineno}, column {error.colno})"
                if isinstance(error, json.JSONDecodeError)
                else " (not UTF-8)"
            )
            raise refused(f"the request body is not JSON{where}: send a {name} in JSON") from None
        misfit = not_an_object(parsed, message_class.DESCRIPTOR)
        if misfit is not None:  # ParseDict reads an array as an empty message
            what = "it is" if misfit == "request" else f"field {misfit} is"
            raise refused(f"the request is not a {name} in JSON: {what} not an object", misfit)
        try:
            json_format.ParseDict(parsed, message)
        except RecursionError:  # not within MAX_DEPTH; and never "maximum recursion depth"
            raise _too_deep(name) from None
        except json_format.ParseError as error:  # JSON, but not of the message's shape
            field, why = _misfit(str(error))
            raise refused(f"the request is not a {name} in JSON: {why}", field) from None
        return message.SerializeToString()


def not_an_object(value: Any, message: Any, path: str = "") -> str | None:
    """The path of the first value of `value` (JSON of a `message`) that should be a JSON
    object, a message, and is something else ("request": the whole body); None: none.
    protobuf's `ParseDict` reads an array there as an empty message (`{"config": []}` made a
    default table); well-known types (their own JSON forms) and maps are left to it."""
    if not isinstance(value, dict):
        return path or "request"
    for key, item in value.items():
        field = message.fields_by_camelcase_name.get(key) or message.fields_by_name.get(key)
        kind = field.message_type if field is not None else None
        if field is None or kind is None or item is None or kind.GetOptions().map_entry:
            continue
        if kind.full_name.startswith("google.protobuf."):
            continue
        where = f"{path}.{field.name}" if path else field.name
        repeated = _repeated(field)
        for each in item if repeated and isinstance(item, list) else [item]:
            found = not_an_object(each, kind, where)
            if found is not None:
                return found
    return None


def _repeated(field: FieldDescriptor) -> bool:
    """Whether `field` is repeated (`is_repeated` in protobuf 6 and later, `label` before)."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return getattr(field, "label", None) == FieldDescriptor.LABEL_REPEATED


def _too_deep(name: str) -> ConnectError:
    """INVALID_ARGUMENT for a JSON body nested past `MAX_DEPTH` (message `name`)."""
    return refused(
        f"the request body is nested too deeply (more than {MAX_DEPTH} levels of [ and {{) to "
        f"be a {name} in JSON"
    )


UNKNOWN_FIELD = re.compile(r'has no field named "([^"]+)" at "([\w.]*)"')
UNKNOWN_ENUM = re.compile(r'Invalid enum value (\S+) for enum type (\S+) at "?([\w.]*?)"?\.?$')
WRONG_TYPE = re.compile(r"Failed to parse (\w+) field")


def _misfit(error: str) -> tuple[str, str]:
    """The field a proto3 JSON parse error is about (a path without the request's own name,
    e.g. `config.rules.tablic.mustCaptur`) and what is wrong with it, in words.

    Strict, as the issue asked: a misspelt field or an unknown enum name is refused, never
    dropped (a client would otherwise get a default table it did not ask for)."""
    if found := UNKNOWN_FIELD.search(error):
        path = ".".join([*found.group(2).split(".")[1:], found.group(1)])
        return path, f"there is no field {path}"
    if found := UNKNOWN_ENUM.search(error.splitlines()[0].strip()):
        path = ".".join(p for p in found.group(3).split(".")[1:] if p) or "request"
        return path, f"{found.group(1)} is not a value of {found.group(2)} (field {path})"
    if parents := WRONG_TYPE.findall(error):
        path = ".".join(parents)
        return path, f"field {path} has a value of the wrong type"
    return "request", "a value does not fit its field"


def header_value(value: str | bytes) -> str:
    """A metadata value as an HTTP header value: `-bin` bytes in unpadded base64."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode().rstrip("=")
    return value


def status_error(code: grpc.StatusCode, message: str, trailing: Metadata) -> ConnectError:
    """The Connect error of a gRPC status: its `google.rpc.Status` details (in the trailing
    `grpc-status-details-bin`) kept as they are, the code and message those of the call."""
    for key, value in trailing:
        data = value if isinstance(value, bytes) else unbase64(value)
        if key == DETAILS_METADATA and data is not None:
            details = rich_error(status_pb2.Status.FromString(data)).details
            return ConnectError(connect_code(code), message, details)
    return ConnectError(connect_code(code), message)


def retry_after(trailing: Metadata) -> int | None:
    """Whole seconds of the refusal's RetryInfo (at least 1), for a `Retry-After` header."""
    for key, value in trailing:
        data = value if isinstance(value, bytes) else unbase64(value)
        if key != DETAILS_METADATA or data is None:
            continue
        for detail in status_pb2.Status.FromString(data).details:
            wait = error_details_pb2.RetryInfo()
            if detail.Unpack(wait):
                millis = int(wait.retry_delay.ToMilliseconds())
                return max(1, math.ceil(millis / 1000))
    return None


def method_info(method: MethodDescriptor) -> MethodInfo[Any, Any]:
    """connectrpc's description of a gRPC method, from its descriptor."""
    if method.client_streaming:
        kind = StreamType.BIDI_STREAM if method.server_streaming else StreamType.CLIENT_STREAM
    else:
        kind = StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY
    options = method.GetOptions()
    level = {
        descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS: IdempotencyLevel.NO_SIDE_EFFECTS,
        descriptor_pb2.MethodOptions.IDEMPOTENT: IdempotencyLevel.IDEMPOTENT,
    }.get(options.idempotency_level, IdempotencyLevel.UNKNOWN)
    return MethodInfo(
        name=method.name,
        service_name=method.containing_service.full_name,
        input=message_factory.GetMessageClass(method.input_type),
        output=message_factory.GetMessageClass(method.output_type),
        idempotency_level=level,
        stream_type=kind,
    )


Continuation = Callable[[CallDetails], Awaitable[Handler | None]]


class Bridge:
    """Runs HTTP calls through the gRPC interceptors and handlers of the same server."""

    def __init__(self, registry: Registry, interceptors: Sequence[Any]) -> None:
        self.registry = registry
        self.interceptors = list(interceptors)

    async def _found(self, details: CallDetails) -> Handler | None:
        return self.registry.handler(details.method)

    async def resolve(self, path: str, metadata: Metadata) -> Handler:
        """The method's handler as the interceptors make it (the first one outermost)."""
        continuation: Continuation = self._found
        for interceptor in reversed(self.interceptors):
            continuation = functools.partial(interceptor.intercept_service, continuation)
        handler = await continuation(CallDetails(path, metadata))
        if handler is None:
            raise ConnectError(Code.UNIMPLEMENTED, f"no method {path} on this server")
        return handler

    def endpoints(self, services: Iterable[ServiceDescriptor]) -> dict[str, Any]:
        """An endpoint for every method of `services` (each must have a handler)."""
        found: dict[str, Any] = {}
        for service in services:
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                if self.registry.handler(path) is None:
                    raise ValueError(f"{path} has no gRPC handler to serve over HTTP")
                info = method_info(method)
                if info.stream_type == StreamType.UNARY:
                    found[path] = Endpoint.unary(info, functools.partial(self.unary, path))
                elif info.stream_type == StreamType.SERVER_STREAM:
                    found[path] = Endpoint.server_stream(
                        info, functools.partial(self.server_stream, path)
                    )
                else:
                    raise ValueError(f"{path} streams requests: not served over HTTP")
        return found

    async def unary(self, path: str, request: bytes, ctx: RequestContext[Any, Any]) -> Message:
        """One unary call."""
        context = HttpContext(ctx)
        try:
            handler = await self.resolve(path, context.metadata)
            call: Any = handler.unary_unary  # typed as a sync handler by grpc's stubs
            if call is None:
                raise ConnectError(Code.UNIMPLEMENTED, f"{path} is not a unary method here")
            response = await call(_decoded(handler, request), context)
        except BaseException as error:
            raise self._failure(path, context, ctx, error) from None
        finally:
            context.end()
        self._finish(context, ctx)
        result: Message = response
        return result

    async def server_stream(
        self, path: str, request: bytes, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[Message]:
        """One server-streaming call: the handler writes (or yields), the client reads."""
        context = HttpContext(ctx)
        try:
            handler = await self.resolve(path, context.metadata)
            decoded = _decoded(handler, request)
        except BaseException as error:
            raise self._failure(path, context, ctx, error) from None
        task = asyncio.create_task(_drive(handler, decoded, context), name=f"http {path}")
        getter: asyncio.Future[Any] | None = None
        try:
            while True:
                getter = asyncio.ensure_future(context.written.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    break
                _headers(context, ctx)
                yield getter.result()
            while not context.written.empty():  # written just before the handler ended
                yield context.written.get_nowait()
            task.result()
        except BaseException as error:
            raise self._failure(path, context, ctx, error) from None
        finally:
            if getter is not None:
                getter.cancel()  # a message left unread stays in the queue
            if not task.done():  # the client went away, or the deadline passed
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
                context.end(grpc.StatusCode.CANCELLED)
            context.end()
        self._finish(context, ctx)

    def _finish(self, context: HttpContext, ctx: RequestContext[Any, Any]) -> None:
        """A handler that returned: its metadata out, and its status if it set one."""
        _headers(context, ctx)
        _trailers(context.trailing, ctx)
        code = context.status
        if code is not None and code != grpc.StatusCode.OK:
            raise status_error(code, context.message or "", context.trailing)

    def _failure(
        self,
        path: str,
        context: HttpContext,
        ctx: RequestContext[Any, Any],
        error: BaseException,
    ) -> BaseException:
        """What the HTTP side raises for what the call raised."""
        if isinstance(error, Aborted):
            _headers(context, ctx)
            _trailers(error.trailing, ctx)
            if (seconds := retry_after(error.trailing)) is not None:
                ctx.response_headers.add("retry-after", str(seconds))  # HTTP's own hint (429)
            return status_error(error.code, error.details, error.trailing)
        if isinstance(error, (ConnectError, asyncio.CancelledError)):
            return error
        if not isinstance(error, Exception):
            return error
        log.error("%s over HTTP failed unexpectedly", path, exc_info=error)
        return ConnectError(Code.UNKNOWN, "unexpected error in the method handler")


def _decoded(handler: Handler, request: bytes) -> Any:
    """The request as the handler's own deserializer decodes it (the guard's, checked)."""
    decode = handler.request_deserializer
    return request if decode is None else decode(request)


async def _drive(handler: Handler, request: Any, context: HttpContext) -> None:
    """Run a streaming handler: one that writes with `context.write`, or yields."""
    call: Any = handler.unary_stream
    if call is None:
        raise ConnectError(Code.UNIMPLEMENTED, "not a server-streaming method here")
    result = call(request, context)
    if hasattr(result, "__aiter__"):
        async for item in result:
            await context.write(item)
    else:
        await result


def _headers(context: HttpContext, ctx: RequestContext[Any, Any]) -> None:
    """The handler's initial metadata, as response headers (once)."""
    for key, value in context.initial:
        ctx.response_headers.add(key, header_value(value))
    context.initial = ()


def _trailers(trailing: Metadata, ctx: RequestContext[Any, Any]) -> None:
    """Trailing metadata, as trailers (the protocols write the status ones themselves)."""
    for key, value in trailing:
        if key not in PROTOCOL_TRAILERS:
            ctx.response_trailers.add(key, header_value(value))


class KafanaApplication(ConnectASGIApplication[Bridge]):
    """The ASGI application of every served method (Connect and gRPC-Web, JSON and binary)."""

    def __init__(
        self, bridge: Bridge, services: Iterable[ServiceDescriptor], read_max_bytes: int
    ) -> None:
        endpoints = bridge.endpoints(services)  # now: a method without a handler fails here
        super().__init__(
            service=bridge,
            endpoints=lambda _: endpoints,
            read_max_bytes=read_max_bytes,
            codecs=[ProtoCodec(), JsonCodec()],
            compressions=[Gzip()],  # one member, linear (not connectrpc's)
        )

    @property
    def path(self) -> str:
        """Served from the root: each method at `/<service>/<method>`."""
        return "/"


def services_named(names: Iterable[str]) -> list[ServiceDescriptor]:
    """The descriptors of the services `names` (from the generated code's pool)."""
    pool = descriptor_pool.Default()
    return [pool.FindServiceByName(name) for name in names]
