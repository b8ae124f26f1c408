"""The Kafana Python SDK: async (`AsyncClient`) and blocking (`Client`) flavours.

>>> from kafana_client import Client, Deadlines, table_config
>>> Deadlines(default=0.5).of("GetState")
0.5

See `kafana_client.aio` for a worked example; errors are in `kafana_client.errors`.
"""

from kafana_client.aio import AsyncClient, AsyncSeat, CreatedTable, LegalMoves
from kafana_client.blocking import Client, Seat
from kafana_client.connection import ConnectOptions, Deadlines, Retry, Tls
from kafana_client.convert import (
    current_seat,
    move_of,
    rules_of,
    rules_spec,
    table_config,
    view_of,
    word,
)
from kafana_client.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    MatchOverRpcError,
    NotFoundRpcError,
    NotYourTurnRpcError,
    PermissionDeniedRpcError,
    RefusedMoveError,
    ResourceExhaustedError,
    RpcError,
    SeatTakenRpcError,
    StaleStateError,
    UnauthenticatedError,
    UnavailableError,
)

__all__ = [
    "AsyncClient",
    "AsyncSeat",
    "Client",
    "ConnectOptions",
    "CreatedTable",
    "DeadlineExceededError",
    "Deadlines",
    "FailedPreconditionError",
    "InvalidArgumentError",
    "LegalMoves",
    "MatchOverRpcError",
    "NotFoundRpcError",
    "NotYourTurnRpcError",
    "PermissionDeniedRpcError",
    "RefusedMoveError",
    "ResourceExhaustedError",
    "Retry",
    "RpcError",
    "Seat",
    "SeatTakenRpcError",
    "StaleStateError",
    "Tls",
    "UnauthenticatedError",
    "UnavailableError",
    "current_seat",
    "move_of",
    "rules_of",
    "rules_spec",
    "table_config",
    "view_of",
    "word",
]
