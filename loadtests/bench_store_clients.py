"""Redis clients side by side on the store's real append: which one should the store use?

Each client runs the move path's Redis call as the store makes it: `EVALSHA` of
`kafana/store/lua/append.lua` (4 keys, 14 arguments: expected seq, dedupe tag, a framed
6-byte record, required status, ..., the live channel), with `--inflight` calls in flight at
once (one task per table, each at its table's next seq), against a private redis-server. Each
client runs in a fresh interpreter, rounds alternate the order of the clients, and the figures
are the median over the rounds: appends per second (wall clock) and the client process's CPU
per append (every thread of it: valkey-glide works in its own Rust threads).

    .venv/bin/pip install hiredis coredis valkey-glide     # the ones not installed are skipped
    .venv/bin/python loadtests/bench_store_clients.py --rounds 5 --ops 20000 --inflight 64

Clients: `redis-py` (pure-Python parser, hiredis hidden), `redis-py+hiredis`, `coredis`,
`valkey-glide`, and `lane`: the store's own client as the store calls it
(`kafana.store.client.RedisClient.run`, a pipelined connection per server, `kafana.store.lane`).

`--against COMMIT` measures the whole `RedisStore.append` instead (the arguments packed, the
append, the reply read; with a clock deadline indexed in the same write), of this checkout and of
`server/` at COMMIT side by side:

    .venv/bin/python loadtests/bench_store_clients.py --against 4e18c94 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = sys.argv[sys.argv.index("--source") + 1] if "--source" in sys.argv else ROOT / "server"
sys.path[:0] = [str(SOURCE), str(ROOT / "loadtests")]  # the store measured: this one or older

from kafana.store.framing import frame  # noqa: E402
from kafana.store.keys import live_channel, table_keys  # noqa: E402

LUA = (ROOT / "server" / "kafana" / "store" / "lua" / "append.lua").read_text()
CLIENTS = ["redis-py", "redis-py+hiredis", "coredis", "valkey-glide", "lane"]
NEEDS = {
    "redis-py": "redis",
    "redis-py+hiredis": "hiredis",
    "coredis": "coredis",
    "valkey-glide": "glide",
    "lane": "kafana.store.client",
}
RECORD_BODY = b"\x09\x14\x80\x91\xa2\xb3"  # a move's short record: head, time, three cards
RECORD = frame(RECORD_BODY)
Call = Callable[[list[str], list[bytes]], Awaitable[Any]]
Step = Callable[[str, int], Awaitable[bool]]
"""One append on a table at its seq: whether it was applied."""


def available(client: str) -> bool:
    """Whether `client` can run here."""
    if client.startswith("store@"):
        return True
    try:
        return importlib.util.find_spec(NEEDS[client]) is not None
    except ModuleNotFoundError:
        return False


def append_call(table: str, seq: int, move: int) -> tuple[list[str], list[bytes]]:
    """The append script's keys and arguments for move `move` at `seq`, as the store sends them."""
    keys = table_keys(table)
    args = [
        b"%d" % seq,
        b"m%d" % move,
        RECORD,
        b"playing",
        b"",
        b"",
        b"",
        b"",
        b"",
        b"0",
        b"0",
        b"3600000",
        b"%d" % (move % 2),
        live_channel(table).encode(),
    ]
    return [keys.state, keys.seats, keys.log, keys.table], args


async def connect(client: str, port: int) -> tuple[Call, Callable[[], Awaitable[Any]], str]:
    """A call running the append script by EVALSHA, a close, and the script's SHA1."""
    import hashlib

    sha = hashlib.sha1(LUA.encode()).hexdigest()
    if client.startswith("redis-py"):
        from redis.asyncio import BlockingConnectionPool, Redis

        pool = BlockingConnectionPool(host="127.0.0.1", port=port, max_connections=64, timeout=20)
        redis = Redis.from_pool(pool)
        await redis.script_load(LUA)

        async def call(keys: list[str], args: list[bytes]) -> Any:
            return await redis.evalsha(sha, len(keys), *keys, *args)

        return call, redis.aclose, sha
    if client == "coredis":
        import coredis  # type: ignore[import-not-found, unused-ignore]

        core = coredis.Redis(host="127.0.0.1", port=port)
        await core.__aenter__()
        await core.script_load(LUA)

        async def core_call(keys: list[str], args: list[bytes]) -> Any:
            return await core.evalsha(sha, keys=keys, args=args)

        return core_call, lambda: core.__aexit__(None, None, None), sha
    if client == "valkey-glide":
        from glide import (  # type: ignore[import-not-found, unused-ignore]
            GlideClient,
            GlideClientConfiguration,
            NodeAddress,
            Script,
        )

        glide = await GlideClient.create(
            GlideClientConfiguration([NodeAddress("127.0.0.1", port)], request_timeout=20000)
        )
        script = Script(LUA)

        async def glide_call(keys: list[str], args: list[bytes]) -> Any:
            return await glide.invoke_script(script, keys=keys, args=args)

        return glide_call, glide.close, sha
    if client == "lane":
        from kafana.store.client import RedisClient, Script

        kafana = RedisClient.from_url(f"redis://127.0.0.1:{port}/0")
        append = Script.named("append")

        async def lane_call(keys: list[str], args: list[bytes]) -> Any:
            return (await kafana.run(append, keys, args))[0]

        return lane_call, kafana.close, sha
    raise SystemExit(f"unknown client {client}")


async def stepper(client: str, port: int) -> tuple[Step, Callable[[], Awaitable[Any]]]:
    """One append per call, by `client` (a Redis client, or `store@...`: the RedisStore)."""
    if client.startswith("store@"):
        from kafana.store.base import Append
        from kafana.store.redis_store import RedisStore

        store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0")

        async def store_step(table: str, seq: int) -> bool:
            append = Append(
                RECORD_BODY,
                3_600_000,
                expected_seq=seq,
                dedupe=f"m{seq + 1}",
                dedupe_slot=(seq + 1) % 2,
                require_status="playing",
                deadline_ms=10**12 + seq,  # a clock: its index entry goes in the same write
            )
            return (await store.append(table, append)).outcome.value == "applied"

        return store_step, store.close
    call, close, _sha = await connect(client, port)

    async def step(table: str, seq: int) -> bool:
        keys, args = append_call(table, seq, seq + 1)
        reply = await call(keys, args)
        return bool(reply[0] in (b"applied", "applied"))

    return step, close


async def one(client: str, port: int, ops: int, inflight: int, run: int) -> dict[str, float]:
    """Run `ops` appends with `inflight` tasks; the rate and CPU per append."""
    if client == "redis-py":
        sys.modules["hiredis"] = None  # type: ignore[assignment]  # redis-py's own parser
    step, close = await stepper(client, port)
    tables = [f"bench{run}-{i}" for i in range(inflight)]
    await _create(port, tables)  # each table at seq 0, playing (what create and joins leave)

    async def worker(table: str, count: int, start: int) -> None:
        for i in range(count):
            if not await step(table, start + i):
                raise RuntimeError(f"{client}: append refused")

    warm = max(1, 200 // inflight)
    await asyncio.gather(*(worker(t, warm, 0) for t in tables))
    per_table = max(1, ops // inflight)
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker(t, per_table, warm) for t in tables))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await close()
    done = per_table * inflight
    return {"ops_s": done / wall, "cpu_us": cpu / done * 1e6}


async def _create(port: int, tables: list[str]) -> None:
    """The tables' control state, written over a plain socket (any client would do)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for table in tables:
        state = table_keys(table).state
        parts = [b"HSET", state.encode(), b"seq", b"0", b"status", b"playing"]
        writer.write(
            b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%b\r\n" % (len(p), p) for p in parts)
        )
        await writer.drain()
        await reader.readline()
    writer.close()
    await writer.wait_closed()


def main() -> None:
    """Rounds of every available client in alternating order; medians printed and as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ops", type=int, default=20000, help="appends per client and round")
    parser.add_argument("--inflight", type=int, default=64, help="calls in flight at once")
    parser.add_argument("--clients", nargs="*", default=CLIENTS)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="write every round's figures here")
    parser.add_argument("--against", help="RedisStore.append here and at this commit instead")
    parser.add_argument("--source", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        figures = asyncio.run(one(args.one, args.port, args.ops, args.inflight, args.run))
        print(json.dumps(figures))
        return
    from tempfile import TemporaryDirectory

    from ab_core import extract
    from kafana.store.redis_server import redis_server

    work = TemporaryDirectory()
    sources = {c: str(ROOT / "server") for c in args.clients}
    if args.against:
        args.clients = [f"store@{args.against}", "store@here"]
        sources = {args.clients[0]: str(extract(args.against, Path(work.name)))}
        sources[args.clients[1]] = str(ROOT / "server")
    clients = [c for c in args.clients if available(c)]
    skipped = sorted(set(args.clients) - set(clients))
    if skipped:
        print(f"not installed, skipped: {', '.join(skipped)}")
    results: dict[str, list[dict[str, float]]] = {c: [] for c in clients}
    with redis_server() as redis:
        run = 0
        for round_ in range(args.rounds):
            order = clients if round_ % 2 == 0 else clients[::-1]
            for client in order:
                run += 1
                command = [sys.executable, __file__, "--one", client, "--port", str(redis.port)]
                command += ["--ops", str(args.ops), "--inflight", str(args.inflight)]
                command += ["--run", str(run), "--source", sources[client]]
                out = subprocess.run(command, capture_output=True, text=True, check=False)
                if out.returncode:
                    raise SystemExit(f"{client} failed:\n{out.stderr[-2000:]}")
                figures = json.loads(out.stdout.strip().splitlines()[-1])
                results[client].append(figures)
                print(
                    f"round {round_ + 1} {client:18} {figures['ops_s']:9,.0f} appends/s "
                    f"{figures['cpu_us']:7.1f} us CPU/append",
                    flush=True,
                )
    print(f"\nmedian of {args.rounds} rounds, {args.ops} appends, {args.inflight} in flight:")
    print("| client | appends/s | client CPU per append |")
    print("| --- | ---: | ---: |")
    for client, rounds in results.items():
        rate = statistics.median(r["ops_s"] for r in rounds)
        cpu = statistics.median(r["cpu_us"] for r in rounds)
        print(f"| {client} | {rate:,.0f} | {cpu:.1f} µs |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    work.cleanup()


if __name__ == "__main__":
    main()
