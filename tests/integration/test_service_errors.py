"""The one mapping from domain errors to gRPC status codes covers every KafanaError."""

from __future__ import annotations

import grpc
from kafana import errors
from kafana.service.errors import STATUS_CODES, status_code


def all_subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
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
        errors.TooManyMovesError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
    for cls, code in expected.items():
        assert status_code(cls("x")) == code, cls
    module_classes = {
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.KafanaError)
    }
    unmapped = module_classes - set(STATUS_CODES) - {errors.KafanaError}
    assert not unmapped, f"map these in kafana.service.errors: {unmapped}"
    for cls in all_subclasses(errors.KafanaError):
        assert status_code(cls.__new__(cls)) in set(STATUS_CODES.values())


def test_subclasses_inherit_the_code() -> None:
    class Special(errors.IllegalMoveError):
        pass

    assert status_code(Special("x")) == grpc.StatusCode.INVALID_ARGUMENT
    assert status_code(errors.KafanaError("x")) == grpc.StatusCode.FAILED_PRECONDITION
