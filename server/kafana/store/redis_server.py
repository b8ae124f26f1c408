"""A private redis-server on a free loopback port: `kafana serve`'s default, the tests' and the
load tests' Redis (never a shared one).

    with redis_server() as redis:       # started, answering PING
        print(redis.url)                # redis://127.0.0.1:<port>/0
                                        # stopped, its directory removed if it made one
"""

from __future__ import annotations

import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"
START_S = 10.0
"""How long a server may take to answer PING before `start` gives up."""
BUS_OFFSET = 10_000
"""A cluster node also listens on its port + this (Redis's cluster bus)."""


PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec (Linux): SIGTERM when the thread that started it ends, so a
    process killed outright (SIGKILL) leaves no private redis-server behind."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def version(binary: str = "redis-server") -> tuple[int, ...]:
    """The version of the `binary` on the PATH, from `redis-server --version` (() if none or
    unreadable).

    >>> version("no-such-redis-server")
    ()
    """
    found = shutil.which(binary)
    if found is None:
        return ()
    try:
        out = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    for word in out.stdout.split():
        if word.startswith("v="):
            parts = word[2:].split(".")
            if all(part.isdigit() for part in parts):
                return tuple(int(part) for part in parts)
    return ()


def free_port(host: str = HOST) -> int:
    """A TCP port free on `host` right now (another process may take it before we bind it)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def ping(port: int, host: str = HOST, timeout: float = 1.0) -> str:
    """One `PING` over a fresh connection: the reply's first line ('' when none came)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(256).split(b"\r\n", 1)[0].decode(errors="replace")
    except OSError:
        return ""


class RedisServer:
    """One redis-server process of ours: no persistence unless `args` (or a config) ask for it.

    `directory`: its working directory (None: a temporary one, removed by `stop`). `args` go on
    the command line after the port; `config` is a redis.conf given first (then nothing is
    turned off: the config says what persists). `die_with_parent` (Linux): the server ends
    when the thread that started it does (start it from the main thread). A port taken by
    someone else between `free_port` and the server's bind is retried on another port.
    """

    def __init__(
        self,
        directory: Path | None = None,
        *args: str,
        config: Path | None = None,
        binary: str = "redis-server",
        preexec: Callable[[], None] | None = None,
        die_with_parent: bool = False,
    ) -> None:
        found = shutil.which(binary)
        if found is None:
            raise OSError(f"{binary} is not on the PATH")
        self.binary = found
        self._owned = directory is None
        self.directory = directory or Path(tempfile.mkdtemp(prefix="kafana-redis-"))
        self.directory.mkdir(parents=True, exist_ok=True)
        self.args = args
        self.config = config
        self.preexec = preexec  # run in the child before exec (load tests pin CPUs with it)
        self.die_with_parent = die_with_parent and sys.platform == "linux"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """`redis://127.0.0.1:<port>/0`."""
        return f"redis://{HOST}:{self.port}/0"

    def command(self) -> list[str]:
        """The command line that starts this server."""
        persistence = [] if self.config else ["--save", "", "--appendonly", "no"]
        return [
            self.binary,
            *([str(self.config)] if self.config else []),
            *("--port", str(self.port), "--bind", HOST),
            *persistence,
            *("--dir", str(self.directory)),
            *self.args,
        ]

    def start(self, timeout: float = START_S) -> RedisServer:
        """Start, on the port it had if it ran before (its data there is loaded), and wait for
        PING; a first start on a port that turns out taken tries another port, up to 5 times."""
        again = self.port != 0
        for _attempt in range(1 if again else 5):
            if not again:
                self.port = self._free_port()
            process = subprocess.Popen(
                self.command(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=self._preexec() if self.preexec or self.die_with_parent else None,
            )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and process.poll() is None:
                if ping(self.port) == "+PONG":
                    self.process = process
                    return self
                time.sleep(0.05)
            _end(process)
        raise OSError(f"redis-server did not start on {HOST}:{self.port}")

    def _free_port(self) -> int:
        """A free port this server can start on: for a cluster node, one whose bus port
        (port + 10000) is at most 65535 and free too (the kernel's ephemeral ports reach
        60999, so about one in five is too high for a node)."""
        for _ in range(100):
            port = free_port()
            if "--cluster-enabled" not in self.args:
                return port
            bus = port + BUS_OFFSET
            if bus <= 65_535:
                with socket.socket() as sock:
                    try:
                        sock.bind((HOST, bus))
                    except OSError:
                        continue
                return port
        raise OSError("no free port pair for a cluster node (its port and port + 10000)")

    def _preexec(self) -> Callable[[], None]:
        """What the child runs before exec: `preexec`, and the death signal if asked for."""
        first, dies = self.preexec, self.die_with_parent

        def run() -> None:
            if dies:
                _die_with_parent()
            if first is not None:
                first()

        return run

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last write (only what was fsynced survives)."""
        if self.process is not None:
            _end(self.process, kill=True)
        self.process = None

    def stop(self) -> None:
        """SIGTERM (SIGKILL after 10 s), then remove the directory if this server made it."""
        if self.process is not None:
            _end(self.process)
        self.process = None
        if self._owned:
            shutil.rmtree(self.directory, ignore_errors=True)


def _end(process: subprocess.Popen[bytes], *, kill: bool = False) -> None:
    """End a process we started and reap it."""
    if process.poll() is None:
        if kill:
            process.kill()
        else:
            process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def redis_server(
    directory: Path | None = None, *args: str, config: Path | None = None
) -> Iterator[RedisServer]:
    """A started `RedisServer` for the block; stopped at its end."""
    server = RedisServer(directory, *args, config=config).start()
    try:
        yield server
    finally:
        server.stop()
