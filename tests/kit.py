"""The test kit every test folder shares: private redis-servers on free loopback ports (never
the shared Redis on 6379), a real Redis Cluster, a Kafana server in the test's event loop,
`kafana serve` processes, and the fixtures over them.

The servers themselves are the product's (`kafana.store.redis_server`, which `kafana serve`
uses for its private Redis); `tests/conftest.py` makes the fixtures here visible everywhere.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from signal import SIG_DFL, SIGCONT, SIGINT, SIGTERM, signal
from typing import TYPE_CHECKING, Any

import pytest
from kafana.store.redis_server import RedisServer, free_port, redis_server

if TYPE_CHECKING:  # the service is imported when a test serves, not by every test folder
    import grpc
    from kafana.service.server import KafanaServer
    from kafana.service.settings import Settings
    from kafana.store.base import TableStore
    from kafana.store.redis_store import RedisStore
    from kafana.v1.service_pb2_grpc import KafanaServiceStub
    from kafana.v1.state_pb2 import TableState

__all__ = [
    "KAFANA",
    "RedisServer",
    "Served",
    "Service",
    "admin_md",
    "finished",
    "flush",
    "free_port",
    "healthy",
    "private_redis",
    "redis_cli",
    "redis_cluster",
    "redis_server",
    "redis_store",
    "redis_store_at",
    "redis_url",
    "require_redis",
    "running",
    "seat_md",
    "seated_table",
    "serve",
    "service",
    "serving",
    "signal_other_thread",
]
KAFANA = str(Path(sys.executable).parent / "kafana")
SEAT_TOKEN = "kafana-seat-token"
ADMIN_TOKEN = "kafana-admin-token"
STOP_LIMIT_S = 20.0


def default_sigint() -> None:
    """`preexec_fn` of a child a test will Ctrl-C: SIGINT at its default, as under a terminal.

    pytest-xdist workers ignore SIGINT, and an ignored signal stays ignored across exec: a
    Python child would then never see its Ctrl-C (a test of one passed only in a worker where
    an earlier test had set a handler).
    """
    signal(SIGINT, SIG_DFL)


SYS_TGKILL = {"x86_64": 234, "aarch64": 131}[platform.machine()]  # the syscall's number


def signal_other_thread(pid: int, signum: int) -> None:
    """Send `signum` to one thread of process `pid` other than its main one (what the kernel
    may do with any signal sent to the process: hand it to whichever thread does not block it;
    a Python program hears it only when its main thread next runs)."""
    threads = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
    assert threads, f"process {pid} runs no thread beside its main one"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYS_TGKILL, pid, threads[0], signum) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill {pid} {threads[0]}")


def seat_md(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata that plays for the seat of `token` (`metadata=seat_md(token)`)."""
    return ((SEAT_TOKEN, token),)


def admin_md(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata that acts as the table's admin (`metadata=admin_md(token)`)."""
    return ((ADMIN_TOKEN, token),)


def require_redis() -> None:
    """Fail (not skip) when redis-server is missing: CI must never pass without Redis."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not on PATH (make test installs it: scripts/ensure-redis)")


def redis_cli(port: int, *args: str) -> str:
    """redis-cli against our server on `port`: its output."""
    out = subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def flush(server: RedisServer) -> str:
    """Empty our server and return its URL (it is ours alone: nobody else's data goes)."""
    redis_cli(server.port, "flushall")
    return server.url


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server of our own for the test session, on a free port."""
    require_redis()
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_url(private_redis: RedisServer) -> str:
    """The session's private server, emptied first: its URL."""
    return flush(private_redis)


CLUSTER_NODE = (
    *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
    *("--cluster-node-timeout", "2000"),
)
"""redis-server's arguments for a node of the tests' clusters (a 2 s node timeout)."""


@contextmanager
def redis_cluster(directory: Path, masters: int = 3) -> Iterator[list[int]]:
    """A real Redis Cluster of `masters` primaries on loopback; yields their ports."""
    require_redis()
    with ExitStack() as stack:
        ports = []
        for i in range(masters):
            node = redis_server(directory / f"node{i}", *CLUSTER_NODE)
            ports.append(stack.enter_context(node).port)
        nodes = [f"127.0.0.1:{p}" for p in ports]
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *nodes,
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        deadline = time.monotonic() + 30
        while not all("cluster_state:ok" in redis_cli(p, "cluster", "info") for p in ports):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not become ready")
            time.sleep(0.1)
        yield ports


@dataclass
class Service:
    """A running server on loopback and a client stub (a plaintext channel to it)."""

    stub: KafanaServiceStub
    server: KafanaServer
    store: TableStore
    channel: grpc.aio.Channel
    target: str

    @property
    def port(self) -> int:
        """The server's port on 127.0.0.1."""
        return self.server.port


async def seated_table(
    svc: Service, config: Any, names: tuple[str, ...] = ("ana", "bora")
) -> tuple[str, list[str]]:
    """Create a table of `config` (a `TableConfig`) and take a seat for each name, in seat order:
    the table id and the seat tokens (the match starts when the last seat is taken)."""
    from kafana.v1 import service_pb2

    created = await svc.stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    tokens = []
    for name in names:
        request = service_pb2.JoinTableRequest(table_id=created.table_id, name=name)
        tokens.append((await svc.stub.JoinTable(request)).seat_token)
    return created.table_id, tokens


async def finished(svc: Service, table_id: str, within: float = 10.0) -> TableState:
    """The table's state once its match is over (AssertionError after `within` seconds)."""
    from kafana.v1 import service_pb2, state_pb2

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
            return state
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} is still playing after {within} s")


@asynccontextmanager
async def running(
    store: TableStore, settings: Settings | None = None, **options: Any
) -> AsyncIterator[Service]:
    """Serve `store` on a free loopback port until the block ends, with `settings` (the one
    object `kafana serve` builds from its flags), else `Settings(**options)` with a quick
    clock; `plugins` and `accounts` go to `create_server` beside them."""
    import grpc
    from kafana.service.server import create_server
    from kafana.service.settings import Settings
    from kafana.v1.service_pb2_grpc import KafanaServiceStub

    beside = {k: options.pop(k) for k in ("plugins", "accounts") if k in options}
    if settings is None:
        settings = Settings(**{"host": "127.0.0.1", "port": 0, "clock_tick": 0.05, **options})
    server = create_server(store, settings, **beside)
    await server.start()
    target = f"127.0.0.1:{server.port}"
    channel = grpc.aio.insecure_channel(target)
    try:
        yield Service(KafanaServiceStub(channel), server, store, channel, target)
    finally:
        await channel.close()
        try:
            # gRPC's aio shutdown has hung, rarely, in long test runs (never in a test on its
            # own); bounded, so that shows as a warning instead of stalling the run.
            await asyncio.wait_for(server.stop(0.5), STOP_LIMIT_S)
        except TimeoutError:
            warnings.warn(f"the test server took over {STOP_LIMIT_S} s to stop", stacklevel=1)


@asynccontextmanager
async def redis_store_at(url: str) -> AsyncIterator[RedisStore]:
    """A table store on the Redis at `url` for the block (closed at its end): one a process."""
    from kafana.store.redis_store import RedisStore

    store = RedisStore.from_url(url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisStore]:
    """The table store on the session's private redis-server, emptied first: the store every
    test uses (there is no in-memory one). More stores on the same Redis, as more processes
    would have: `redis_store_at(redis_url)`."""
    async with redis_store_at(redis_url) as store:
        yield store


@asynccontextmanager
async def http_service(redis_url: str, **options: Any) -> AsyncIterator[Service]:
    """The service on the Redis at `redis_url`, with its HTTP port (`--http`) too."""
    from kafana.store.redis_store import RedisStore

    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, http_port=0, **options) as svc:
            assert svc.server.http is not None
            yield svc
    finally:
        await store.close()


@pytest.fixture
async def service(redis_url: str) -> AsyncIterator[Service]:
    """The service on the session's private redis-server (emptied first)."""
    from kafana.store.redis_store import RedisStore

    store = RedisStore.from_url(redis_url)
    try:
        async with running(store) as svc:
            yield svc
    finally:
        await store.close()


ANNOUNCED = re.compile(rb"serving on port (\d+)")
"""The line `kafana serve` prints once it serves, with the port it bound."""


@dataclass
class Served:
    """One `kafana serve` process of a test on a loopback port (of its own choosing unless
    one was asked for); its output goes to `log`."""

    process: subprocess.Popen[bytes]
    asked: int  # 0: the process binds a free port and announces it
    log: Path

    @property
    def port(self) -> int:
        """The port it serves on: the one asked for, else the one it announced (waited for)."""
        if not self.asked:
            self.asked = self.wait_started()
        return self.asked

    @property
    def target(self) -> str:
        """127.0.0.1:port"""
        return f"127.0.0.1:{self.port}"

    def signal(self, sig: int) -> None:
        """Send `sig` to this process (ours)."""
        os.kill(self.process.pid, sig)

    def output(self) -> str:
        """Everything it printed and logged so far."""
        return self.log.read_text(errors="replace")

    def wait_started(self, timeout: float = 30.0) -> int:
        """Until it says it serves, and the port it says (it fails the test if it exits or
        takes too long)."""
        deadline = time.monotonic() + timeout
        while (announced := ANNOUNCED.search(self.log.read_bytes())) is None:
            assert self.process.poll() is None, self.output()
            assert time.monotonic() < deadline, "kafana serve did not start"
            time.sleep(0.05)
        return int(announced.group(1))

    def stop(self, sig: int = SIGTERM) -> None:
        """SIGTERM (graceful) or SIGKILL (a crash), then wait for it to exit."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)

    def end(self) -> None:
        """Kill it if it still runs (a stopped process is continued first: else it cannot die)."""
        if self.process.poll() is None:
            with suppress(ProcessLookupError):
                self.signal(SIGCONT)
            self.process.kill()
        self.process.wait()


def serve(
    directory: Path, *args: str, env: dict[str, str] | None = None, port: int | None = None
) -> Served:
    """Start `kafana serve --port <port, else 0: one it binds itself> ARGS` (no KAFANA_*
    variables but those of `env`), its output in a new `directory/kafana-*.log`. The caller
    ends it (`Served.end`). The process chooses its port, rather than the kit asking the kernel
    for a free one first: a port handed out twice before either process bound it left one
    server dead and both targets on the other (tests/test_kit_ports.py)."""
    directory.mkdir(parents=True, exist_ok=True)
    port = port or 0
    handle, name = tempfile.mkstemp(prefix="kafana-", suffix=".log", dir=directory)
    os.close(handle)
    log = Path(name)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    environment.update(env or {})
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [KAFANA, "serve", "--port", str(port), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    return Served(process, port, log)


@contextmanager
def serving(
    directory: Path, *args: str, count: int = 1, env: dict[str, str] | None = None
) -> Iterator[list[Served]]:
    """`count` `kafana serve` processes (`serve`), each on its own free port; ended at the end."""
    servers: list[Served] = []
    try:
        for _ in range(count):
            servers.append(serve(directory, *args, env=env))
        yield servers
    finally:
        for server in servers:
            server.end()


async def healthy(target: str, timeout: float = 30, credentials: Any = None) -> None:
    """Wait until the health service at `target` says SERVING (`credentials`: TLS)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    channel = (
        grpc.aio.insecure_channel(target)
        if credentials is None
        else grpc.aio.secure_channel(target, credentials)
    )
    async with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while loop.time() < deadline:
            try:
                answer = await stub.Check(
                    health_pb2.HealthCheckRequest(service="kafana.v1.KafanaService"), timeout=1
                )
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"no healthy server at {target}")


async def refusal(call: Any) -> grpc.aio.AioRpcError:
    """The error a gRPC call fails with (the test fails if it succeeds)."""
    import grpc

    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the call succeeded")


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refusal (`NOT_YOUR_TURN`; "" without one), read from its
    `google.rpc.Status` (trailing metadata `grpc-status-details-bin`) as any client does."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return ""


def retry_delay_ms(error: grpc.RpcError) -> int | None:
    """The RetryInfo delay of a refusal in milliseconds (None without one)."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                wait = error_details_pb2.RetryInfo()
                if detail.Unpack(wait):
                    return int(wait.retry_delay.ToMilliseconds())
    return None


def spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[tuple[Any, ...]]:
    """The positional arguments of every call of `owner.name` from now on (it still runs; a
    method patched on its class gets `self` first), in the list returned."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls


def info_metadata(error: grpc.RpcError) -> dict[str, str]:
    """The ErrorInfo metadata of a refusal (what was wrong: {"field": "last_seq"}; {} without)."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return dict(info.metadata)
    return {}
