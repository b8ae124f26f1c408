"""Domain errors: one base class, precise subclasses, messages a player can act on.

Each class names its reason, the `kafana.v1.ErrorReason` value a client switches on (`reason`,
UPPER_SNAKE as errors.proto spells it), and may carry `metadata` naming what was wrong
(``NotFoundError("no account 'ana'", resource="account")``). The status code of each reason is
fixed (`STATUS_CODES`, from errors.proto's comments). The service turns a raised error into a
`google.rpc.Status` in exactly one place (`kafana.service.errors`); the games raise them and
never know about gRPC.
"""

from __future__ import annotations

STATUS_CODES: dict[str, str] = {
    "INVALID_ARGUMENT": "INVALID_ARGUMENT",
    "INVALID_RULES": "INVALID_ARGUMENT",
    "ILLEGAL_MOVE": "INVALID_ARGUMENT",
    "MOVE_ID_MISSING": "INVALID_ARGUMENT",
    "LAST_SEQ_MISSING": "INVALID_ARGUMENT",
    "INVALID_PAGE_TOKEN": "INVALID_ARGUMENT",
    "TOO_MANY_MOVES": "INVALID_ARGUMENT",
    "NOT_YOUR_TURN": "FAILED_PRECONDITION",
    "MATCH_NOT_STARTED": "FAILED_PRECONDITION",
    "MATCH_OVER": "FAILED_PRECONDITION",
    "MATCH_NOT_OVER": "FAILED_PRECONDITION",
    "STALE_SEQ": "FAILED_PRECONDITION",
    "SEQ_AHEAD": "FAILED_PRECONDITION",
    "SEAT_TAKEN": "FAILED_PRECONDITION",
    "TABLE_FULL": "FAILED_PRECONDITION",
    "EMBARGOED": "FAILED_PRECONDITION",
    "WRONG_STATE": "FAILED_PRECONDITION",
    "MOVE_ID_REUSED": "ALREADY_EXISTS",
    "ALREADY_EXISTS": "ALREADY_EXISTS",
    "TABLE_NOT_FOUND": "NOT_FOUND",
    "NOT_FOUND": "NOT_FOUND",
    "API_KEY_MISSING": "UNAUTHENTICATED",
    "API_KEY_INVALID": "UNAUTHENTICATED",
    "TOKEN_INVALID": "UNAUTHENTICATED",
    "PERMISSION_DENIED": "PERMISSION_DENIED",
    "RATE_LIMITED": "RESOURCE_EXHAUSTED",
    "QUOTA_EXCEEDED": "RESOURCE_EXHAUSTED",
    "STORE_UNAVAILABLE": "UNAVAILABLE",
    "SERVER_STOPPING": "UNAVAILABLE",
    "INTERNAL": "INTERNAL",
}
"""The gRPC status code (its name) of every ErrorReason; tests check it against errors.proto."""


class KafanaError(Exception):
    """Base class of every error Kafana raises on purpose.

    `reason` is the class's ErrorReason (a subclass defined outside this module sets its own;
    one that does not is WRONG_STATE: the state of things does not allow the call).
    `metadata` (keyword arguments) names what was wrong; `retry_after_ms`, when set, is how
    long waiting takes to help.
    """

    reason = "WRONG_STATE"
    retry_after_ms: int | None = None

    def __init__(self, *args: object, **metadata: object) -> None:
        super().__init__(*args)
        self.metadata: dict[str, str] = {key: str(value) for key, value in metadata.items()}


class WrongStateError(KafanaError):
    """The event, league or entry is not in a state that allows the call."""


class InvalidInputError(KafanaError, ValueError):
    """Malformed input: unknown card text, out-of-range numbers (metadata "field")."""

    reason = "INVALID_ARGUMENT"


class InvalidRulesError(InvalidInputError):
    """Rules that do not exist or do not fit together."""

    reason = "INVALID_RULES"


class MoveIdMissing(InvalidInputError):
    """PlayMove without a client_move_id."""

    reason = "MOVE_ID_MISSING"


class LastSeqMissing(InvalidInputError):
    """PlayMove without last_seq (the sequence number the move was chosen at)."""

    reason = "LAST_SEQ_MISSING"


class InvalidPageToken(InvalidInputError):
    """A page_token the call did not hand out (or handed out for other filters)."""

    reason = "INVALID_PAGE_TOKEN"


class IllegalMoveError(KafanaError, ValueError):
    """A well-formed move that the rules do not allow in this position."""

    reason = "ILLEGAL_MOVE"


class TooManyMovesError(KafanaError):
    """A position with more legal captures than can sensibly be listed (a huge table).

    Deterministic, so INVALID_ARGUMENT (retrying cannot help). Playing a move is still
    possible: moves are checked directly, without listing them.
    """

    reason = "TOO_MANY_MOVES"


class NotYourTurnError(KafanaError):
    """A move from a seat that is not the one to move."""

    reason = "NOT_YOUR_TURN"


class MatchNotStartedError(NotYourTurnError):
    """A move before the match has started (seats are still free): nobody's turn yet."""

    reason = "MATCH_NOT_STARTED"


class MatchOverError(KafanaError):
    """A move or action after the match has ended."""

    reason = "MATCH_OVER"


class MatchNotOverError(KafanaError):
    """Something only a finished match has (its record) asked for too early."""

    reason = "MATCH_NOT_OVER"


class StaleSequenceError(KafanaError):
    """The client acted on an older sequence number than the table's current one."""

    reason = "STALE_SEQ"


class SeqAhead(KafanaError):
    """last_seq ahead of the table: no state with that sequence number was ever sent."""

    reason = "SEQ_AHEAD"


class SeatTakenError(KafanaError):
    """A seat already held by someone else."""

    reason = "SEAT_TAKEN"


class TableFullError(SeatTakenError):
    """A table whose every seat is taken (or whose seats are no longer open)."""

    reason = "TABLE_FULL"


class AlreadyExistsError(KafanaError):
    """An account, league or entry of that name exists."""

    reason = "ALREADY_EXISTS"


class MoveIdReused(AlreadyExistsError):
    """A client_move_id already used for a different move."""

    reason = "MOVE_ID_REUSED"


class NotFoundError(KafanaError, LookupError):
    """An unknown account, event, league, player, match or record (metadata "resource")."""

    reason = "NOT_FOUND"


class TableNotFoundError(NotFoundError):
    """No table with that id (it may have expired)."""

    reason = "TABLE_NOT_FOUND"


class AuthenticationError(KafanaError):
    """A wrong seat, admin, organiser or entry token."""

    reason = "TOKEN_INVALID"


class ApiKeyMissing(AuthenticationError):
    """A call that needs an API key (`authorization: Bearer <key>`) sent without one."""

    reason = "API_KEY_MISSING"


class ApiKeyInvalid(AuthenticationError):
    """An API key that is unknown, malformed or revoked."""

    reason = "API_KEY_INVALID"


class PermissionDeniedError(KafanaError):
    """A valid token or key that does not allow this action (metadata "needs")."""

    reason = "PERMISSION_DENIED"


class RateLimited(KafanaError):
    """Too many calls: retry after `retry_after_ms`."""

    reason = "RATE_LIMITED"

    def __init__(self, message: str, retry_after_ms: int, **metadata: object) -> None:
        super().__init__(message, **metadata)
        self.retry_after_ms = max(1, retry_after_ms)


class ServerStopping(KafanaError):
    """The server is stopping: resume the stream or retry on another process."""

    reason = "SERVER_STOPPING"
