"""Helpers of the fault suite: Redis with the project's settings, `kafana serve` processes, and
match drivers that remember every acknowledged move and check the records afterwards."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
from kafana.games import tablic
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))

import kit  # noqa: E402
from kafana_play import Table, config, open_table  # noqa: E402
from kit import (  # noqa: E402
    CLUSTER_NODE,
    RedisServer,
    Served,
    free_port,
    healthy,
    redis_cli,
    redis_cluster,
    redis_server,
    seat_md,
)
from kit import serving as kit_serving  # noqa: E402

REDIS_CONF = HERE.parent.parent / "deploy" / "redis.conf"
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
}
T = TypeVar("T")

__all__ = ["Table", "config", "free_port", "healthy", "open_table", "seat_md"]


class Redis(RedisServer):
    """A private redis-server started with deploy/redis.conf (AOF, fsync always), started at
    once; `start` again (same port and directory) after `kill` loads what was fsynced."""

    def __init__(self, directory: Path, *extra: str) -> None:
        super().__init__(directory, *extra, config=REDIS_CONF)
        self.start()

    def start(self, timeout: float = 20.0) -> Redis:
        """Start (again) on the same port and directory, and wait until the AOF is loaded."""
        super().start(timeout)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # PONG may come before the AOF is loaded
            if "loading:0" in self.cli("info", "persistence"):
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not finish loading")

    def cli(self, *args: str) -> str:
        """redis-cli against this server."""
        return redis_cli(self.port, *args)

    def close(self) -> None:
        """Stop for good (SIGKILL, as the fault tests leave it)."""
        self.kill()


@contextmanager
def serving(directory: Path, *args: str, count: int = 1) -> Iterator[list[Served]]:
    """`count` `kafana serve` processes (each on a free port, `--grace 1`); killed at the end."""
    with kit_serving(directory, "--grace", "1", *args, count=count) as servers:
        yield servers


def caught_up(primary: int, timeout: float = 30.0) -> None:
    """Until every replica of the primary on `primary` has taken all it wrote so far (its
    offset at the primary's): what a test that then cuts a replica off assumes it held."""
    deadline = time.monotonic() + timeout
    while True:
        info = dict(
            line.split(":", 1)
            for line in redis_cli(primary, "info", "replication").split()
            if ":" in line
        )
        written = int(info["master_repl_offset"])
        taken = [int(v.split("offset=")[1].split(",")[0]) for k, v in info.items()
                 if k.startswith("slave") and "offset=" in v]  # fmt: skip
        if taken and min(taken) >= written:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the replicas of 127.0.0.1:{primary} stayed behind")
        time.sleep(0.05)


def add_replica(stack: ExitStack, directory: Path, primary: int) -> RedisServer:
    """A new cluster node that replicates the primary on port `primary` (ended with `stack`),
    once it is in sync with it."""
    replica = stack.enter_context(redis_server(directory, *CLUSTER_NODE))
    primary_id = redis_cli(primary, "cluster", "myid").strip()
    subprocess.run(
        ["redis-cli", "--cluster", "add-node", f"127.0.0.1:{replica.port}",
         f"127.0.0.1:{primary}", "--cluster-slave", "--cluster-master-id", primary_id],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "state=online" not in redis_cli(primary, "info", "replication"):  # synced
        if time.monotonic() > deadline:
            raise RuntimeError(f"no replica of 127.0.0.1:{primary} came in sync")
        time.sleep(0.1)
    return replica


@contextmanager
def cluster_with_replicas(directory: Path) -> Iterator[tuple[list[int], list[RedisServer]]]:
    """The kit's 3-primary Redis Cluster with a replica added to each primary (as deploy/ runs
    it: three primaries, three replicas); yields the primaries' ports and their replicas, in
    the same order."""
    with redis_cluster(directory) as ports, ExitStack() as stack:
        replicas = [
            add_replica(stack, directory / f"replica{i}", port) for i, port in enumerate(ports)
        ]
        deadline = time.monotonic() + 60
        while not all("cluster_state:ok" in redis_cli(p, "cluster", "info") for p in ports):
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster is not ok with its replicas")
            time.sleep(0.1)
        yield ports, replicas


@dataclass
class Match:
    """A table driven by one test: every acknowledged move by sequence number."""

    table: Table
    acked: dict[int, str] = field(default_factory=dict)
    failures: int = 0  # calls that failed and were retried
    duplicates: int = 0  # retries answered "already applied"
    preferred: int = 0  # index of the stub tried first


async def call(
    stubs: Sequence[KafanaServiceStub],
    make: Callable[[KafanaServiceStub], Awaitable[T]],
    match: Match,
    attempts: int = 400,
    pause: float = 0.05,
) -> T:
    """`make(stub)` on the preferred stub, moving to the next one after a retryable failure."""
    for _attempt in range(attempts):
        stub = stubs[match.preferred % len(stubs)]
        try:
            return await make(stub)
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRYABLE:
                raise
            match.failures += 1
            match.preferred += 1
            await asyncio.sleep(pause)
    raise AssertionError(f"no answer after {attempts} attempts")


async def step(
    stubs: Sequence[KafanaServiceStub], match: Match, rng: random.Random, timeout: float = 3.0
) -> bool:
    """The seat to move plays a random legal move, retried until acknowledged; False if over."""
    tid = match.table.table_id
    state = await call(
        stubs,
        lambda s: s.GetState(service_pb2.GetStateRequest(table_id=tid), timeout=timeout),
        match,
    )
    if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
        return False
    token = match.table.tokens[state.current_seat]
    md = seat_md(token)
    legal = await call(
        stubs,
        lambda s: s.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=tid), timeout=timeout, metadata=md
        ),
        match,
    )
    request = service_pb2.PlayMoveRequest(
        table_id=tid,
        move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
        client_move_id=uuid.uuid4().hex,
        last_seq=legal.seq,
    )
    played = await call(stubs, lambda s: s.PlayMove(request, timeout=timeout, metadata=md), match)
    acknowledge(match, request, played)
    return True


def acknowledge(
    match: Match, request: service_pb2.PlayMoveRequest, played: service_pb2.PlayMoveResponse
) -> None:
    """Remember an acknowledged move; it must sit right after the state it was decided on."""
    seq = played.event.seq
    assert seq == request.last_seq + 1, (request, played.event)
    assert played.event.kind == events_pb2.EVENT_KIND_MOVE
    assert match.acked.setdefault(seq, played.event.move.text) == played.event.move.text
    match.duplicates += played.duplicate


async def finish(stubs: Sequence[KafanaServiceStub], match: Match, rng: random.Random) -> None:
    """Play the match to its end (through faults, with retries)."""
    for _ in range(10_000):
        if not await step(stubs, match, rng):
            return
    raise AssertionError("the match did not end")


async def check_records(stub: KafanaServiceStub, matches: Sequence[Match]) -> None:
    """After the faults: nothing acknowledged lost, nothing applied twice, seqs 1, 2, 3...,
    the event feed the same as the record, and the record replays."""
    for match in matches:
        tid = match.table.table_id
        record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=tid), timeout=10)
        seqs = [event.seq for event in record.events]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        moves = {
            event.seq: event.move.text
            for event in record.events
            if event.kind == events_pb2.EVENT_KIND_MOVE
        }
        # Only this driver moves, and it retried each move until acknowledged: every move in
        # the log is one it was told about (none applied twice), and every acknowledged one is
        # there (none lost).
        assert moves == match.acked
        fed = [
            item.event.seq
            async for item in stub.WatchEvents(
                service_pb2.WatchEventsRequest(table_id=tid, after_seq=0), timeout=20
            )
            if item.HasField("event")
        ]
        assert fed == seqs
        replayed = tablic.MatchRecord.from_text(record.record)
        assert [str(m) for m in replayed.moves] == [moves[s] for s in sorted(moves)]
        final = replayed.replay()
        assert final.is_over
        assert list(record.result.scores) == list(final.scores)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(directory: Path, name: str) -> None:
    """A self-signed test CA: `name`.pem and `name`.key."""
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={name}",
        cwd=directory,
    )  # fmt: skip


def issue(directory: Path, name: str, ca: str, extensions: str) -> None:
    """A certificate `name`.pem (and .key) signed by test CA `ca`."""
    _openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=directory,
    )  # fmt: skip
    (directory / f"{name}.ext").write_text(extensions)
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
        "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
        cwd=directory,
    )  # fmt: skip


def make_certs(directory: Path) -> Path:
    """A CA with a server certificate (localhost, 127.0.0.1) and a client one, plus a client
    certificate from another CA the server does not trust."""
    make_ca(directory, "ca")
    issue(directory, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    issue(directory, "client", "ca", "extendedKeyUsage=clientAuth\n")
    make_ca(directory, "rogue-ca")
    issue(directory, "rogue", "rogue-ca", "extendedKeyUsage=clientAuth\n")
    return directory


def channel_credentials(certs: Path, client: str | None) -> grpc.ChannelCredentials:
    """Trust the test CA; present certificate `client` (e.g. "client", "rogue") if given."""
    return grpc.ssl_channel_credentials(
        root_certificates=(certs / "ca.pem").read_bytes(),
        private_key=None if client is None else (certs / f"{client}.key").read_bytes(),
        certificate_chain=None if client is None else (certs / f"{client}.pem").read_bytes(),
    )


def reason_of(error: grpc.aio.AioRpcError) -> str | None:
    """The ErrorInfo reason of a refusal (None without one): `kit.reason_of`."""
    return kit.reason_of(error) or None


def metadata_of(error: grpc.aio.AioRpcError, key: str) -> Any:
    """One trailing metadata value of a refusal (None if absent)."""
    for name, value in error.trailing_metadata() or ():
        if name == key:
            return value
    return None
