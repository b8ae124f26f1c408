"""What idle leagues cost their referee: CPU and Redis commands a second, resting or not.

Starts a private redis-server, makes `--leagues` leagues of `--bands` rating bands with nobody
in them, and runs one `Referee` (its own loop, as `kafana serve` does) for `--seconds` twice in
alternating rounds: as it is (an idle league rests up to `IDLE_PAUSE_S` between looks) and with
the rest off (every league looked at every `tick_s`, the behaviour before). Prints, per mode,
the medians of the referee process's CPU ms a second and Redis's commands a second.

    .venv/bin/python loadtests/bench_referee_idle.py --leagues 20 --bands 4 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / d) for d in ("server", "bots", "clients")]

from kafana.competitions.league import referee as referee_module  # noqa: E402
from kafana.competitions.league.redis_store import RedisLeagues  # noqa: E402
from kafana.competitions.league.referee import Referee  # noqa: E402
from kafana.competitions.league.spec import dump, league_spec  # noqa: E402
from kafana.service.tables import Tables  # noqa: E402
from kafana.store.client import RedisClient  # noqa: E402
from kafana.store.redis_server import redis_server  # noqa: E402
from kafana.store.redis_store import RedisStore  # noqa: E402
from kafana.v1 import leagues_pb2 as pb  # noqa: E402


async def commands(client: RedisClient) -> int:
    """Commands Redis has run so far."""
    info = await client.call("", "INFO", "stats")
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":")[1])
    raise RuntimeError("no total_commands_processed in INFO")


async def measure(url: str, seconds: float, rest: bool) -> tuple[float, float]:
    """(CPU ms a second, Redis commands a second) of one referee over idle leagues."""
    pause = referee_module.IDLE_PAUSE_S
    referee_module.IDLE_PAUSE_S = pause if rest else 0.0
    client = RedisClient.from_url(url)
    store = RedisStore(client)
    referee = Referee(RedisLeagues(client), Tables(store))
    try:
        referee.start()
        await asyncio.sleep(3.0)  # leases taken, pauses grown (0.1 + 0.2 + 0.4 + 0.8 + 1.0 s)
        cpu, sent, wall = time.process_time(), await commands(client), time.perf_counter()
        await asyncio.sleep(seconds)
        cpu, sent = time.process_time() - cpu, await commands(client) - sent - 1
        wall = time.perf_counter() - wall
        return 1000 * cpu / wall, sent / wall
    finally:
        await referee.stop()
        referee_module.IDLE_PAUSE_S = pause
        await client.close()


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as work, redis_server(Path(work)) as server:
        client = RedisClient.from_url(server.url)
        edges = tuple(10.0 + 30.0 * i / args.bands for i in range(1, args.bands))
        spec = league_spec(pb.LeagueSpec(target=11, band_edges=edges))
        for i in range(args.leagues):
            await RedisLeagues(client).create(f"idle{i}", {"spec": dump(spec), "organiser": "o"})
        await client.close()
        found: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _ in range(args.rounds):
            for rest in (False, True):
                found[rest].append(await measure(server.url, args.seconds, rest))
    print(f"{args.leagues} idle leagues of {args.bands} bands, one referee, {args.rounds} rounds")
    for rest in (False, True):
        cpu = statistics.median(c for c, _ in found[rest])
        sent = statistics.median(s for _, s in found[rest])
        mode = "resting (now)" if rest else "every tick (before)"
        print(f"  {mode:20} CPU {cpu:6.1f} ms/s   Redis {sent:7.0f} commands/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leagues", type=int, default=20)
    parser.add_argument("--bands", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
