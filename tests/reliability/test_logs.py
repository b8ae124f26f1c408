"""`kafana.logs.Repeated`: a failure that repeats is logged once per interval, with a count."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from kafana.logs import Repeated


def test_repeated_failures_are_counted_not_logged_each(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    errors = Repeated(logging.getLogger("t"), "the sweep", interval=10, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="t"):
        for _ in range(800):  # 100 s of failures, one every 125 ms
            errors.failed(ConnectionError("down"))
            now[0] += 0.125
        errors.succeeded()
        errors.succeeded()  # no news: no line
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 11, messages  # the first, one per 10 s, and the recovery
    assert messages[0] == "the sweep failed: ConnectionError: down"
    assert caplog.records[0].exc_info is not None  # the first one shows where
    assert (
        messages[1] == "the sweep failed 80 times in the last 10 s (latest: ConnectionError: down)"
    )
    assert messages[-1] == "the sweep works again after 800 failures"


def test_expected_failures_have_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    errors = Repeated(logging.getLogger("t"), "the probe", quiet=(ConnectionError,))
    with caplog.at_level(logging.WARNING, logger="t"):
        errors.failed(ConnectionError("down"))
        errors.succeeded()
        errors.failed(ValueError("odd"))  # after a success the count starts afresh
    assert [r.exc_info is None for r in caplog.records] == [True, True, False]


async def test_a_calls_unexpected_failures_are_logged_once_then_counted(
    service: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A review (7 Dec): a forged page token made a call fail unexpectedly, and each such call
    # logged its traceback: 3,000 anonymous calls in 2.3 s wrote 27,000 lines
    import grpc
    from kafana.service import errors, servicer
    from kafana.v1 import service_pb2

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(servicer, "server_info", broken)
    monkeypatch.setattr(errors, "_unexpected", {})  # as a new process has it
    caplog.set_level(logging.ERROR, logger="kafana.service.errors")
    for _ in range(30):
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await service.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
        assert failed.value.code() == grpc.StatusCode.INTERNAL
    logged = [r for r in caplog.records if r.name == "kafana.service.errors"]
    assert len(logged) == 1 and logged[0].exc_info is not None, logged
    assert "GetServerInfo" in logged[0].getMessage() and "a bug" in logged[0].getMessage()
