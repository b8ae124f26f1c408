"""A league on `kafana serve` processes: the `kafana bot run --table T --seat 0` attack on a
paired player's seat is refused, and the ticket streams end cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import grpc
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc
from kit import KAFANA, healthy, serving

from .league_helpers import bearer


async def test_a_stranger_cannot_play_a_league_seat_and_streams_end_on_sigterm(
    tmp_path: Path, redis_url: str
) -> None:
    client = RedisClient.from_url(redis_url)
    accounts = RedisAccounts(client)
    keys: dict[str, str] = {}
    for name, role in (("org", "organiser"), ("ana", "player"), ("bob", "player")):
        keys[name] = new_key()
        assert await accounts.create(Account(name, role, now_ms()), key_hash(keys[name]))
    keys["mallory"] = new_key()
    assert await accounts.create(Account("mallory", "player", now_ms()), key_hash(keys["mallory"]))
    await client.close()
    with serving(tmp_path, "--redis", redis_url) as (served,):
        served.wait_started()
        await healthy(served.target)
        async with grpc.aio.insecure_channel(served.target) as channel:
            stub = leagues_pb2_grpc.LeaguesServiceStub(channel)
            spec = pb.LeagueSpec(target=11, move_ms=5000, join_deadline_ms=30000)
            await stub.CreateLeague(
                pb.CreateLeagueRequest(league="door", spec=spec), metadata=bearer(keys["org"])
            )
            streams = {
                p: stub.WatchTickets(
                    pb.WatchTicketsRequest(league="door"), metadata=bearer(keys[p])
                )
                for p in ("ana",)  # bob has not shown up: his seat is open
            }
            for p in ("ana", "bob"):
                await stub.JoinQueue(pb.JoinQueueRequest(league="door"), metadata=bearer(keys[p]))
            ticket = None
            async with asyncio.timeout(30):
                async for update in streams["ana"]:
                    if update.HasField("ticket"):
                        ticket = update.ticket
                        break
            assert ticket is not None
            bobs = str(1 - ticket.seat)  # open, bound to bob's account
            attacks = (([], bobs, "api key"), (["--key", keys["mallory"]], bobs, "is for 'bob'"))
            for extra, seat, refused in attacks:
                done = subprocess.run(
                    [KAFANA, "bot", "run", "greedy", "--server", served.target,
                     "--table", ticket.table_id, "--seat", seat, "--name", "mallory", *extra],
                    capture_output=True, text=True, timeout=60,
                )  # fmt: skip
                said = done.stdout + done.stderr
                assert done.returncode != 0 and refused in said.lower(), said
            # SIGTERM: the ticket streams end and the process exits in good time
            started = time.monotonic()
            served.stop()
            assert served.process.returncode == 0, served.output()
            assert time.monotonic() - started < 15
            for call in streams.values():
                async with asyncio.timeout(10):
                    async for _update in call:  # the rest, then the end of the stream
                        pass
                assert await call.code() == grpc.StatusCode.OK
