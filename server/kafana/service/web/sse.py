"""The event feeds as Server-Sent Events: any HTTP client (curl, `EventSource`) follows a game.

`GET /sse/kafana.v1.KafanaService/WatchEvents?table_id=T&after_seq=0&with_state=true` (and
`WatchAccount`, `?after=ID`) answers `text/event-stream`: each message of the stream as one SSE
event, its data the message in proto3 JSON (`{"event": {...}}`, `{"heartbeat": {...}}`), its
`id` the resume point (the event's seq, the notice's id). A client that reconnects with
`Last-Event-ID` (as `EventSource` does by itself) resumes after it. The request's fields are the
query's parameters; auth travels in the same headers as on every other call
(`kafana-seat-token`, `authorization`). The stream runs through the adapter's `Bridge`, so
it is the gRPC handler itself, behind the same interceptors (auth, rate limits, stream caps).
How a stream ends: an `end` event (OK), or an `error` event with the Connect error's JSON
(`{"code": "unavailable", "message": ..., "details": [...]}`); then the response closes.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import Headers, RequestContext
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from kafana.service.web.adapter import Bridge, method_info
from kafana.service.web.cors import App, Receive, Scope, Send
from kafana.tasks import cancel_and_wait

PREFIX = "/sse/"
RESUME = {"WatchEvents": "after_seq", "WatchAccount": "after"}
"""Each feed's resume field, filled from `Last-Event-ID`."""


def methods_of(services: Iterable[ServiceDescriptor]) -> dict[str, MethodDescriptor]:
    """Every method of `services` by its path (`/kafana.v1.KafanaService/WatchEvents`)."""
    return {f"/{s.full_name}/{m.name}": m for s in services for m in s.methods}


def event_id(method: str, message: Any) -> str | None:
    """The SSE id of a stream message: the event's seq, the notice's id (None: a heartbeat)."""
    if method == "WatchEvents" and message.HasField("event"):
        return str(message.event.seq)
    if method == "WatchAccount" and message.HasField("notice"):
        return str(message.notice.id)
    return None


def frame(data: str, *, event: str | None = None, ident: str | None = None) -> bytes:
    """One SSE event (data on one line: proto3 JSON has no newline without indent)."""
    lines = [f"event: {event}"] if event else []
    if ident is not None:
        lines.append(f"id: {ident}")
    lines.append(f"data: {data}")
    return ("\n".join(lines) + "\n\n").encode()


def request_of(method: MethodDescriptor, query: Mapping[str, str]) -> bytes:
    """The request message of the query's parameters (ConnectError naming a bad one)."""
    fields = {f.name: f for f in method.input_type.fields}
    body: dict[str, Any] = {}
    for key, value in query.items():
        field = fields.get(key)
        if field is None:
            known = ", ".join(sorted(fields))
            raise ConnectError(
                Code.INVALID_ARGUMENT,
                f"{method.name} has no field {key!r} (its fields: {known})",
            )
        body[key] = {"true": True, "false": False}.get(value, value)
    kind = message_factory.GetMessageClass(method.input_type)
    message = kind()
    try:
        json_format.ParseDict(body, message)
    except json_format.ParseError:
        raise ConnectError(
            Code.INVALID_ARGUMENT,
            f"the query is not a {method.input_type.name}: {_unfit(kind, body)}",
        ) from None
    return message.SerializeToString()


def _unfit(kind: type[Message], body: Mapping[str, Any]) -> str:
    """What of the query `body` does not fit message `kind`: the first parameter that does not
    alone, else the parameters together (two of a oneof)."""
    for key, value in body.items():
        try:
            json_format.ParseDict({key: value}, kind())
        except json_format.ParseError:
            return f"{key}={value!s:.40} does not fit the field"
    return "its parameters do not fit together"


class EventStreams:
    """ASGI middleware: GET `/sse/<service>/<feed>` as Server-Sent Events; the rest to `app`."""

    def __init__(self, app: App, bridge: Bridge, methods: Mapping[str, MethodDescriptor]) -> None:
        self.app = app
        self.bridge = bridge
        self.methods = {
            path: m for path, m in methods.items() if m.server_streaming and m.name in RESUME
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a feed; pass every other request on."""
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX) or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        method = self.methods.get("/" + path[len(PREFIX) :])
        if method is None:
            body = json.dumps({"code": "not_found", "message": f"no event feed at {path}"})
            await _answer(send, 404, "application/json", body.encode())
            return
        pump = asyncio.create_task(self._stream(scope, send, method))
        gone = asyncio.create_task(_disconnected(receive))
        try:
            await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await cancel_and_wait([pump, gone])  # a client gone: its stream (and cap) ends

    async def _stream(self, scope: Scope, send: Send, method: MethodDescriptor) -> None:
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        query = dict(parse_qsl(scope.get("query_string", b"").decode(), keep_blank_values=True))
        last = next((v for k, v in headers if k.lower() == "last-event-id"), None)
        if last:
            query[RESUME[method.name]] = last
        client = scope.get("client")
        ctx: RequestContext[Any, Any] = RequestContext(
            method=method_info(method),
            http_method="GET",
            request_headers=Headers(headers),
            client_address=f"{client[0]}:{client[1]}" if client else None,
        )
        start = {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache"),
                (b"x-content-type-options", b"nosniff"),
            ],
        }
        await send(start)
        path = f"/{method.containing_service.full_name}/{method.name}"
        try:
            stream = self.bridge.server_stream(path, request_of(method, query), ctx)
            async for message in stream:
                data = json_format.MessageToJson(message, indent=None)
                chunk = frame(data, ident=event_id(method.name, message))
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            ending = frame("{}", event="end")
        except ConnectError as error:
            ending = frame(json.dumps(_error(error)), event="error")
        await send({"type": "http.response.body", "body": ending, "more_body": False})


def _error(error: ConnectError) -> dict[str, Any]:
    """The Connect error's JSON (code, message, details as Connect writes them)."""
    out: dict[str, Any] = {"code": error.code.value, "message": error.message}
    details = [
        {"type": d.type_name, "value": _b64(d.message_bytes)} for d in getattr(error, "details", ())
    ]
    if details:
        out["details"] = details
    return out


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


async def _disconnected(receive: Receive) -> None:
    """Until the client goes away."""
    while (await receive()).get("type") != "http.disconnect":
        pass


async def _answer(send: Send, status: int, kind: str, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind.encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
