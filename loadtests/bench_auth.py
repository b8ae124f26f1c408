"""The cost of checking an API key on every call: `kafana serve --auth open` against
`--auth required`, side by side in one run.

    .venv/bin/python loadtests/bench_auth.py --moves 600 --captures 3000 --rounds 3

One private redis-server (never the shared one) and two `kafana serve` processes on it, one
`--auth open` (anonymous calls) and one `--auth required` (every call with a bot's key, made
straight in the store). Each round drives each server in turn, in alternating order, from one
sequential client: whole matches of PlayMove calls (`instructions.play`, CreateTable and
JoinTable included, as the load test's `TableUser` plays) and `Captures` calls on random
tables of up to 8 cards. Measured: the server's CPU time per call (user + system, psutil)
and the client's wall time per call; the medians of the rounds are printed as a table. Then
the authenticator alone, in this process (no gRPC, no other load): its time per call for an
anonymous call in open mode, a key from its one-second lookup cache, and a key looked up in
Redis on every call.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import grpc  # type: ignore[import-untyped, unused-ignore]
import psutil
from kafana.games.cards import CARDS
from kafana.service.accounts_book import AccountBook
from kafana.service.auth import OPEN, REQUIRED, Authenticator, AuthPolicy
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient
from kafana.v1 import service_pb2, service_pb2_grpc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import RULES_SPEC, play  # noqa: E402
from run import redis_server, server_command  # noqa: E402
from side_by_side import alternating, serving  # noqa: E402

SERVE = f"{Path(sys.executable).parent / 'kafana'} serve --redis {{redis}} --port {{port}}"
SERVE += " --grace 1 --rate-limit 0 --auth "
Metadata = tuple[tuple[str, str], ...]


def captures(target: str, calls: int, seed: int, metadata: Metadata) -> None:
    """`calls` Captures calls on random tables of 1 to 8 cards."""
    rng = random.Random(seed)
    deck = [str(card) for card in CARDS]
    with grpc.insecure_channel(target) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        for _ in range(calls):
            card, *table = rng.sample(deck, rng.randint(2, 9))
            request = service_pb2.CapturesRequest(card=card, table=table, rules=RULES_SPEC)
            stub.Captures(request, metadata=metadata, timeout=30)


def bot_key(redis_url: str) -> str:
    """A bot account's key, made straight in the store."""

    async def make() -> str:
        client = RedisClient.from_url(redis_url)
        try:
            _account, key = await AccountBook(RedisAccounts(client)).create("bench", "bot")
            return key
        finally:
            await client.close()

    return asyncio.run(make())


def measure(pid: int, job: Callable[[], None], calls: int) -> tuple[float, float]:
    """(server CPU µs per call, client wall µs per call) of `job`."""
    process = psutil.Process(pid)
    before = process.cpu_times()
    start = time.perf_counter()
    job()
    wall = time.perf_counter() - start
    after = process.cpu_times()
    cpu = (after.user - before.user) + (after.system - before.system)
    return cpu / calls * 1e6, wall / calls * 1e6


class _Context:
    """Just what the authenticator reads of a call."""

    def __init__(self, metadata: Metadata) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> Metadata:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:40000"


def resolve_costs(redis_url: str, key: str, calls: int) -> dict[str, float]:
    """µs per `Authenticator.resolve` in this process: anonymous in open mode, a key from the
    lookup cache, and a key looked up in Redis on every call (no cache)."""

    async def run() -> dict[str, float]:
        client = RedisClient.from_url(redis_url)
        accounts = RedisAccounts(client)
        keyed = _Context((("authorization", f"Bearer {key}"),))
        cases = {
            "open, no key": (AuthPolicy(mode=OPEN), _Context(())),
            "required, cached key": (AuthPolicy(mode=REQUIRED), keyed),
            "required, key from Redis": (AuthPolicy(mode=REQUIRED, cache_s=0.0), keyed),
        }
        costs = {}
        try:
            for name, (policy, context) in cases.items():
                auth = Authenticator(accounts, policy)
                request = service_pb2.PlayMoveRequest()
                await auth.resolve("PlayMove", request, context)  # type: ignore[arg-type]
                start = time.perf_counter()
                for _ in range(calls):
                    await auth.resolve("PlayMove", request, context)  # type: ignore[arg-type]
                costs[name] = (time.perf_counter() - start) / calls * 1e6
        finally:
            await client.close()
        return costs

    return asyncio.run(run())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=600, help="PlayMove calls per round")
    parser.add_argument("--captures", type=int, default=3000, help="Captures calls per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    modes = ("open", "required")
    with (
        tempfile.TemporaryDirectory(prefix="bench-auth-") as work,
        redis_server(Path(work)) as (_redis, redis_port),
    ):
        url = f"redis://127.0.0.1:{redis_port}/0"
        metadata: dict[str, Metadata] = {
            "open": (),
            "required": (("authorization", f"Bearer {bot_key(url)}"),),
        }
        commands = {mode: partial(server_command, SERVE + mode, url) for mode in modes}
        with serving(commands, Path(work)) as servers:
            for round_, mode in alternating(modes, args.rounds):
                seed = args.seed + round_
                target, process = servers[mode]
                jobs = {
                    "move path": (
                        partial(play, target, args.moves, seed, (metadata[mode],)),
                        args.moves,
                    ),
                    "Captures": (
                        partial(captures, target, args.captures, seed, metadata[mode]),
                        args.captures,
                    ),
                }
                for what, (job, calls) in jobs.items():
                    results.setdefault((mode, what), []).append(measure(process.pid, job, calls))
            costs = resolve_costs(url, metadata["required"][0][1].removeprefix("Bearer "), 20_000)
    print(f"medians of {args.rounds} rounds; {args.moves} moves, {args.captures} Captures a round")
    print(f"{'calls':<10} {'auth':<9} {'server CPU µs/call':>19} {'client wall µs/call':>20}")
    for what in ("move path", "Captures"):
        for mode in modes:
            got = results[(mode, what)]
            cpu = statistics.median(c for c, _ in got)
            wall = statistics.median(w for _, w in got)
            print(f"{what:<10} {mode:<9} {cpu:>19.0f} {wall:>20.0f}")
    print("the authenticator alone, in-process, µs per call:")
    for name, cost in costs.items():
        print(f"  {name:<26} {cost:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
