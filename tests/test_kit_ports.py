"""`kit.serve`: a `kafana serve` a test starts binds a port of its own choosing and the kit
learns it from the process, so servers started together never race for one free port.

The race it replaces: the kit asked the kernel for a free port, closed it, then started the
process, which bound it a second later. A port handed out twice in that second (to the second
server of a test, or to a process of another xdist worker) left one server dead on start and
both targets talking to the other one; a SIGSTOP then "stopped" a zombie while the survivor
answered (tests/reliability/test_faults.py, once in CI)."""

from __future__ import annotations

from pathlib import Path

import kit
import pytest
from kit import serving


def test_servers_started_together_never_share_a_port(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = kit.free_port()
    monkeypatch.setattr(kit, "free_port", lambda *_: taken)  # the kernel hands it out twice
    with serving(tmp_path, "--redis", redis_url, count=2) as (first, second):
        ports = [first.port, second.port]  # waits until each announced its own
        assert ports[0] != ports[1]
        for server in (first, second):  # both alive, each on the port it announced
            assert server.process.poll() is None, server.output()
            assert f"serving on port {server.port}" in server.output()


def test_an_asked_for_port_is_used(tmp_path: Path, redis_url: str) -> None:
    port = kit.free_port()
    served = kit.serve(tmp_path, "--redis", redis_url, port=port)
    try:
        served.wait_started()
        assert served.port == port
        assert f"serving on port {port}" in served.output()
    finally:
        served.end()
