"""Errors of the SDK: every failed call becomes one `RpcError` subclass with the gRPC code.

The classes also derive from the matching `kafana.errors` class, so code that catches domain
errors (`IllegalMoveError`, `NotFoundError`...) works the same against a remote server::

    try:
        await seat.play("2C")
    except IllegalMoveError as error:   # also an RpcError with code INVALID_ARGUMENT
        print(error.code.name, error.message)
"""

from __future__ import annotations

from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana import errors as domain
from kafana.v1 import state_pb2

STATE_METADATA = "kafana-state-bin"
REASON_METADATA = "kafana-error"
RETRY_AFTER_METADATA = "retry-after-ms"


class RpcError(domain.KafanaError):
    """A call the server refused or that did not complete: `code` and `message` say why."""

    def __init__(self, code: grpc.StatusCode, message: str, method: str = "") -> None:
        self.code = code
        self.message = message
        self.method = method
        where = f"{method}: " if method else ""
        super().__init__(f"{where}{code.name}: {message}")


class InvalidArgumentError(RpcError, domain.InvalidInputError):
    """INVALID_ARGUMENT: malformed input, or a move the rules do not allow."""


class RefusedMoveError(InvalidArgumentError, domain.IllegalMoveError):
    """INVALID_ARGUMENT from PlayMove: the move is mistyped or illegal in this position."""


class FailedPreconditionError(RpcError):
    """FAILED_PRECONDITION: not your turn, the match is over or not started, seat taken."""


class NotYourTurnRpcError(FailedPreconditionError, domain.NotYourTurnError):
    """Another seat is to move, or the match has not started."""


class MatchOverRpcError(FailedPreconditionError, domain.MatchOverError):
    """The match is over (or, for GetRecord, not over yet)."""


class SeatTakenRpcError(FailedPreconditionError, domain.SeatTakenError):
    """The seat is held by someone else, or no seat is open."""


class StaleStateError(FailedPreconditionError, domain.StaleSequenceError):
    """The move was decided on an older state; `state` is the current one (when sent)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        method: str = "",
        state: state_pb2.TableState | None = None,
    ) -> None:
        super().__init__(code, message, method)
        self.state = state


class NotFoundRpcError(RpcError, domain.NotFoundError):
    """NOT_FOUND: no such table (it may have expired)."""


class UnauthenticatedError(RpcError, domain.AuthenticationError):
    """UNAUTHENTICATED: a missing or wrong token."""


class PermissionDeniedRpcError(RpcError, domain.PermissionDeniedError):
    """PERMISSION_DENIED: the token is valid but may not do this."""


class DeadlineExceededError(RpcError, TimeoutError):
    """DEADLINE_EXCEEDED: no answer within the call's deadline."""


class UnavailableError(RpcError, ConnectionError):
    """UNAVAILABLE: the server cannot be reached (retries, if any, were used up)."""


class ResourceExhaustedError(RpcError):
    """RESOURCE_EXHAUSTED: over a rate limit (`retry_after` seconds to wait, when sent), too
    many open event streams, or a position with too many moves to list."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        method: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, message, method)
        self.retry_after = retry_after


class CancelledError(RpcError):
    """CANCELLED: the call was cancelled (by the client or the server going away)."""


_BY_CODE: dict[grpc.StatusCode, type[RpcError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.NOT_FOUND: NotFoundRpcError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedRpcError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.CANCELLED: CancelledError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
}

# The server names each refusal in the trailing metadata `kafana-error` (the domain error's
# class name); older servers did not, so the message prefixes below remain the fallback.
_BY_REASON: dict[str, type[FailedPreconditionError]] = {
    "StaleSequenceError": StaleStateError,
    "NotYourTurnError": NotYourTurnRpcError,
    "MatchOverError": MatchOverRpcError,
    "SeatTakenError": SeatTakenRpcError,
}

# The server sends one code for several refusals; its messages start the same way each time.
_PRECONDITIONS: tuple[tuple[str, type[FailedPreconditionError]], ...] = (
    ("stale sequence", StaleStateError),
    ("it is seat", NotYourTurnRpcError),
    ("the match has not started", NotYourTurnRpcError),
    ("the match at table", MatchOverRpcError),
    ("seat ", SeatTakenRpcError),
    ("table ", SeatTakenRpcError),
)


def _metadata(error: grpc.RpcError) -> dict[str, Any]:
    metadata: Any = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    return {key: value for key, value in metadata or ()}


def _state_from(metadata: dict[str, Any]) -> state_pb2.TableState | None:
    value = metadata.get(STATE_METADATA)
    return state_pb2.TableState.FromString(value) if isinstance(value, bytes) else None


def _retry_after(metadata: dict[str, Any]) -> float | None:
    try:
        return int(metadata[RETRY_AFTER_METADATA]) / 1000
    except (KeyError, TypeError, ValueError):
        return None


def from_grpc(error: grpc.RpcError, method: str = "") -> RpcError:
    """The SDK error for a failed gRPC call (`error` from grpc or grpc.aio)."""
    code: grpc.StatusCode = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message: str = (error.details() if hasattr(error, "details") else None) or str(error)
    metadata = _metadata(error)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ResourceExhaustedError(code, message, method, _retry_after(metadata))
    if code == grpc.StatusCode.FAILED_PRECONDITION:
        state = _state_from(metadata)
        if state is not None:
            return StaleStateError(code, message, method, state)
        if REASON_METADATA in metadata:
            named = _BY_REASON.get(str(metadata[REASON_METADATA]), FailedPreconditionError)
            return named(code, message, method)
        for prefix, cls in _PRECONDITIONS:
            if message.startswith(prefix):
                return cls(code, message, method)
        return FailedPreconditionError(code, message, method)
    if code == grpc.StatusCode.INVALID_ARGUMENT and method == "PlayMove":
        return RefusedMoveError(code, message, method)
    return _BY_CODE.get(code, RpcError)(code, message, method)
