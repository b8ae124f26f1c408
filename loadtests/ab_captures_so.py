"""`captures()` at 12 cards from two builds of `_ccore` in one process, alternating rounds.

A C experiment on the capture listing (how its sets are built) is measured here before a
`make venv`: build the variant's shared object by hand, then compare it with the installed one,

    INCLUDE=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    gcc -shared -fPIC -O3 -I"$INCLUDE" server/kafana/games/tablic/_ccore.c -o /tmp/variant.so
    .venv/bin/python loadtests/ab_captures_so.py \
        server/kafana/games/tablic/_ccore.cpython-311-x86_64-linux-gnu.so /tmp/variant.so

Both load as `kafana.games.tablic._ccore` from their own files (each its own static state), are
given the cards (`set_cards`), and answer the same 5,000 random 12-card tables as
`ab_core.py`'s `captures` measure; their answers (None where one declines) are compared
on the first 500. Beside them, in the same rounds, the floor of any answer built fresh: only
`set(map(frozenset, tuples))` of the same answers from ready tuples (`bench_core.py`'s
floor). Process CPU time, medians of `--rounds`. In one process the two builds share the
allocator's state, so the ratio is the code's, not the machine's drift between processes.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import random
import statistics
import time
from types import ModuleType

from kafana.games import tablic
from kafana.games.tablic.capture import engine_for

NAME = "kafana.games.tablic._ccore"


def load(path: str) -> ModuleType:
    """The C module at `path`, ready to answer `captures`."""
    loader = importlib.machinery.ExtensionFileLoader(NAME, path)
    spec = importlib.util.spec_from_file_location(NAME, path, loader=loader)
    if spec is None:
        raise SystemExit(f"not a module: {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.set_cards(tablic.Card, tablic.CARDS)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("older", help="a built _ccore shared object")
    parser.add_argument("newer", help="another")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=5_000)
    args = parser.parse_args()
    rules = tablic.Rules.preset("serbian", players=2)
    params, priority = engine_for(rules).fast_params, rules.rank_priority
    rng = random.Random(1)
    calls = []
    for _ in range(args.calls):
        cards = rng.sample(tablic.CARDS, 13)
        calls.append((cards[0], tuple(cards[1:])))
    builds = {path: load(path) for path in (args.older, args.newer)}
    older, newer = (module.captures for module in builds.values())
    for card, table in calls[:500]:
        if newer(card, table, params, priority) != older(card, table, params, priority):
            raise SystemExit(f"the builds answer {card} on {table} differently")
    shapes = [
        [tuple(c) for c in older(card, table, params, priority) or ()] for card, table in calls
    ]
    rates: dict[str, list[float]] = {path: [] for path in builds}
    floor: list[float] = []
    for _ in range(args.rounds):
        start = time.process_time()
        for tuples in shapes:
            set(map(frozenset, tuples))
        floor.append(len(calls) / (time.process_time() - start))
        for path, module in builds.items():
            captures = module.captures
            start = time.process_time()
            for card, table in calls:
                captures(card, table, params, priority)
            rates[path].append(len(calls) / (time.process_time() - start))
    for path, found in rates.items():
        print(f"{path}: median {statistics.median(found):,.0f} calls/s")
    built = statistics.median(floor)
    print(f"floor (set(map(frozenset, tuples)) of the same answers): median {built:,.0f} calls/s")
    old, new = (statistics.median(found) for found in rates.values())
    print(f"newer / older = {new / old:.2f}")


if __name__ == "__main__":
    main()
