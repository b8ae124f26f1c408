"""What one league costs its Redis, measured on private redis-servers through the league's own
store and referee (`RedisLeagues`, `Referee.pair`, `Referee.settle`): memory per queued player,
per match made (its table too) and per settled match (its fair record, ratings, board,
histories, match lists), and the Redis commands (scripts' inside included) per match paired
and settled, and per idle referee round, on each node. Run from the repository:

    PYTHONPATH=tests .venv/bin/python -m competitions.league_footprint --accounts 4000
    PYTHONPATH=tests .venv/bin/python -m competitions.league_footprint --accounts 20000 \
        --bands 8 --cluster 3

A league's own keys carry its hash tag `{lg:<league>}`; with `--bands B` the queue is split
into B rating bands (`LeagueSpec.band_edges`, the players' ratings spread evenly over them),
each band's keys under `{lg:<league>:b<i>}`, and each player's band under its own tag. With
`--cluster N` it runs on a real N-primary Redis Cluster (tests/kit.py) and shows what each
node carries. The figures scale to a league of 100,000 accounts by multiplication
(docs/competitions.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis
from kafana.competitions.envelope import FairRecord
from kafana.competitions.league.keys import BandKeys, LeagueKeys
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
LOW, HIGH = 5.0, 45.0
"""The players' pairing ratings, spread evenly (the bands' edges split this range evenly)."""
IDLE_ROUNDS = 100


def league_bytes(nodes: list[redis.Redis]) -> list[tuple[int, int]]:
    """Per node, the league's keys (its own, its bands', its players' bands): how many, and
    their MEMORY USAGE summed."""
    out = []
    for r in nodes:
        keys = list(r.scan_iter(match="{lg:" + LEAGUE + "[}:]*", count=1000))
        out.append((len(keys), sum(int(r.memory_usage(k, samples=0) or 0) for k in keys)))
    return out


def calls(nodes: list[redis.Redis]) -> list[dict[str, int]]:
    """Per node, the commands run so far, by name (a script's own commands counted too)."""
    out = []
    for r in nodes:
        stats: dict[str, Any] = r.info("commandstats")
        out.append({name: int(v["calls"]) for name, v in stats.items()})
    return out


def used(nodes: list[redis.Redis]) -> list[int]:
    """Per node, the server's used_memory."""
    return [int(r.info("memory")["used_memory"]) for r in nodes]


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


def edges(bands: int) -> list[float]:
    """Edges that split LOW..HIGH into `bands` equal bands."""
    return [LOW + (HIGH - LOW) * i / bands for i in range(1, bands)]


def show_commands(what: str, per: str, count: int, seen: list[dict[str, int]]) -> None:
    """Commands per `per` on each node, and the top ones of the busiest node."""
    totals = [sum(node.values()) for node in seen]
    trips = ("evalsha", "eval", "fcall")
    scripts = [
        sum(v for k, v in node.items() if k.removeprefix("cmdstat_") in trips) for node in seen
    ]
    busiest = seen[totals.index(max(totals))]
    top = ", ".join(f"{k.removeprefix('cmdstat_')} {v / count:.1f}" for k, v in
                    sorted(busiest.items(), key=lambda kv: -kv[1])[:6])  # fmt: skip
    nodes = " | ".join(
        f"{t / count:.1f} ({s / count:.1f} scripts)" for t, s in zip(totals, scripts, strict=True)
    )
    print(f"{what}: commands per {per}, by node: {nodes}; total {sum(totals) / count:.1f}")
    print(f"  the busiest node: {top}")


async def where(client: RedisClient, urls: list[str], bands: int) -> str:
    """Which node holds the league's own tag and each band's."""
    ports = [urlsplit(u).port for u in urls[1:]]

    async def node(tag: str) -> int:
        return ports.index((await client.node_of(tag)).port) if client.cluster else 0

    held = [await node(BandKeys(LEAGUE, b, bands).tag) for b in range(bands)]
    by_node = [
        ",".join(str(b) for b in range(bands) if held[b] == n) or "-" for n in range(len(ports))
    ]
    return (
        f"the league's own tag on node {await node(LeagueKeys(LEAGUE).tag)}; bands by node: "
        + " | ".join(by_node)
    )


async def measure(urls: list[str], accounts: int, bands: int, queue_only: bool) -> None:
    nodes = [redis.Redis.from_url(u) for u in urls[1:]]
    client = RedisClient.from_url(urls[0])
    tables_store = RedisStore.from_url(urls[0])
    leagues = RedisLeagues(client)
    spec = league_spec(pb.LeagueSpec(target=11, band_edges=edges(bands)))
    await leagues.create(LEAGUE, {"spec": dump(spec), "organiser": "org"})
    referee = Referee(leagues, Tables(tables_store), batch=500)
    record = FairRecord.from_text(EXAMPLE.read_text()).record
    rng = random.Random(1)
    players = [f"account{i:06d}" for i in range(accounts)]
    now = int(time.time() * 1000)
    empty, used0 = league_bytes(nodes), used(nodes)
    before = calls(nodes)
    for p in players:
        await leagues.join(LEAGUE, p, rng.uniform(LOW, HIGH), now)
    joining = [delta(a, b) for a, b in zip(calls(nodes), before, strict=True)]
    queued, used1 = league_bytes(nodes), used(nodes)
    print(f"{accounts} accounts queued in {bands} band(s) on {len(nodes)} node(s)")
    print(await where(client, urls, bands))
    if queue_only:
        print("league keys by node (count, MEMORY USAGE): " + " | ".join(
            f"{c} keys {b / 1e6:.2f} MB" for c, b in queued))  # fmt: skip
        show_commands("joining", "join", accounts, joining)
        await client.close()
        await tables_store.close()
        return
    before = calls(nodes)
    made: list[int] = []
    while True:
        got = await referee.pair(LEAGUE, spec)
        if not got:
            break
        made += got
    pairing = [delta(a, b) for a, b in zip(calls(nodes), before, strict=True)]
    paired, used2 = league_bytes(nodes), used(nodes)
    before = calls(nodes)
    for number in made:
        match = await leagues.match(LEAGUE, number)
        outcome = Outcome("score", (11.0, 3.0), "side 0 won 11-3", record=record)
        await referee.settle(LEAGUE, spec, number, match, outcome)
    settling = [delta(a, b) for a, b in zip(calls(nodes), before, strict=True)]
    settled, used3 = league_bytes(nodes), used(nodes)
    before = calls(nodes)
    for _ in range(IDLE_ROUNDS):
        await referee.round(LEAGUE)
    idle = [delta(a, b) for a, b in zip(calls(nodes), before, strict=True)]
    n = len(made)
    print(f"{n} matches made and settled")
    print("league keys by node (count, MEMORY USAGE) after settling: " + " | ".join(
        f"{c} keys {b / 1e6:.2f} MB" for c, b in settled))  # fmt: skip
    for i in range(len(nodes)):
        print(
            f"node {i}: league B/player queued {(queued[i][1] - empty[i][1]) / accounts:.0f},"
            f" per match made {(paired[i][1] - queued[i][1]) / n:.0f},"
            f" per match settled {(settled[i][1] - paired[i][1]) / n:.0f};"
            f" used_memory per player queued {(used1[i] - used0[i]) / accounts:.0f},"
            f" per match paired {(used2[i] - used1[i]) / n:.0f} (tables too),"
            f" settled {(used3[i] - used2[i]) / n:.0f}"
        )
    show_commands("joining", "join", accounts, joining)
    show_commands("pairing", "match", n, pairing)
    show_commands("settling", "match", n, settling)
    show_commands("an idle referee", "round", IDLE_ROUNDS, idle)
    await client.close()
    await tables_store.close()


@contextlib.contextmanager
def servers(cluster: int) -> Iterator[list[str]]:
    """The client's URL, then each node's: one private redis-server, or a cluster."""
    if not cluster:
        with redis_server() as server:
            yield [server.url, server.url]
        return
    from kit import redis_cluster

    with tempfile.TemporaryDirectory() as folder, redis_cluster(Path(folder), cluster) as ports:
        yield [f"redis+cluster://127.0.0.1:{ports[0]}"] + [f"redis://127.0.0.1:{p}" for p in ports]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--accounts", type=int, default=4000)
    parser.add_argument("--bands", type=int, default=1, help="rating bands (1: none)")
    parser.add_argument("--cluster", type=int, default=0, help="primaries (0: one server)")
    parser.add_argument("--queue-only", action="store_true", help="only join (no matches)")
    args = parser.parse_args()
    with servers(args.cluster) as urls:
        asyncio.run(measure(urls, args.accounts, args.bands, args.queue_only))


if __name__ == "__main__":
    main()
