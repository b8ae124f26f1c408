"""Every KafanaError has an ErrorReason of errors.proto, and so its one status code."""

from __future__ import annotations

import weakref
from typing import Any, cast

import grpc
import pytest
from kafana import errors
from kafana.service import errors as service_errors
from kafana.service.errors import status_code, unary
from kafana.store.errors import StoreUnavailable
from kafana.v1 import errors_pb2


def all_subclasses(cls: type[errors.KafanaError]) -> set[type[errors.KafanaError]]:
    found: set[type[errors.KafanaError]] = set(cls.__subclasses__())
    for sub in list(found):
        found |= all_subclasses(sub)
    return found


def test_every_domain_error_has_its_code() -> None:
    expected = {
        errors.InvalidInputError: grpc.StatusCode.INVALID_ARGUMENT,
        errors.IllegalMoveError: grpc.StatusCode.INVALID_ARGUMENT,
        errors.NotYourTurnError: grpc.StatusCode.FAILED_PRECONDITION,
        errors.StaleSequenceError: grpc.StatusCode.FAILED_PRECONDITION,
        errors.MatchOverError: grpc.StatusCode.FAILED_PRECONDITION,
        errors.NotFoundError: grpc.StatusCode.NOT_FOUND,
        errors.AuthenticationError: grpc.StatusCode.UNAUTHENTICATED,
        errors.PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
        errors.SeatTakenError: grpc.StatusCode.FAILED_PRECONDITION,
        errors.TooManyMovesError: grpc.StatusCode.INVALID_ARGUMENT,
        errors.MatchNotOverError: grpc.StatusCode.FAILED_PRECONDITION,
        errors.MoveIdReused: grpc.StatusCode.ALREADY_EXISTS,
        errors.RateLimited: grpc.StatusCode.RESOURCE_EXHAUSTED,
        errors.ServerStopping: grpc.StatusCode.UNAVAILABLE,
    }
    for cls, code in expected.items():
        assert status_code(cls.__new__(cls)) == code, cls
    known = set(errors_pb2.ErrorReason.keys()) - {"ERROR_REASON_UNSPECIFIED"}
    assert set(errors.STATUS_CODES) == known
    for sub in all_subclasses(errors.KafanaError):
        assert sub.reason in known, f"{sub.__name__}.reason {sub.reason!r} is not in errors.proto"


def test_subclasses_inherit_the_code() -> None:
    class Special(errors.IllegalMoveError):
        pass

    assert status_code(Special("x")) == grpc.StatusCode.INVALID_ARGUMENT
    assert Special.reason == "ILLEGAL_MOVE"
    assert status_code(errors.KafanaError("x")) == grpc.StatusCode.FAILED_PRECONDITION


class AbortingContext:
    """What `unary` needs of a grpc.aio context: `abort` raises AbortError and, like grpc's
    call state, keeps it (in grpc that makes a reference cycle with the call's context)."""

    def __init__(self) -> None:
        self.aborted: list[tuple[grpc.StatusCode, str, BaseException]] = []

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def done(self) -> bool:
        return False

    async def abort(self, code: grpc.StatusCode, message: str, metadata: object) -> None:
        error = grpc.aio.AbortError("Locally aborted.")
        self.aborted.append((code, message, error))
        raise error


class Held:
    """A stand-in for a big local (a half-built list of legal moves)."""


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (errors.TooManyMovesError("too many captures"), grpc.StatusCode.INVALID_ARGUMENT),
        (StoreUnavailable("redis restarting"), grpc.StatusCode.UNAVAILABLE),
        (RuntimeError("a bug"), grpc.StatusCode.INTERNAL),
    ],
)
async def test_a_refusal_keeps_nothing_of_the_failed_call(
    raised: Exception, code: grpc.StatusCode, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The AbortError that grpc keeps does not chain the error, so the frames it went through
    (and their locals) are freed with it: a server freezing the collector's survivors
    (service/collector.py) held ~13 MB per trail table of GetLegalMoves past the capture limit.
    """
    kept: list[weakref.ref[Held]] = []

    class Servicer:
        @unary
        async def Call(self, request: object, context: object) -> None:
            big = Held()
            kept.append(weakref.ref(big))
            raise raised

    monkeypatch.setattr(service_errors.log, "disabled", True)  # a captured record keeps it
    context = AbortingContext()
    with pytest.raises(grpc.aio.AbortError):
        await Servicer().Call(None, cast(Any, context))
    raised.__traceback__ = None  # the test's own reference to the error: not the server's
    [(got, _, abort)] = context.aborted
    assert got == code
    assert abort.__context__ is None
    assert kept[0]() is None, "the failed call's locals outlive it"
