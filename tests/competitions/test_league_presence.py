"""A queued league player whose client is gone is taken out of the queue: never paired (nor
rated) for a match it could not play; `kafana league play` leaves the queue on SIGTERM too
(issue 32: a killed client was paired 0.27 s later and took a rated loss)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc
from kit import KAFANA, healthy, serving, signal_other_thread

from .league_helpers import bearer


async def _waiting(stub: leagues_pb2_grpc.LeaguesServiceStub, count: int) -> None:
    async with asyncio.timeout(60):
        while (await stub.GetLeague(pb.GetLeagueRequest(league="door"))).waiting != count:
            await asyncio.sleep(0.1)


def _ignore_sigint() -> None:
    """A child with Ctrl-C ignored, as a script's background job (`cmd &`) starts: SIGTERM
    must end it all the same (it once did so by raising SIGINT, which such a child ignored;
    so do the xdist workers, which made that test pass or hang by the worker it ran in)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play(target: str, key: str) -> subprocess.Popen[str]:
    """`kafana league play door random` for the account of `key` (Ctrl-C ignored)."""
    return subprocess.Popen(
        [KAFANA, "league", "play", "door", "random", "--server", target, "--key", key],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=_ignore_sigint,
    )  # fmt: skip


@contextlib.asynccontextmanager
async def _door(
    tmp_path: Path, redis_url: str
) -> AsyncIterator[tuple[str, leagues_pb2_grpc.LeaguesServiceStub, dict[str, str]]]:
    """A server with league "door" made by "org": its target, a stub and the accounts' keys
    (org, ana, bob)."""
    client = RedisClient.from_url(redis_url)
    accounts = RedisAccounts(client)
    keys: dict[str, str] = {}
    for name, role in (("org", "organiser"), ("ana", "player"), ("bob", "player")):
        keys[name] = new_key()
        assert await accounts.create(Account(name, role, now_ms()), key_hash(keys[name]))
    await client.close()
    with serving(tmp_path, "--redis", redis_url) as (served,):
        served.wait_started()
        await healthy(served.target)
        async with grpc.aio.insecure_channel(served.target) as channel:
            stub = leagues_pb2_grpc.LeaguesServiceStub(channel)
            spec = pb.LeagueSpec(target=11, move_ms=5000, join_deadline_ms=5000)
            await stub.CreateLeague(
                pb.CreateLeagueRequest(league="door", spec=spec), metadata=bearer(keys["org"])
            )
            yield served.target, stub, keys


async def test_a_dead_queued_client_is_not_paired_and_sigterm_leaves_the_queue(
    tmp_path: Path, redis_url: str
) -> None:
    async with _door(tmp_path, redis_url) as (target, stub, keys):
        # ana's client queues, then dies without a word (SIGKILL)
        ana = _play(target, keys["ana"])
        await _waiting(stub, 1)
        ana.kill()
        ana.wait(timeout=30)
        await _waiting(stub, 0)  # gone from the queue with her ticket stream
        # bob comes: nobody to pair him with
        bob = bearer(keys["bob"])
        tickets = stub.WatchTickets(pb.WatchTicketsRequest(league="door"), metadata=bob)
        status = await stub.JoinQueue(pb.JoinQueueRequest(league="door"), metadata=bob)
        assert status.state == pb.QUEUE_STATE_WAITING
        await asyncio.sleep(2.0)  # the referee pairs every 0.1 s
        status = await stub.LeaveQueue(pb.LeaveQueueRequest(league="door"), metadata=bob)
        assert status.state == pb.QUEUE_STATE_IDLE  # never paired
        tickets.cancel()
        info = await stub.GetLeague(pb.GetLeagueRequest(league="door"))
        assert info.matches_made == 0
        player = await stub.GetPlayer(
            pb.GetPlayerRequest(league="door", player="ana"), metadata=bob
        )
        assert player.games == 0

        # SIGTERM: the command leaves the queue itself and says so (exit 143)
        ana = _play(target, keys["ana"])
        await _waiting(stub, 1)
        ana.send_signal(signal.SIGTERM)
        out, err = ana.communicate(timeout=30)
        assert ana.returncode == 143, (out, err)
        assert "left the queue" in err
        await _waiting(stub, 0)


async def test_sigterm_on_any_thread_leaves_the_queue_at_once(
    tmp_path: Path, redis_url: str
) -> None:
    """A SIGTERM the kernel hands to one of gRPC's threads, not the main one: the command
    still leaves the queue and ends (it hung until the ticket stream's next message: issue 30's
    CI at three workers: ~3 s here, to the next timer of the client's loop)."""
    async with _door(tmp_path, redis_url) as (target, stub, keys):
        ana = _play(target, keys["ana"])
        await _waiting(stub, 1)
        signal_other_thread(ana.pid, signal.SIGTERM)  # one of gRPC's threads
        out, err = ana.communicate(timeout=2.5)  # ~0.1 s when told at once
        assert ana.returncode == 143, (out, err)
        assert "left the queue" in err
        await _waiting(stub, 0)
