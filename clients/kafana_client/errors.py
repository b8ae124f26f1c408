"""Errors of the SDK: every failed call becomes one `RpcError` subclass with the gRPC code.

The server sends each refusal as a `google.rpc.Status` (trailing metadata
`grpc-status-details-bin`) with an `ErrorInfo`: `RpcError.reason` is its reason (a
`kafana.v1.ErrorReason` value name such as "NOT_YOUR_TURN"), `.metadata` what was wrong
(`{"table_id": ...}`), and `.retry_after` the seconds of its `RetryInfo`, when waiting helps.
The class follows from the reason (the code where none was sent), and derives from the
matching `kafana.errors` class too, so code that catches domain errors (`IllegalMoveError`,
`NotFoundError`...) works the same against a remote server::

    try:
        await seat.play("2C")
    except IllegalMoveError as error:   # also an RpcError with code INVALID_ARGUMENT
        print(error.code.name, error.reason, error.message)
"""

from __future__ import annotations

from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.rpc import error_details_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]
from kafana import errors as domain
from kafana.v1 import state_pb2

STATE_METADATA = "kafana-state-bin"
DOMAIN = "kafana"
MAX_RETRY_WAIT = 5.0
"""Seconds of RetryInfo delay a retrying call waits out by itself (longer: it is raised)."""


class RpcError(domain.KafanaError):
    """A call the server refused or that did not complete: `code`, `reason` and `message` say
    why; `metadata` names what was wrong; `retry_after` is the seconds to wait (None: waiting
    is not known to help)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        method: str = "",
        *,
        reason: str = "",
        metadata: dict[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.method = method
        where = f"{method}: " if method else ""
        why = f" ({reason})" if reason else ""
        super().__init__(f"{where}{code.name}{why}: {message}")
        self.reason = reason  # as sent ("" without an ErrorInfo), not the class default
        self.metadata = dict(metadata or {})
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether resending the same call can succeed by itself: UNAVAILABLE (the server or
        its store away a moment), CANCELLED by the server (a stopping gRPC server cancels the
        calls it had not started: grpc/grpc#41785; a caller's own cancellation raises
        asyncio.CancelledError instead), or a rate limit whose wait is short."""
        if self.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
            return True
        return (
            self.reason == "RATE_LIMITED"
            and self.retry_after is not None
            and self.retry_after <= MAX_RETRY_WAIT
        )


class InvalidArgumentError(RpcError, domain.InvalidInputError):
    """INVALID_ARGUMENT: malformed input, or a move the rules do not allow."""


class RefusedMoveError(InvalidArgumentError, domain.IllegalMoveError):
    """ILLEGAL_MOVE (or INVALID_ARGUMENT from PlayMove): the move is mistyped or illegal."""

    move = ""
    """The text of the move refused (set by the SDK's `play`)."""


class TooManyMovesRpcError(InvalidArgumentError, domain.TooManyMovesError):
    """TOO_MANY_MOVES: more legal captures than the server lists; play a move directly."""


class FailedPreconditionError(RpcError):
    """FAILED_PRECONDITION: not your turn, the match is over or not started, seat taken."""


class NotYourTurnRpcError(FailedPreconditionError, domain.NotYourTurnError):
    """NOT_YOUR_TURN: another seat is to move."""


class MatchNotStartedRpcError(NotYourTurnRpcError, domain.MatchNotStartedError):
    """MATCH_NOT_STARTED: seats are still free, nobody is to move yet."""


class MatchOverRpcError(FailedPreconditionError, domain.MatchOverError):
    """MATCH_OVER: the match is over."""


class MatchNotOverRpcError(FailedPreconditionError, domain.MatchNotOverError):
    """MATCH_NOT_OVER: the record of a match still running asked for."""


class SeatTakenRpcError(FailedPreconditionError, domain.SeatTakenError):
    """SEAT_TAKEN: the seat is held by someone else."""


class TableFullRpcError(SeatTakenRpcError, domain.TableFullError):
    """TABLE_FULL: no seat is open."""


class StaleStateError(FailedPreconditionError, domain.StaleSequenceError):
    """STALE_SEQ: the move was decided on an older state; `state` is the current one (when
    sent)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        method: str = "",
        state: state_pb2.TableState | None = None,
        **details: Any,
    ) -> None:
        super().__init__(code, message, method, **details)
        self.state = state


class AlreadyExistsRpcError(RpcError, domain.AlreadyExistsError):
    """ALREADY_EXISTS: the name is taken, or the client_move_id was used for another move."""


class NotFoundRpcError(RpcError, domain.NotFoundError):
    """NOT_FOUND: no such table (it may have expired), account, event..."""


class UnauthenticatedError(RpcError, domain.AuthenticationError):
    """UNAUTHENTICATED: a missing or wrong key or token."""


class PermissionDeniedRpcError(RpcError, domain.PermissionDeniedError):
    """PERMISSION_DENIED: the key or token is valid but may not do this."""


class DeadlineExceededError(RpcError, TimeoutError):
    """DEADLINE_EXCEEDED: no answer within the call's deadline."""


class UnavailableError(RpcError, ConnectionError):
    """UNAVAILABLE: the server cannot be reached, its store is away (STORE_UNAVAILABLE) or it
    is stopping (SERVER_STOPPING); retries, if any, were used up."""


class ResourceExhaustedError(RpcError):
    """RESOURCE_EXHAUSTED: over a rate limit (RATE_LIMITED) or a quota (QUOTA_EXCEEDED);
    `retry_after` seconds to wait, when the server knows."""


class CancelledError(RpcError):
    """CANCELLED: the call was cancelled (by the client or the server going away)."""


_BY_CODE: dict[grpc.StatusCode, type[RpcError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsRpcError,
    grpc.StatusCode.NOT_FOUND: NotFoundRpcError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedRpcError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.CANCELLED: CancelledError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
}

# Reasons with a class of their own (the others take their code's class).
_BY_REASON: dict[str, type[RpcError]] = {
    "ILLEGAL_MOVE": RefusedMoveError,
    "TOO_MANY_MOVES": TooManyMovesRpcError,
    "NOT_YOUR_TURN": NotYourTurnRpcError,
    "MATCH_NOT_STARTED": MatchNotStartedRpcError,
    "MATCH_OVER": MatchOverRpcError,
    "MATCH_NOT_OVER": MatchNotOverRpcError,
    "STALE_SEQ": StaleStateError,
    "SEAT_TAKEN": SeatTakenRpcError,
    "TABLE_FULL": TableFullRpcError,
}


def details_of(error: Any) -> tuple[str, dict[str, str], float | None]:
    """The (reason, metadata, retry_after seconds) of a failed call's `google.rpc.Status`
    ("", {}, None without one: a refusal of gRPC itself, or no call at all)."""
    try:
        status = rpc_status.from_call(error) if hasattr(error, "trailing_metadata") else None
    except ValueError:  # a status whose code or message disagrees with the call's
        status = None
    reason, metadata, retry_after = "", {}, None
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR) and not reason:
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, metadata = info.reason, dict(info.metadata)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            wait = error_details_pb2.RetryInfo()
            detail.Unpack(wait)
            retry_after = wait.retry_delay.ToMilliseconds() / 1000
    return reason, metadata, retry_after


def _state(error: Any) -> state_pb2.TableState | None:
    metadata: Any = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in metadata or ():
        if key == STATE_METADATA and isinstance(value, bytes):
            return state_pb2.TableState.FromString(value)
    return None


def from_grpc(error: grpc.RpcError, method: str = "") -> RpcError:
    """The SDK error for a failed gRPC call (`error` from grpc or grpc.aio)."""
    code: grpc.StatusCode = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message: str = (error.details() if hasattr(error, "details") else None) or str(error)
    reason, metadata, retry_after = details_of(error)
    details: dict[str, Any] = {"reason": reason, "metadata": metadata, "retry_after": retry_after}
    cls = _BY_REASON.get(reason) or _BY_CODE.get(code, RpcError)
    if code == grpc.StatusCode.INVALID_ARGUMENT and method == "PlayMove" and not reason:
        cls = RefusedMoveError
    if cls is StaleStateError:
        return StaleStateError(code, message, method, _state(error), **details)
    return cls(code, message, method, **details)
