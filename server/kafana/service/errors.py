"""The one place refusals become gRPC statuses: a `google.rpc.Status` with an `ErrorInfo`.

Every refusal carries, in the trailing metadata `grpc-status-details-bin`, a `google.rpc.Status`
(what a Go or Java client reads with `status.Details()`) whose details are one
`google.rpc.ErrorInfo` (`reason`: a `kafana.v1.ErrorReason` value name, `domain` "kafana",
`metadata` naming what was wrong) and, when waiting helps and the wait is known, a
`google.rpc.RetryInfo`. The status code follows from the reason (`kafana.errors.STATUS_CODES`).

A store that cannot be reached (Redis restarting, a network cut) is `UNAVAILABLE`, reason
STORE_UNAVAILABLE: every call is safe to retry (a move with the same `client_move_id` and
`last_seq`). Anything unexpected is `INTERNAL` with a message that shows nothing of the table;
the details go to the server's log.

Servicers wrap their methods in `unary`, which refuses any `KafanaError` they raise; code that
must abort a call itself (interceptors) calls `refuse(context, error)` or `refuse_reason`.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TypeVar

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.protobuf import any_pb2, duration_pb2
from google.rpc import (  # type: ignore[import-untyped, unused-ignore]
    error_details_pb2,
    status_pb2,
)

from kafana import errors as domain
from kafana import metrics
from kafana.logs import Repeated
from kafana.store.errors import StoreUnavailable

DOMAIN = "kafana"
"""`ErrorInfo.domain` of every refusal."""
DETAILS_METADATA = "grpc-status-details-bin"
"""The trailing metadata that holds the serialized `google.rpc.Status` (gRPC's own key)."""
# Messages quote the input; a huge input must not make the status itself too big to send
# (grpc drops a status over its metadata limit, 16 KB, and the client sees no reason at all).
MAX_MESSAGE_BYTES = 1000
MAX_METADATA_CHARS = 200
"""Characters of one ErrorInfo metadata value (they quote input too)."""
STORE_UNAVAILABLE_MESSAGE = (
    "the store is unavailable for now: retry (a move is safe to resend with the same "
    "client_move_id and last_seq)"
)
# The store is down, loading its data, failing over or read-only for now: retry later.
UNAVAILABLE_ERRORS = (StoreUnavailable, ConnectionError)
log = logging.getLogger(__name__)
_unavailable = Repeated(log, "calls (table store unavailable)", quiet=UNAVAILABLE_ERRORS)
_unexpected: dict[tuple[str, str], Repeated] = {}
"""Unexpected failures by method and error type: the first with its traceback, then a line
with a count at most once a minute (3,000 calls with a made-up token wrote 27,000 lines)."""

_CODES = {code.value[0]: code for code in grpc.StatusCode}
Context = grpc.aio.ServicerContext[Any, Any]
Request = TypeVar("Request")
Response = TypeVar("Response")
Self = TypeVar("Self")


def code_of(reason: str) -> grpc.StatusCode:
    """The status code of ErrorReason `reason` (KeyError for a name errors.proto lacks).

    >>> code_of("TOO_MANY_MOVES").name
    'INVALID_ARGUMENT'
    """
    return grpc.StatusCode[domain.STATUS_CODES[reason]]


def status_code(error: BaseException) -> grpc.StatusCode:
    """The code a call ending with `error` gets (`status_of`).

    >>> status_code(domain.TooManyMovesError("too many captures")).name
    'INVALID_ARGUMENT'
    """
    if isinstance(error, domain.KafanaError):
        return code_of(error.reason)
    return code_of("STORE_UNAVAILABLE" if isinstance(error, UNAVAILABLE_ERRORS) else "INTERNAL")


def short(message: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """`message`, cut to at most about `limit` bytes of UTF-8.

    >>> short("no table " + "x" * 5000).endswith("x ...")
    True
    >>> len(short("é" * 5000).encode()) <= MAX_MESSAGE_BYTES + 4
    True
    """
    data = message.encode()
    if len(data) <= limit:
        return message
    return data[:limit].decode(errors="ignore") + " ..."


def rich_status(
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    retry_after_ms: int | None = None,
) -> status_pb2.Status:
    """The `google.rpc.Status` of a refusal: its code, message, ErrorInfo and RetryInfo.

    >>> status = rich_status("RATE_LIMITED", "slow down", {"limit": "10"}, 1500)
    >>> status.code, [detail.TypeName() for detail in status.details]
    (8, ['google.rpc.ErrorInfo', 'google.rpc.RetryInfo'])
    """
    info = error_details_pb2.ErrorInfo(
        reason=reason,
        domain=DOMAIN,
        metadata={key: short(value, MAX_METADATA_CHARS) for key, value in (metadata or {}).items()},
    )
    details = [_packed(info)]
    if retry_after_ms is not None:
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(max(1, retry_after_ms))
        details.append(_packed(error_details_pb2.RetryInfo(retry_delay=delay)))
    return status_pb2.Status(code=code_of(reason).value[0], message=short(message), details=details)


def _packed(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def status_of(error: BaseException) -> status_pb2.Status:
    """The status of any error a call ends with: its reason for a KafanaError, STORE_UNAVAILABLE
    for an unreachable store, else INTERNAL (a message that shows nothing)."""
    if isinstance(error, domain.KafanaError):
        return rich_status(error.reason, str(error), error.metadata, error.retry_after_ms)
    if isinstance(error, UNAVAILABLE_ERRORS):
        return rich_status("STORE_UNAVAILABLE", STORE_UNAVAILABLE_MESSAGE)
    return rich_status("INTERNAL", "internal error (logged by the server)")


async def abort(context: Context, status: status_pb2.Status) -> NoReturn:
    """Abort the call with `status`, keeping any trailing metadata already set (e.g. the
    current state of a STALE_SEQ refusal, `kafana-state-bin`)."""
    kept = tuple(
        (key, value) for key, value in context.trailing_metadata() or () if key != DETAILS_METADATA
    )
    await context.abort(
        _CODES.get(status.code, grpc.StatusCode.UNKNOWN),
        status.message,
        (*kept, (DETAILS_METADATA, status.SerializeToString())),
    )
    raise AssertionError("unreachable: abort raises")


async def refuse(context: Context, error: BaseException) -> NoReturn:
    """Abort the call for `error` (a KafanaError: its reason, message, metadata and delay)."""
    await abort(context, status_of(error))


async def refuse_reason(
    context: Context,
    reason: str,
    message: str,
    *,
    retry_after_ms: int | None = None,
    **metadata: object,
) -> NoReturn:
    """Abort the call with ErrorReason `reason` (its fixed code), `message` and `metadata`."""
    fields = {key: str(value) for key, value in metadata.items()}
    await abort(context, rich_status(reason, message, fields, retry_after_ms))


async def refuse_rate_limited(
    context: Context, wait_s: float, refusal: str, message: str, limit: str
) -> NoReturn:
    """Abort with RATE_LIMITED: `message`, then "retry in N ms" (`wait_s`, at least 1 ms; a
    RetryInfo says it too) and metadata `limit`; counted as a `refusal` (REFUSALS)."""
    millis = max(1, math.ceil(wait_s * 1000))
    metrics.REFUSALS.labels(refusal).inc()
    await refuse_reason(
        context,
        "RATE_LIMITED",
        f"{message}retry in {millis} ms",
        retry_after_ms=millis,
        limit=limit,
    )


def unary(
    method: Callable[[Self, Request, Context], Awaitable[Response]],
) -> Callable[[Self, Request, Context], Awaitable[Response]]:
    """Wrap an RPC: a KafanaError aborts the call with its reason, code and message."""

    @functools.wraps(method)
    async def wrapper(self: Self, request: Request, context: Context) -> Response:
        # The call is refused after the `except` block, never inside it: the AbortError that
        # `context.abort` raises is in a reference cycle with the call's context (grpc keeps it
        # on the call's state; its traceback holds our frames, which hold the context). Raised
        # inside the block it would chain the error, whose traceback holds every frame the
        # call went through with their locals (GetLegalMoves past the capture limit: thousands
        # of half-listed moves). The server freezes the collector's survivors (collector.py),
        # so such a cycle may wait for the hourly thaw: it must hold nothing big. Only the
        # status (a small message) leaves the block.
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except domain.KafanaError as error:
            status = status_of(error)
        except UNAVAILABLE_ERRORS as error:
            _unavailable.failed(error)
            status = status_of(error)
        except Exception as error:
            if context.done():
                raise
            kind = (method.__name__, type(error).__name__)  # bounded: the code's own
            if kind not in _unexpected:
                _unexpected[kind] = Repeated(log, f"{method.__name__} (unexpectedly)")
            _unexpected[kind].failed(error)
            status = status_of(error)
        await abort(context, status)

    return wrapper
