"""Connect JSON errors with their details readable as JSON too (the protocol's `debug` field).

A Connect error in JSON carries each `google.rpc` detail as base64 protobuf (`"value"`), which
a plain HTTP client cannot read without the protos. This middleware adds, beside each value it
knows (ErrorInfo, RetryInfo, BadRequest, ...), the same detail as proto3 JSON under `"debug"`,
as the Connect protocol allows: `{"type": "google.rpc.ErrorInfo", "value": "...", "debug":
{"reason": "ILLEGAL_MOVE", "domain": "kafana", "metadata": {...}}}`. Only unary JSON error
answers are touched (their body is small and complete); streams and success pass through.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message as ProtoMessage
from google.rpc import error_details_pb2  # type: ignore[import-untyped, unused-ignore]

from kafana.service.web.cors import App, Message, Receive, Scope, Send

KNOWN: dict[str, type[ProtoMessage]] = {
    f"google.rpc.{name}": getattr(error_details_pb2, name)
    for name in ("ErrorInfo", "RetryInfo", "BadRequest", "QuotaFailure", "PreconditionFailure")
}


def with_debug(body: bytes) -> bytes:
    """The error body with a `debug` beside every detail it can read (unchanged otherwise)."""
    try:
        error = json.loads(body)
    except ValueError:
        return body
    if not isinstance(error, dict) or not isinstance(error.get("details"), list):
        return body
    for detail in error["details"]:
        kind = KNOWN.get(detail.get("type", "")) if isinstance(detail, dict) else None
        value = detail.get("value") if kind is not None else None
        if kind is None or not isinstance(value, str) or "debug" in detail:
            continue
        try:
            message = kind.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
        except ValueError:
            continue
        detail["debug"] = json_format.MessageToDict(message)
    return json.dumps(error, ensure_ascii=False).encode()


class ReadableDetails:
    """ASGI middleware: JSON error answers get their details as JSON too (`with_debug`)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the call on; rewrite the body of a JSON error answer."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def send_json_errors_rewritten(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                if message.get("status", 200) >= 400 and kind.startswith(b"application/json"):
                    held["start"] = message  # sent once the whole body is read
                    return
            elif message["type"] == "http.response.body" and "start" in held:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = with_debug(b"".join(chunks))
                start = held.pop("start")
                kept = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
                kept.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": kept})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, send_json_errors_rewritten)
