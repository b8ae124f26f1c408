"""What the session cache holds: bytes per cached table, and one process holding many tables.

    .venv/bin/python loadtests/cache_probe.py --tables 10000

Builds sessions the way a process gets them from the store on a cache miss (`Session.update`
of a snapshot: the whole log replayed, `kafana.service.session`), for 2-player serbian Tablić
tables played by seeded random legal moves, each table stopped at a random point of its match
(so the tables are spread over a match, as live tables are), with two seats taken and each
seat's last move tagged. Prints (1) the bytes one session holds by tracemalloc, at a few points
of a match, beside the cache's own estimate (`session_cache.session_bytes`); (2) a
`SessionCache` holding `--tables` sessions: its byte count, and this process's RSS (psutil)
before and after, the RSS growth per table.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import tracemalloc

import psutil
from kafana.games import tablic
from kafana.service.session import Session, load_table, table_record
from kafana.service.session_cache import SessionCache, session_bytes
from kafana.store.base import Snapshot
from kafana.store.framing import frame
from kafana.v1 import events_pb2, rules_pb2, storage_pb2

RULES = tablic.Rules.preset("serbian", players=2)
SPEC = rules_pb2.RulesSpec(
    players=2, tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN)
)
START_MS = 1_760_000_000_000
POINTS = (2, 50, 194, 386)
"""Events at which one session is weighed (2: the seats taken; 386: a whole match)."""


Script = tuple[int, list[tuple[int, str]]]


def script(seed: int) -> Script:
    """The seed and the (seat, move text) of a whole match played by random legal moves."""
    rng = random.Random(seed)
    match = tablic.new_match(RULES, seed=seed)
    out = []
    while not match.is_over:
        seat = match.current_seat
        assert seat is not None
        move = rng.choice(match.legal_moves())
        out.append((seat, str(move)))
        match = match.apply(move)
    return seed, out


def stored_table(seed: int) -> bytes:
    """The table record as the store keeps it (rules as a digest: `table_record`)."""
    stored = storage_pb2.StoredTable(spec=SPEC, seed=seed, created_ms=START_MS)
    stored.rules_json = RULES.to_json()
    stored.admin_token_hash = bytes(32)
    return table_record(stored)


def snapshot(played: Script, events: int) -> Snapshot:
    """The store's snapshot of a table `events` events in (two joins, then moves)."""
    seed, moves = played
    session = Session.start("probe", load_table(stored_table(seed)))
    records: list[bytes] = []
    last = START_MS
    for seq in range(1, events + 1):
        last += 3_000
        if seq <= 2:
            event = storage_pb2.StoredEvent(
                kind=events_pb2.EVENT_KIND_SEAT_TAKEN, seat=seq - 1, name="b", time_ms=last
            )
        else:
            seat, move = moves[seq - 3]
            event = storage_pb2.StoredEvent(
                kind=events_pb2.EVENT_KIND_MOVE, seat=seat, move=move, time_ms=last
            )
        records.append(session.log.pack(event.SerializeToString()))
        session = session._evolve(log=session.log.appended(records[-1], last))
    seats = {
        s: storage_pb2.StoredSeat(token_hash=bytes([s]) * 32).SerializeToString() for s in range(2)
    }
    marks = {s: (max(1, events - s), f"tag-{s}-{events}") for s in range(2)}
    return Snapshot(
        table=stored_table(seed),
        seq=events,
        status="playing",
        deadline_ms=0,
        seats=seats,
        tail=b"".join(frame(r) for r in records),
        marks=marks,
        digest=session.log.digest,
    )


def weigh(scripts: list[Script], events: int, count: int) -> tuple[float, float]:
    """Mean bytes (tracemalloc) and mean `session_bytes` of `count` sessions at `events`."""
    chosen = [scripts[k % len(scripts)] for k in range(count)]
    shots = [snapshot(played, min(events, 2 + len(played[1]))) for played in chosen]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [Session.from_snapshot(f"t{k}", shot) for k, shot in enumerate(shots)]
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / count, sum(map(session_bytes, kept)) / count


def main() -> int:
    """Print the weights, then the many-tables figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000, help="sessions the cache holds")
    parser.add_argument("--matches", type=int, default=200, help="distinct matches played")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    scripts = [script(args.seed * 100_003 + k) for k in range(args.matches)]
    print(f"rules core: {tablic.BUILD}")
    for events in POINTS:
        weigh(scripts, events, 5)  # warm: parse caches, engines, interned strings
        real, estimate = weigh(scripts, events, 50)
        print(f"one session at {events} events: {real:,.0f} B (tracemalloc), est. {estimate:,.0f}")
    rng = random.Random(args.seed)
    process = psutil.Process()
    gc.collect()
    rss_before = process.memory_info().rss
    cache = SessionCache(entries=args.tables, max_bytes=2**62)
    started = time.perf_counter()
    for k in range(args.tables):
        played = scripts[k % len(scripts)]
        events = rng.randint(2, 2 + len(played[1]))
        cache.put(Session.from_snapshot(f"table-{k}", snapshot(played, events)))
    gc.collect()
    rss_after = process.memory_info().rss
    seconds = time.perf_counter() - started
    mean_seq = sum(s.seq for s in (cache.get(f"table-{k}") for k in range(args.tables)) if s)
    print(
        f"{len(cache):,} tables cached (mean seq {mean_seq / len(cache):.0f}, built in "
        f"{seconds:.0f} s): cache bytes {cache.bytes:,} ({cache.bytes / len(cache):,.0f} a "
        f"table); RSS {rss_before / 2**20:,.0f} MB before, {rss_after / 2**20:,.0f} MB after: "
        f"{(rss_after - rss_before) / len(cache):,.0f} B a table"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
