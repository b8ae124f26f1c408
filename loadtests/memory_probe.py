"""Redis memory of one table through a whole match, with moves a chosen time apart.

    .venv/bin/python loadtests/memory_probe.py --gap-ms 20000

Starts its own redis-server (as run.py does), plays one 2-player serbian match by seeded
random moves through `Tables` with a clock that steps `--gap-ms` per call, and prints
`MEMORY USAGE key SAMPLES 0` of each of the table's keys after 12 events, mid-match (182) and
at the end. The load runs cannot show a finished slow table (a match there takes hours).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from pathlib import Path

import redis
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2
from run import key_memory, redis_server

CHECKPOINTS = (12, 182)


async def play(port: int, gap_ms: int, seed: int) -> list[tuple[int, dict[str, int]]]:
    """The table's bytes by key at each checkpoint and at the end."""
    store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0")
    now = [1_760_000_000_000]

    def clock() -> int:
        now[0] += gap_ms
        return now[0]

    tables = Tables(store, clock=clock)
    client = redis.Redis(port=port)
    spec = rules_pb2.RulesSpec(
        players=2, tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN)
    )
    table_id, _admin, _ = await tables.create(rules_pb2.TableConfig(rules=spec, seed=seed))
    tokens = {}
    for seat in range(2):
        _, tokens[seat], _ = await tables.join(table_id, seat, f"player {seat}")
    rng = random.Random(seed)
    out = []
    while True:
        session = await tables.session(table_id)
        if session.seq in CHECKPOINTS or session.status == "finished":
            parts: dict[str, int] = {}
            key_memory(client, table_id, parts)
            out.append((session.seq, parts))
        if session.status == "finished":
            break
        mover = session.match.current_seat
        assert mover is not None  # the match is not over
        move = str(rng.choice(tables.legal(session, mover)))
        await tables.play(table_id, tokens[mover], move, f"m{session.seq}", session.seq)
    await store.close()
    return out


def main() -> int:
    """Print one line per checkpoint."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gap-ms", type=int, default=20_000, help="time between events")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work, redis_server(Path(work)) as (_process, port):
        for seq, parts in asyncio.run(play(port, args.gap_ms, args.seed)):
            detail = ", ".join(f"{k} {v}" for k, v in parts.items())
            print(f"after {seq} events: {sum(parts.values()):,} B ({detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
