"""The rule that closes a resetting connection (`ResetWatch`), on readings given by hand.

Under a flood, core fails the attacker's streams only as fast as the event loop takes them off
its queue: on a busy server that is under the plain bound (100 a second), so a connection
whose streams nearly all fail is closed past a fifth of it.
"""

from __future__ import annotations

import pytest
from kafana.service.resets import Reading, ResetWatch


@pytest.mark.parametrize(
    ("failed", "succeeded", "seconds", "over"),
    [
        (60, 0, 0.5, True),  # past the bound
        (120, 500, 1.0, True),  # past the bound, however many succeeded
        (40, 0, 0.5, True),  # past a fifth of it, nothing succeeding
        (40, 4, 0.5, True),  # one in eleven succeeded
        (40, 30, 0.5, False),  # a busy client that cancels some of its calls
        (8, 0, 0.5, False),  # a watcher or two closing
        (40, 0, 2.0, False),  # 20 a second: not past a fifth
    ],
)
def test_over(failed: int, succeeded: int, seconds: float, over: bool) -> None:
    assert ResetWatch(100).over(failed, succeeded, seconds) is over


def test_judge_closes_only_the_connection_that_only_resets() -> None:
    closed: list[tuple[str, int]] = []

    def close(port: int, remote: tuple[str, int], goaway: bytes) -> bool:
        closed.append(remote)
        return True

    watch = ResetWatch(100, close=close)
    busy, flood = ("10.0.0.1", 1000), ("10.0.0.2", 2000)
    first: list[Reading] = [(1, busy, 0, 0), (2, flood, 0, 0)]
    second: list[Reading] = [(1, busy, 30, 200), (2, flood, 30, 0)]
    watch._judge(first, now=10.0)
    assert closed == []
    watch._judge(second, now=10.5)
    assert closed == [flood] and watch.closed == 1
