"""The one place domain errors become gRPC status codes."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import (
    AuthenticationError,
    IllegalMoveError,
    InvalidInputError,
    KafanaError,
    MatchOverError,
    NotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    SeatTakenError,
    StaleSequenceError,
    TooManyMovesError,
)

STATUS_CODES: dict[type[KafanaError], grpc.StatusCode] = {
    InvalidInputError: grpc.StatusCode.INVALID_ARGUMENT,
    IllegalMoveError: grpc.StatusCode.INVALID_ARGUMENT,
    NotYourTurnError: grpc.StatusCode.FAILED_PRECONDITION,
    StaleSequenceError: grpc.StatusCode.FAILED_PRECONDITION,
    MatchOverError: grpc.StatusCode.FAILED_PRECONDITION,
    SeatTakenError: grpc.StatusCode.FAILED_PRECONDITION,
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    AuthenticationError: grpc.StatusCode.UNAUTHENTICATED,
    PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    TooManyMovesError: grpc.StatusCode.RESOURCE_EXHAUSTED,
}

Request = TypeVar("Request")
Response = TypeVar("Response")
Self = TypeVar("Self")


def status_code(error: KafanaError) -> grpc.StatusCode:
    """The code of the most specific mapped class of `error` (FAILED_PRECONDITION if none)."""
    for cls in type(error).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code
    return grpc.StatusCode.FAILED_PRECONDITION


def unary(
    method: Callable[[Self, Request, grpc.aio.ServicerContext[Any, Any]], Awaitable[Response]],
) -> Callable[[Self, Request, grpc.aio.ServicerContext[Any, Any]], Awaitable[Response]]:
    """Wrap an RPC: a KafanaError aborts the call with its status code and message."""

    @functools.wraps(method)
    async def wrapper(
        self: Self, request: Request, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Response:
        try:
            return await method(self, request, context)
        except KafanaError as error:
            await context.abort(status_code(error), str(error))
            raise  # unreachable: abort raises

    return wrapper
