"""The one place domain errors become gRPC status codes.

Every refusal also names its reason in the trailing metadata `kafana-error` (the error class,
e.g. `NotYourTurnError`), since several reasons share one code. A store that cannot be reached
(Redis restarting, a network cut) is `UNAVAILABLE` with reason `StoreUnavailable`: every call is
safe to retry (a move with the same `client_move_id` and `last_seq`). Anything unexpected is
`INTERNAL` with a message that shows nothing of the table; the details go to the server's log.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana import errors as domain
from kafana.logs import Repeated
from kafana.service.quotas import QuotaExceeded
from kafana.store.errors import StoreUnavailable

STATUS_CODES: dict[type[domain.KafanaError], grpc.StatusCode] = {
    domain.InvalidInputError: grpc.StatusCode.INVALID_ARGUMENT,
    domain.IllegalMoveError: grpc.StatusCode.INVALID_ARGUMENT,
    domain.NotYourTurnError: grpc.StatusCode.FAILED_PRECONDITION,
    domain.StaleSequenceError: grpc.StatusCode.FAILED_PRECONDITION,
    domain.MatchOverError: grpc.StatusCode.FAILED_PRECONDITION,
    domain.SeatTakenError: grpc.StatusCode.FAILED_PRECONDITION,
    domain.NotFoundError: grpc.StatusCode.NOT_FOUND,
    domain.AuthenticationError: grpc.StatusCode.UNAUTHENTICATED,
    domain.PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    domain.TooManyMovesError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    QuotaExceeded: grpc.StatusCode.RESOURCE_EXHAUSTED,
}

REASON_METADATA = "kafana-error"
RETRY_AFTER_METADATA = "retry-after-ms"
"""Trailing metadata of a refusal that waiting fixes: the milliseconds to wait."""
# Messages quote the input; a huge input must not make the status itself too big to send
# (grpc drops a status over its metadata limit, 16 KB, and the client sees no reason at all).
MAX_MESSAGE_BYTES = 1000
STORE_UNAVAILABLE = "StoreUnavailable"
INTERNAL = "InternalError"
# The store is down, loading its data, failing over or read-only for now: retry later.
UNAVAILABLE_ERRORS = (StoreUnavailable, ConnectionError)
log = logging.getLogger(__name__)
_unavailable = Repeated(log, "calls (table store unavailable)", quiet=UNAVAILABLE_ERRORS)

Request = TypeVar("Request")
Response = TypeVar("Response")
Self = TypeVar("Self")


def status_code(error: domain.KafanaError) -> grpc.StatusCode:
    """The code of the most specific mapped class of `error` (FAILED_PRECONDITION if none)."""
    for cls in type(error).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code
    return grpc.StatusCode.FAILED_PRECONDITION


def hints(error: domain.KafanaError) -> tuple[tuple[str, str], ...]:
    """The retry hint of an error that waiting fixes (`QuotaExceeded`), else none.

    >>> hints(QuotaExceeded("too many tables", 1500))
    (('retry-after-ms', '1500'),)
    """
    if isinstance(error, QuotaExceeded):
        return ((RETRY_AFTER_METADATA, str(error.retry_after_ms)),)
    return ()


def reason(error: domain.KafanaError) -> str:
    """The machine-readable reason sent as `kafana-error`: the error's class name.

    >>> reason(domain.NotYourTurnError("it is seat 1's turn"))
    'NotYourTurnError'
    """
    return type(error).__name__


def short(message: str) -> str:
    """`message`, cut to at most about `MAX_MESSAGE_BYTES` bytes of UTF-8.

    >>> short("no table " + "x" * 5000).endswith("x ...")
    True
    >>> len(short("é" * 5000).encode()) <= MAX_MESSAGE_BYTES + 4
    True
    """
    data = message.encode()
    if len(data) <= MAX_MESSAGE_BYTES:
        return message
    return data[:MAX_MESSAGE_BYTES].decode(errors="ignore") + " ..."


async def refuse(
    context: grpc.aio.ServicerContext[Any, Any],
    code: grpc.StatusCode,
    message: str,
    why: str,
    *extra: tuple[str, str | bytes],
) -> None:
    """Abort the call with `code`, `message` and the reason (plus any trailing metadata set)."""
    message = short(message)
    metadata = tuple(context.trailing_metadata() or ()) + extra + ((REASON_METADATA, why),)
    await context.abort(code, message, metadata)


def unary(
    method: Callable[[Self, Request, grpc.aio.ServicerContext[Any, Any]], Awaitable[Response]],
) -> Callable[[Self, Request, grpc.aio.ServicerContext[Any, Any]], Awaitable[Response]]:
    """Wrap an RPC: a KafanaError aborts the call with its status code and message."""

    @functools.wraps(method)
    async def wrapper(
        self: Self, request: Request, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Response:
        # The call is refused after the `except` block, never inside it: the AbortError that
        # `context.abort` raises is in a reference cycle with the call's context (grpc keeps it
        # on the call's state; its traceback holds our frames, which hold the context). Raised
        # inside the block it would chain the error, whose traceback holds every frame the
        # call went through with their locals (GetLegalMoves past the capture limit: thousands
        # of half-listed moves). The server freezes the collector's survivors (collector.py),
        # so such a cycle may wait for the hourly thaw: it must hold nothing big.
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except domain.KafanaError as error:
            refusal: tuple[Any, ...] = (
                status_code(error),
                str(error),
                reason(error),
                *hints(error),
            )
        except UNAVAILABLE_ERRORS as error:
            _unavailable.failed(error)
            refusal = (
                grpc.StatusCode.UNAVAILABLE,
                "the table store is unavailable for now: retry (a move is safe to resend with "
                "the same client_move_id and last_seq)",
                STORE_UNAVAILABLE,
            )
        except Exception:
            if context.done():
                raise
            log.exception("%s failed unexpectedly", method.__name__)
            refusal = (grpc.StatusCode.INTERNAL, "internal error (logged by the server)", INTERNAL)
        await refuse(context, *refusal)
        raise AssertionError("unreachable: abort raises")

    return wrapper
