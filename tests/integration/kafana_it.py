"""Helpers of the integration tests: private redis-server processes on free loopback ports."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ping(port: int, timeout: float = 10.0) -> None:
    """Wait until a redis-server answers PING on `port`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False
        )
        if out.stdout.strip() == "PONG":
            return
        time.sleep(0.05)
    raise RuntimeError(f"redis-server on port {port} did not start")


def start_redis(directory: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """Start a private redis-server (no persistence) on a free port."""
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is not on PATH")
    directory.mkdir(parents=True, exist_ok=True)
    for _attempt in range(5):
        port = free_port()
        process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(directory),
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ping(port)
        except RuntimeError:
            process.kill()
            process.wait()
            continue
        return process, port
    raise RuntimeError("could not start redis-server")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a process we started, then make sure it is gone."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def redis_server(directory: Path) -> Iterator[int]:
    """One private redis-server; yields its port."""
    process, port = start_redis(directory)
    try:
        yield port
    finally:
        stop(process)


@contextmanager
def redis_cluster(directory: Path, masters: int = 3) -> Iterator[list[int]]:
    """A real Redis Cluster of `masters` primaries on loopback; yields their ports."""
    processes: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    try:
        for i in range(masters):
            process, port = start_redis(
                directory / f"node{i}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000",
            )
            processes.append(process)
            ports.append(port)
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            states = [
                subprocess.run(
                    ["redis-cli", "-p", str(p), "cluster", "info"],
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout
                for p in ports
            ]
            if all("cluster_state:ok" in s for s in states):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the Redis Cluster did not become ready")
        yield ports
    finally:
        for process in processes:
            stop(process)
