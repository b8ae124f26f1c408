"""The one RATE_LIMITED refusal the guard and the authenticator both give."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
import pytest
from google.rpc import status_pb2  # type: ignore[import-untyped, unused-ignore]
from kafana import metrics
from kafana.service.errors import DETAILS_METADATA, refuse_rate_limited


class Aborted(Exception):
    pass


class Context:
    """What `abort` uses of a servicer context: trailing metadata and abort."""

    def __init__(self) -> None:
        self.aborted: tuple[Any, str, Any] | None = None

    def trailing_metadata(self) -> tuple[()]:
        return ()

    async def abort(self, code: Any, message: str, metadata: Any) -> None:
        self.aborted = (code, message, metadata)
        raise Aborted


def test_the_message_ends_with_when_to_retry_and_the_refusal_is_counted() -> None:
    context = Context()
    counter = metrics.REFUSALS.labels("test_rate")
    before = counter._value.get()
    with pytest.raises(Aborted):
        asyncio.run(
            refuse_rate_limited(cast(Any, context), 0.0001, "test_rate", "slow down: ", "things")
        )
    assert context.aborted is not None
    code, message, metadata = context.aborted
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message == "slow down: retry in 1 ms"  # at least 1 ms
    status = status_pb2.Status.FromString(dict(metadata)[DETAILS_METADATA])
    assert [d.TypeName() for d in status.details] == [
        "google.rpc.ErrorInfo",
        "google.rpc.RetryInfo",
    ]
    assert counter._value.get() == before + 1
