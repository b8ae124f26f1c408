"""What one league costs its Redis node, measured on a private redis-server through the
league's own store and referee (`RedisLeagues`, `Referee.pair`, `Referee.settle`): memory per
queued player, per match made (its table too) and per settled match (its fair record,
ratings, board, histories, match lists), and the Redis commands (round trips and commands
run, scripts' inside included) per match paired. Run from the repository:

    PYTHONPATH=tests .venv/bin/python -m competitions.league_footprint --accounts 4000

Every league key carries the hash tag `{lg:<league>}`: on a Redis cluster one league lives on
one node (its slot), whatever the number of nodes; the tables its matches are played on carry
their own tags and spread over the nodes. The figures scale to a league of 100,000 accounts
by multiplication (docs/competitions.md).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from pathlib import Path
from typing import Any

import redis
from kafana.competitions.envelope import FairRecord
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.results import Outcome
from kafana.competitions.league.spec import dump, league_spec
from kafana.service.tables import Tables
from kafana.store.client import RedisClient
from kafana.store.redis_server import redis_server
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "demo-cup-r1-g1.fair"
LEAGUE = "big"


def league_bytes(r: redis.Redis) -> tuple[int, int]:
    """The league's keys: how many, and their MEMORY USAGE summed."""
    keys = list(r.scan_iter(match="{lg:" + LEAGUE + "}*", count=1000))
    return len(keys), sum(int(r.memory_usage(k, samples=0) or 0) for k in keys)


def calls(r: redis.Redis) -> dict[str, int]:
    """Commands run so far, by name (a script's own commands counted too)."""
    stats: dict[str, Any] = r.info("commandstats")
    return {name: int(v["calls"]) for name, v in stats.items()}


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


async def measure(url: str, accounts: int) -> None:
    r = redis.Redis.from_url(url)
    client = RedisClient.from_url(url)
    tables_store = RedisStore.from_url(url)
    leagues = RedisLeagues(client)
    spec = league_spec(pb.LeagueSpec(target=11))
    await leagues.create(LEAGUE, {"spec": dump(spec), "organiser": "org"})
    referee = Referee(leagues, Tables(tables_store), batch=500)
    record = FairRecord.from_text(EXAMPLE.read_text()).record
    rng = random.Random(1)
    players = [f"account{i:06d}" for i in range(accounts)]
    now = int(time.time() * 1000)
    _, empty = league_bytes(r)
    used0 = int(r.info("memory")["used_memory"])
    for p in players:
        await leagues.join(LEAGUE, p, 25.0 + rng.uniform(-0.5, 0.5), now)
    _, queued = league_bytes(r)
    used1 = int(r.info("memory")["used_memory"])
    before = calls(r)
    made: list[int] = []
    while True:
        got = await referee.pair(LEAGUE, spec)
        if not got:
            break
        made += got
    pairing = delta(calls(r), before)
    _, paired = league_bytes(r)
    used2 = int(r.info("memory")["used_memory"])
    before = calls(r)
    for number in made:
        match = await leagues.match(LEAGUE, number)
        outcome = Outcome("score", (11.0, 3.0), "side 0 won 11-3", record=record)
        await referee.settle(LEAGUE, spec, number, match, outcome)
    settling = delta(calls(r), before)
    count, settled = league_bytes(r)
    used3 = int(r.info("memory")["used_memory"])
    n = len(made)
    trips = ("evalsha", "eval", "fcall")
    print(f"{accounts} accounts queued, {n} matches made and settled")
    print(f"league keys: {count}; bytes (MEMORY USAGE, league keys only):")
    print(f"  queued: {(queued - empty) / accounts:.0f} per queued player")
    print(f"  paired: {(paired - queued) / n:.0f} per match made (league keys)")
    print(f"  settled: {(settled - paired) / n:.0f} per settled match (record, ratings, lists)")
    print(
        f"server used_memory: queue {(used1 - used0) / accounts:.0f} B/player, pairing"
        f" {(used2 - used1) / n:.0f} B/match (tables included), settling"
        f" {(used3 - used2) / n:.0f} B/match"
    )
    for what, seen in (("pairing", pairing), ("settling", settling)):
        total = sum(seen.values())
        scripts = sum(v for k, v in seen.items() if k.removeprefix("cmdstat_") in trips)
        top = ", ".join(f"{k.removeprefix('cmdstat_')} {v / n:.1f}" for k, v in
                        sorted(seen.items(), key=lambda kv: -kv[1])[:8])  # fmt: skip
        print(
            f"{what}: {total / n:.1f} commands per match, {scripts / n:.1f} of them scripts: {top}"
        )
    await client.close()
    await tables_store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--accounts", type=int, default=4000)
    args = parser.parse_args()
    with redis_server() as server:
        asyncio.run(measure(server.url, args.accounts))


if __name__ == "__main__":
    main()
