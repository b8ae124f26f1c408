"""`RedisServer.start` on a port the kernel hands out: a cluster node also binds its bus at the
port + 10000, so a port above 55535, or one whose bus port is taken, cannot start a node; it
must try another port instead of failing the test that wanted a cluster (seen in CI:
"redis-server did not start on 127.0.0.1:<port>" from `kit.redis_cluster`)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafana.store import redis_server
from kafana.store.redis_server import RedisServer, ping

CLUSTER = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")


def handed_out(ports: list[int]) -> Iterator[int]:
    """The kernel's answers, scripted: these ports first, then real free ones."""
    yield from ports
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        yield port


def test_a_cluster_node_skips_a_port_too_high_for_its_bus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports = handed_out([60_001, 59_999, 65_000, 58_000, 56_000])
    monkeypatch.setattr(redis_server, "free_port", lambda *_a, **_k: next(ports))
    node = RedisServer(tmp_path, *CLUSTER).start(timeout=5)
    try:
        assert node.port <= 55_535 and ping(node.port) == "+PONG"
    finally:
        node.stop()


def test_a_cluster_node_skips_a_port_whose_bus_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as bus:
        bus.bind(("127.0.0.1", 0))
        bus.listen()
        taken_bus = int(bus.getsockname()[1])
        if taken_bus <= 10_000:
            pytest.fail(f"the kernel handed out port {taken_bus}, below the bus offset")
        ports = handed_out([taken_bus - 10_000] * 6)
        monkeypatch.setattr(redis_server, "free_port", lambda *_a, **_k: next(ports))
        node = RedisServer(tmp_path, *CLUSTER).start(timeout=5)
        try:
            assert node.port + 10_000 != taken_bus and ping(node.port) == "+PONG"
        finally:
            node.stop()
