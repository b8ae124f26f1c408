"""One load-generator process of `bench_league_scale.py`: many league accounts on few channels.

Each account is an SDK client on a shared channel with its own API key
(`kafana_client.keyed.keyed_client`); accounts are spread over the servers and their channels.
`--active` slots each take the next idle account, play one league match with it
(`kafana_client.leagues.play_league`, the SDK's seat loop and a fast bot) and put it back, until
`--duration` is over; then the slots still waiting in the queue leave it and those in a match
finish it (at most `--drain` seconds). `--watchers` more accounts only hold their ticket stream
open meanwhile (players connected but not queued: what an open stream costs the servers).
Every ticket and settled update is written to `--out` (JSON), with the time it was received.

    .venv/bin/python loadtests/league_driver.py --keys keys.json --servers H:P,H:P \
        --league bench --index 0 --of 2 --active 300 --duration 120 --out d0.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("server", "bots", "clients")]

from kafana.v1 import leagues_pb2 as pb  # noqa: E402
from kafana.v1 import state_pb2  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_client.aio import AsyncClient  # noqa: E402
from kafana_client.connection import ConnectOptions, Deadlines  # noqa: E402
from kafana_client.errors import RpcError  # noqa: E402
from kafana_client.keyed import keyed_client  # noqa: E402
from kafana_client.leagues import Leagues, play_league, received_ms  # noqa: E402

POLL_S = 10.0  # the seat loop's check for an unannounced turn (the feed announces them all)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The driver's options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keys", required=True, help="JSON {account: API key}")
    p.add_argument("--servers", required=True, help="HOST:PORT,HOST:PORT,...")
    p.add_argument("--league", required=True)
    p.add_argument("--index", type=int, default=0, help="This driver's number (0 ...)")
    p.add_argument("--of", type=int, default=1, help="How many drivers share the accounts")
    p.add_argument("--channels", type=int, default=2, help="Channels per server")
    p.add_argument("--active", type=int, default=100, help="Accounts playing at once")
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--drain", type=float, default=90.0, help="Seconds to finish open matches")
    p.add_argument("--watchers", type=int, default=0, help="Accounts only holding their stream")
    p.add_argument("--bot", default="random")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    return p.parse_args(argv)


class Recorder:
    """Every update the accounts were told, as JSON-ready dicts."""

    def __init__(self) -> None:
        self.tickets: list[dict[str, Any]] = []
        self.settled: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.activations = 0

    def told(self, account: str, update: pb.TicketUpdate) -> None:
        """Keep one update of `account`'s stream."""
        now = received_ms()
        if update.WhichOneof("update") == "ticket":
            t = update.ticket
            self.tickets.append(
                {
                    "account": account,
                    "match": t.match,
                    "seat": t.seat,
                    "table": t.table_id,
                    "players": list(t.players),
                    "created_ms": t.created_ms,
                    "received_ms": now,
                }
            )
        else:
            m = update.settled
            self.settled.append(
                {
                    "account": account,
                    "match": m.match,
                    "players": list(m.players),
                    "rated": m.rated,
                    "ending": state_pb2.ResultReason.Name(m.ending),
                    "scores": list(m.scores),
                    "settled_ms": m.settled_ms,
                    "received_ms": now,
                }
            )


async def drive(args: argparse.Namespace) -> dict[str, Any]:
    """Play until the duration is over and the open matches are finished; what was seen."""
    keys: dict[str, str] = json.loads(Path(args.keys).read_text())
    names = sorted(keys)[args.index :: args.of]
    targets = args.servers.split(",")
    options = [ConnectOptions(t, deadlines=Deadlines(default=30.0)) for t in targets]
    channels = [[o.aio_channel() for _ in range(args.channels)] for o in options]
    clients: dict[str, AsyncClient] = {}
    for i, name in enumerate(names):
        server = i % len(targets)
        channel = channels[server][(i // len(targets)) % args.channels]
        clients[name] = keyed_client(channel, keys[name], options[server])
    factory = registry.entry(args.bot).factory
    made = iter(range(10**12))

    def make_bot(seat: int, rules: Any) -> Any:
        return factory(seat, rules, random.Random(f"{args.seed}:{args.index}:{next(made)}"))

    rng = random.Random(args.seed * 1000 + args.index)
    rng.shuffle(names)
    watchers, names = names[: args.watchers], names[args.watchers :]
    idle = deque(names)
    heartbeats = 0
    recorder = Recorder()
    waiting: set[asyncio.Task[Any]] = set()  # activations with no ticket yet
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.duration

    async def activation(name: str) -> None:
        task = asyncio.current_task()
        assert task is not None
        waiting.add(task)

        def told(update: pb.TicketUpdate) -> None:
            waiting.discard(task)
            recorder.told(name, update)

        try:
            await play_league(clients[name], args.league, make_bot, matches=1, on_update=told)
        finally:
            waiting.discard(task)

    async def slot() -> None:
        while loop.time() < deadline:
            name = idle.popleft()
            recorder.activations += 1
            try:
                await activation(name)
            except RpcError as error:
                recorder.errors.append(f"{name}: {error}")
                await asyncio.sleep(1.0)
            finally:
                idle.append(name)

    async def watch(name: str) -> None:
        nonlocal heartbeats
        async for update in Leagues(clients[name]).tickets(args.league):
            heartbeats += update.WhichOneof("update") == "heartbeat"

    watching = [asyncio.create_task(watch(name)) for name in watchers]
    slots = [asyncio.create_task(slot()) for _ in range(args.active)]
    started = time.time()
    await asyncio.sleep(args.duration)
    ended = time.time()
    stop_by = loop.time() + args.drain
    while not all(s.done() for s in slots) and loop.time() < stop_by:
        for task in list(waiting):  # nobody will pair them now: leave the queue
            task.cancel()
        await asyncio.sleep(0.2)
    unfinished = sum(not s.done() for s in slots)
    for s in (*slots, *watching):
        s.cancel()
    for s in (*slots, *watching):
        with contextlib.suppress(asyncio.CancelledError):
            await s
    for row in channels:
        for channel in row:
            await channel.close()
    return {
        "index": args.index,
        "accounts": len(names),
        "started": started,
        "ended": ended,
        "drained": time.time(),
        "activations": recorder.activations,
        "unfinished": unfinished,
        "watchers": len(watchers),
        "heartbeats": heartbeats,
        "tickets": recorder.tickets,
        "settled": recorder.settled,
        "errors": recorder.errors,
    }


def main() -> None:
    """Run one driver; write what it saw to --out."""
    args = parse()
    result = asyncio.run(drive(args))
    Path(args.out).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
