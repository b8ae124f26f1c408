"""Domain errors: one base class, precise subclasses, messages a player can act on.

The service maps each class to a gRPC status code in exactly one place
(`kafana.service.errors`); the games raise them and never know about gRPC.
"""


class KafanaError(Exception):
    """Base class of every error Kafana raises on purpose."""


class InvalidInputError(KafanaError, ValueError):
    """Malformed input: unknown card text, bad rules, out-of-range numbers."""


class IllegalMoveError(KafanaError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class NotYourTurnError(KafanaError):
    """A move from a seat that is not the one to move."""


class MatchOverError(KafanaError):
    """A move or action after the match has ended."""


class StaleSequenceError(KafanaError):
    """The client acted on an older sequence number than the table's current one."""


class NotFoundError(KafanaError, LookupError):
    """An unknown table, seat or record."""


class AuthenticationError(KafanaError):
    """A missing or wrong token."""


class PermissionDeniedError(KafanaError):
    """A valid token that does not allow this action."""


class SeatTakenError(KafanaError):
    """A seat already held, or a table whose seats are no longer open."""


class TooManyMovesError(KafanaError):
    """A position with more legal captures than can sensibly be listed (a huge table).

    Playing a move is still possible: moves are checked directly, without listing them.
    """
