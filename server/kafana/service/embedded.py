"""Choosing the store: a given Redis, else a private redis-server, else memory."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kafana.store.base import TableStore
from kafana.store.memory import MemoryStore
from kafana.store.redis_store import RedisStore


@dataclass
class StoreChoice:
    """The store, a line saying what it is, and what to clean up at the end."""

    store: TableStore
    description: str
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    def cleanup(self) -> None:
        """Stop anything started for the store."""
        for action in reversed(self.cleanups):
            action()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_private_redis(binary: str) -> tuple[subprocess.Popen[bytes], int, str]:
    directory = tempfile.mkdtemp(prefix="kafana-redis-")
    port = _free_port()
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            directory,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise OSError(f"redis-server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process, port, directory
        time.sleep(0.05)
    process.kill()
    raise OSError("redis-server did not start")


def _stopper(process: subprocess.Popen[bytes], directory: str) -> Callable[[], None]:
    def stop() -> None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)

    return stop


def choose_store(redis_url: str | None, *, allow_private: bool = True) -> StoreChoice:
    """The store for `kafana serve`: `redis_url`, else a private redis-server, else memory."""
    if redis_url:
        store = RedisStore.from_url(redis_url)
        return StoreChoice(store, f"store: {store.describe()}")
    binary = shutil.which("redis-server") if allow_private else None
    if binary:
        try:
            process, port, directory = _start_private_redis(binary)
        except OSError as error:
            return StoreChoice(MemoryStore(), f"store: in-process memory ({error})")
        store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0")
        return StoreChoice(
            store,
            f"store: private redis-server on 127.0.0.1:{port} (no --redis given; "
            "one process only, nothing kept after exit)",
            [_stopper(process, directory)],
        )
    why = "no redis-server on PATH" if allow_private else "asked for"
    return StoreChoice(
        MemoryStore(),
        f"store: in-process memory ({why}; one process only, nothing kept after exit)",
    )
