"""`kafana.logs.Repeated`: a failure that repeats is logged once per interval, with a count."""

from __future__ import annotations

import logging

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
