"""Redis instructions a move: the store's append (and its YOUR_TURN rider) on a redis-server
under valgrind's callgrind, a figure other jobs on the machine cannot move.

    .venv/bin/python loadtests/redis_instructions.py --moves 600
    .venv/bin/python loadtests/redis_instructions.py --moves 600 --baseline

Starts redis-server under callgrind, then plays `--moves` appends one after another through the
store (`RedisStore.append`, as a move does: expected seq and digest, a client move tag, a day's
time to live) on 24 tables at once, each a match of 56 moves then a new table, each move with
the YOUR_TURN notice of one account riding on it (`--no-rider`: without); `--baseline` runs
the baseline servicer's script (`baseline_move.lua`) instead. Run twice, with `--moves` and
twice as many: the difference divided by `--moves` is one move, start-up cancelled out. Also
prints the Redis commands a move (`INFO commandstats`). The Redis side of `per_move.py`'s
CPU a move, without the noise of a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import redis
from kafana.store.base import Append
from kafana.store.client import Script
from kafana.store.framing import GENESIS, chain, frame
from kafana.store.notices import Mark, Publish
from kafana.store.redis_notices import RedisNotices
from kafana.store.redis_server import free_port
from kafana.store.redis_store import RedisStore

HERE = Path(__file__).resolve().parent
DAY_MS = 86_400_000
MATCH = 56  # moves a table plays before the next table
TABLES = 24
RECORD = b"\x08\x01\x10\x00\x18\xe0\xa7\x9d\xe4\xa2\xd9\x01\x22\x047c:3\x28\x07"  # a move's size
TOTALS = re.compile(r"^(?:summary|totals): (\d+)", re.MULTILINE)
BASELINE = Script.of("move", (HERE / "baseline_move.lua").read_text())


async def play(url: str, moves: int, rider: bool, baseline: bool) -> dict[str, int]:
    """`moves` appends on `TABLES` tables in turn; Redis's command counts afterwards."""
    store = RedisStore.from_url(url)
    notices = RedisNotices(store.client, store.notifier)
    await notices.publish("acct", b"hello")  # the notice script loaded
    tables: list[list[object]] = []
    made = 0

    async def new() -> list[object]:
        nonlocal made
        table_id = f"{made:016x}"
        made += 1
        assert await store.create(table_id, b"x" * 60, DAY_MS, 1)
        return [table_id, 0, GENESIS]

    for _ in range(TABLES):
        tables.append(await new())
    for n in range(moves):
        k = n % TABLES
        table_id, seq, digest = tables[k]
        assert isinstance(table_id, str) and isinstance(seq, int) and isinstance(digest, str)
        if baseline:
            tag = "{b:" + table_id + "}"
            keys = [tag + ":seq", tag + ":events"]
            await store.client.run(BASELINE, keys, [b"%d" % seq, b"7c:3"])
        else:
            data = b"\n\x10" + table_id.encode() + b"\x10\x02" + b"x" * 24
            mark = Mark("turn:" + table_id, "h0123456789", (seq + 1) * 4 + 2)
            notice = Publish("acct", data, mark)
            ride = notices.rider(notice) if rider else None
            append = Append(
                event=RECORD,
                ttl_ms=DAY_MS,
                expected_seq=seq,
                expected_digest=digest,
                dedupe="%012x" % (n * 7919 % (1 << 40)),
                dedupe_slot=seq % 2,
                riders=(ride,) if ride else (),
            )
            result = await store.append(table_id, append)
            assert result.outcome.value == "applied" and (ride is None or result.riders_run)
            digest = chain(digest, frame(RECORD))
        tables[k] = [table_id, seq + 1, digest]
        if seq + 1 >= MATCH:
            tables[k] = await new()
    stats = redis.Redis.from_url(url).info("commandstats")
    await store.close()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def instructions(moves: int, rider: bool, baseline: bool, work: Path) -> tuple[int, dict[str, int]]:
    """Instructions redis-server executed from start to exit around `moves` moves."""
    port = free_port()
    out = work / f"callgrind.{port}"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "redis-server"]
    command += ["--port", str(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.2)
        calls = asyncio.run(play(f"redis://127.0.0.1:{port}/0", moves, rider, baseline))
    finally:
        server.terminate()
        server.wait()
    found = TOTALS.search(out.read_text(errors="replace"))
    if found is None:
        raise RuntimeError(f"no instruction count in {out}")
    return int(found.group(1)), calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--no-rider", action="store_true", help="appends without a notice")
    parser.add_argument("--baseline", action="store_true", help="the baseline's script")
    args = parser.parse_args()
    rider = not args.no_rider
    with TemporaryDirectory(prefix="kafana-redis-instructions-") as tmp:
        few, calls_few = instructions(args.moves, rider, args.baseline, Path(tmp))
        many, calls_many = instructions(2 * args.moves, rider, args.baseline, Path(tmp))
    per = {k: (calls_many.get(k, 0) - calls_few.get(k, 0)) / args.moves for k in calls_many}
    scripts = per.pop("evalsha", 0.0)
    inner = sum(v for k, v in per.items() if not k.startswith(("info", "script", "hello")))
    what = "baseline" if args.baseline else "append + notice" if rider else "append"
    print(
        f"{what}: {(many - few) / args.moves:,.0f} Redis instructions a move; "
        f"{scripts:.2f} scripts and {inner:.2f} commands in them a move"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
