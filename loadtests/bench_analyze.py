"""Analyze measured: its latency at the server's default budget, and its exactness in last deals.

1. A real `kafana serve` (a private redis-server), two seats of hints tables played at random
   through the SDK; at every position the seat to move asks `Analyze` with no budget (the
   server's default, 200 ms of CPU) and the call's wall time is kept: p50, p99, the methods.
2. In process, two-seat last-deal positions of random matches: `analyze` at the default budget
   against the last-deal solver with no budget (`exact.solve(..., exact_only=True)`): how often
   the analysis was exact, and whether its best value equals the solver's.

Usage: `.venv/bin/python loadtests/bench_analyze.py [--positions 200] [--last-deals 100]`
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from kafana.games import tablic
from kafana.store.redis_server import free_port
from kafana_bots.analysis import DEFAULT_BUDGET_MS, analyze
from kafana_bots.exact import solve
from kafana_bots.worlds import sample_hidden, sim_from_view
from kafana_client import Client, current_seat, table_config

KAFANA = str(Path(sys.executable).parent / "kafana")


def latency(positions: int) -> None:
    """Part 1: Analyze through a real server at its default budget."""
    port = free_port()
    server = subprocess.Popen(
        [KAFANA, "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    times: list[float] = []
    methods: Counter[str] = Counter()
    try:
        with Client.connect(f"127.0.0.1:{port}") as kafana:
            kafana.wait_ready(timeout=60)
            rng = random.Random(1)
            while len(times) < positions:
                config = table_config(preset="serbian", players=2)
                config.hints = True
                table = kafana.create_table(config)
                seats = [kafana.join(table.table_id, name=n) for n in ("ana", "bora")]
                while len(times) < positions:
                    seat = current_seat(kafana.get_state(table.table_id))
                    if seat is None:
                        break
                    legal = seats[seat].legal_moves()
                    start = time.perf_counter()
                    advice = seats[seat].analyze()
                    times.append(time.perf_counter() - start)
                    methods[advice.method] += 1
                    seats[seat].play(rng.choice(legal.texts()), last_seq=legal.seq)
    finally:
        server.terminate()
        server.wait()
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    print(
        f"Analyze at the default budget ({DEFAULT_BUDGET_MS:.0f} ms CPU), {len(ms)} positions: "
        f"p50 {statistics.median(ms):.0f} ms, p99 {p99:.0f} ms; methods {dict(methods)}"
    )


def last_deals(count: int) -> None:
    """Part 2: exactness in two-seat last deals against the solver with no budget."""
    rules = tablic.Rules.preset("serbian", players=2)
    exact: Counter[int] = Counter()
    equal: Counter[int] = Counter()
    seen: Counter[int] = Counter()
    per_size = max(1, count // 6)
    seed = 0
    while sum(seen.values()) < count and seed < 10 * count:
        state = tablic.new_match(rules, seed=seed)
        rng = random.Random(seed)
        seed += 1
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None
            view = state.view(seat)
            moves = list(state.legal_moves())
            cards = len(view.hand or ())
            if view.deck_remaining == 0 and len(moves) > 1 and seen[cards] < per_size:
                found = analyze(view, moves, rng=random.Random(seed))
                hands, deck = sample_hidden(view, random.Random(0))
                sim = sim_from_view(view, hands, deck)
                side = rules.side_of(seat)
                solved = solve(sim, [sim.to_sim(m) for m in moves], side, max_nodes=10**12)
                assert solved is not None and solved[1]
                seen[cards] += 1
                if found.method == "exact":
                    exact[cards] += 1
                    equal[cards] += abs(max(v.value for v in found.moves) - max(solved[0])) < 1e-9
            state = state.apply(rng.choice(moves))
    for cards in sorted(seen):
        print(
            f"last deal, {cards} cards in hand: exact at the default budget "
            f"{exact[cards]}/{seen[cards]}, equal to the unbounded solver where exact "
            f"{equal[cards]}/{exact[cards]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--last-deals", type=int, default=150)
    args = parser.parse_args()
    last_deals(args.last_deals)
    latency(args.positions)


if __name__ == "__main__":
    main()
