"""Store calls per waiting league player per second, made by the player's open WatchTickets
stream: today's `kafana.competitions.league.tickets` beside the one of an older commit, side by
side in one run, on a private redis-server (never a shared one).

    .venv/bin/python scripts/bench_ticket_calls.py --before bd38368 --players 200 --seconds 20

The players wait in a league's queue with no referee running (nobody is paired), each with one
stream; the calls counted are the round trips of the streams' own store client.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from kafana.competitions.league import tickets
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.spec import dump, league_spec
from kafana.service.tables import Tables
from kafana.store.redis_server import redis_server
from kafana.store.redis_store import RedisStore
from kafana.store.resp import Reply
from kafana.v1 import leagues_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
MODULE = "server/kafana/competitions/league/tickets.py"


def module_at(commit: str) -> ModuleType:
    """`tickets.py` as it was at `commit`, loaded as a module of its own."""
    text = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{MODULE}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "tickets_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("tickets_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def calls_per_player_second(
    url: str, module: ModuleType, league: str, players: int, seconds: float
) -> float:
    """Open a stream per waiting player for `seconds`: the streams' calls per player-second."""
    store = RedisStore.from_url(url)
    counted = 0
    calls = store.client.calls

    async def counting(commands: list[tuple[str, bytes]], *, pool: int = 0) -> list[Reply]:
        nonlocal counted
        counted += 1
        return await calls(commands, pool=pool)

    store.client.calls = counting  # type: ignore[method-assign]
    leagues = RedisLeagues(store.client)
    await leagues.create(league, {"spec": dump(league_spec(pb.LeagueSpec(target=11)))})
    names = [f"p{i}" for i in range(players)]
    for name in names:
        await leagues.join(league, name, 25.0, 1)
    waiters = module.Waiters()
    if hasattr(waiters, "connect"):
        waiters.connect(store)
    stop = False

    async def write(update: pb.TicketUpdate) -> None:
        pass

    tables = Tables(store)
    streams = [
        asyncio.create_task(
            module.watch(leagues, tables, waiters, league, n, 2000, write, lambda: stop)
        )
        for n in names
    ]
    await asyncio.sleep(2.0)  # every stream opened and settled into its loop
    start, started = counted, time.monotonic()
    await asyncio.sleep(seconds)
    made, took = counted - start, time.monotonic() - started
    stop = True
    waiters.wake_all()
    await asyncio.gather(*streams)
    await store.close()
    return made / players / took


async def main(before: str, players: int, seconds: float) -> None:
    old = module_at(before)
    with redis_server() as redis:
        was = await calls_per_player_second(redis.url, old, "before", players, seconds)
        now = await calls_per_player_second(redis.url, tickets, "after", players, seconds)
    print(f"{players} waiting players, {seconds:.0f} s each; store calls per player per second")
    print(f"  before ({before}): {was:.3f}")
    print(f"  after (this tree): {now:.3f}")
    print(f"  ratio: {was / now:.1f}x fewer" if now else "  after: none")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD", help="the commit to compare against")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    asyncio.run(main(args.before, args.players, args.seconds))
    sys.exit(0)
