"""Tablić pairs, the minimax baseline and the bound, printing the running result as it goes.

`kafana arena` reports at the end; a long run on a shared machine is better read as it goes.
The bots are registry names or `minimax2` / `minimax3` (`loadtests/minimax_bot.py`); the
deals, seatings and statistics are the arena's (`kafana_bots.arena`). With `--oracle` every
deal is also played by the first bot against the all-seeing `oracle` (same budget), and the
second bot's margin is reported as a share of the oracle's ("how much of the information gap
it closes", with a 95% interval from resampling the deals). `--partners` plays 2 against 2,
each bot opposite its partner (`--partners heuristic,heuristic` with `--bots heuristic,ismcts`:
`ismcts`+`heuristic` against `heuristic`+`heuristic`). `--minutes` stops after that long and
reports the deals played (each deal's pair and oracle games both finished). `--keep FILE`
(replayable runs, `--iterations`, only) keeps every finished game of a deal in FILE (JSON lines,
keyed by the configuration) and takes a deal found there instead of playing it again: the
oracle's 400 deals against `minimax3` are played once, not once per `ismcts` tried. A change
to a bot's code makes its kept deals stale: delete the file (or its lines) then.
`--variant NAME:ATTR=VALUE,...` registers `ismcts` with other class attributes under NAME, and
`--compare ismcts` then prints NAME's margin less `ismcts`'s, paired on the kept deals.

    .venv/bin/python loadtests/ladder_tablic.py --bots minimax3,ismcts --hands 400 --jobs 2
    .venv/bin/python loadtests/ladder_tablic.py --bots heuristic,ismcts --oracle --budget-ms 50
    .venv/bin/python loadtests/ladder_tablic.py --variant v_sir8:LIKELIHOOD_DRAWS=8 \
        --bots minimax3,v_sir8 --oracle --iterations 300 --keep deals.jsonl --compare ismcts
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / d) for d in ("server", "bots")] + [str(HERE)]

from kafana.cli.arena import markdown_rows  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_bots.arena import (  # noqa: E402
    ArenaConfig,
    DealResult,
    play_deal,
    share_text,
    summarize,
)
from kafana_bots.ismcts import SearchBot  # noqa: E402
from minimax_bot import Minimax2, Minimax3  # noqa: E402

Played = tuple[DealResult, DealResult | None]
"""One deal: the pair's result, and the first bot against the oracle's (with `--oracle`)."""


def _register() -> None:
    if "minimax2" not in registry.names():
        registry.register("minimax2", Minimax2, "independent minimax baseline, 2 plies")
        registry.register("minimax3", Minimax3, "independent minimax baseline, 3 plies")


def register_variant(spec: str) -> str:
    """`--variant NAME:ATTR=VALUE,...`: register `ismcts` with other class attributes (say
    `v_sir8:LIKELIHOOD_DRAWS=8`) under NAME, for a run paired with `ismcts` on kept deals."""
    name, _, assigns = spec.partition(":")
    attrs: dict[str, object] = {"name": name}
    for assign in filter(None, assigns.split(",")):
        attr, _, text = assign.partition("=")
        if not hasattr(SearchBot, attr):
            raise SystemExit(f"--variant: SearchBot has no attribute {attr!r}")
        value: object = {"True": True, "False": False}.get(text, text)
        if isinstance(value, str):
            value = float(text) if "." in text or "e" in text else int(text)
        attrs[attr] = value
    registry.register(
        name,
        type(name, (SearchBot,), attrs),
        f"ismcts with {assigns}",
        frozenset({"budget_ms", "iterations", "horizon"}),
    )
    return name


Kept = dict[tuple[str, int], DealResult]
"""Deals already played (`--keep`): by the configuration's key and the deal number."""


def config_key(config: ArenaConfig) -> str:
    """What makes a replayable deal's result: every field of the configuration but `hands`."""
    fields = asdict(config)
    del fields["hands"]
    return json.dumps(fields, sort_keys=True)


def load_kept(path: Path) -> Kept:
    """The deals kept in `path` (none if there is no such file)."""
    kept: Kept = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            kept[row["config"], row["deal"]] = DealResult(row["deal"], row["points"], row["times"])
    return kept


def keep(path: Path, config: ArenaConfig, result: DealResult) -> None:
    """Append one finished deal to `path`."""
    row = {"config": config_key(config), "deal": result.deal, "points": result.points}
    with path.open("a") as out:
        out.write(json.dumps({**row, "times": result.times}) + "\n")


def play_one(config: ArenaConfig, deal: int, kept: Kept) -> tuple[DealResult, bool]:
    """Deal `deal` of `config`, from `kept` if it is there; True if it was played now."""
    found = kept.get((config_key(config), deal))
    return (found, False) if found is not None else (play_deal(config, deal), True)


def play_both(
    pair: ArenaConfig, bound: ArenaConfig | None, deal: int, kept: Kept | None = None
) -> tuple[Played, tuple[bool, bool]]:
    """Deal `deal` for the pair, then for the first bot against the oracle (each from `kept`
    if there); with whether each was played now."""
    _register()
    kept = kept or {}
    first, played = play_one(pair, deal, kept)
    if bound is None:
        return (first, None), (played, False)
    second, played_bound = play_one(bound, deal, kept)
    return (first, second), (played, played_bound)


def oracle_config(pair: ArenaConfig) -> ArenaConfig:
    """The pair with its second bot replaced by the oracle (and so is a partner of its kind)."""
    partners = pair.partners
    if partners is not None:
        partners = (partners[0], "oracle" if partners[1] == pair.bots[1] else partners[1])
    return replace(pair, bots=(pair.bots[0], "oracle"), partners=partners)


def report(pair: ArenaConfig, bound: ArenaConfig | None, done: list[Played]) -> str:
    """The Markdown rows of the pair (and the oracle's pair) and the share of the bound."""
    ordered = sorted(done, key=lambda p: p[0].deal)
    results = [p for p, _ in ordered]
    lines = [markdown_rows(pair, summarize(pair, results))]
    oracle = [o for _, o in ordered if o is not None]
    if bound is not None and len(oracle) == len(results):
        lines.append(markdown_rows(bound, summarize(bound, oracle)))
        mine = [r.points[1] - r.points[0] for r in results]
        best = [r.points[1] - r.points[0] for r in oracle]
        lines.append(share_text(pair.bots[1], mine, best))
    return "\n".join(lines)


def compared(pair: ArenaConfig, other: str, done: list[Played], kept: Kept) -> str:
    """The second bot's margin less `other`'s (against the same first bot) on the deals of
    `done` that `kept` holds for `other`: the paired difference and its 95% interval."""
    against = replace(pair, bots=(pair.bots[0], other))
    key = config_key(against)
    diffs = []
    for result, _ in done:
        found = kept.get((key, result.deal))
        if found is not None:
            mine = result.points[1] - result.points[0]
            diffs.append(mine - (found.points[1] - found.points[0]))
    if len(diffs) < 2:
        return f"no kept deals of {other} to compare with"
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
    return (
        f"{pair.bots[1]} minus {other}, paired: {mean:+.2f} [{mean - half:+.2f}, "
        f"{mean + half:+.2f}] over {len(diffs)} deals"
    )


def main() -> None:
    """Run the pair, print the Markdown rows every `--every` deals and at the end."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", required=True)
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--preset", default="serbian")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--partners", help="2 against 2: the partner of each bot, as X,Y")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=float)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--oracle", action="store_true", help="also play the first bot vs oracle")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--minutes", type=float, help="stop after this long")
    parser.add_argument("--keep", type=Path, help="keep finished deals here, and reuse them")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME:ATTR=VALUE,...: ismcts with other class attributes, registered as NAME",
    )
    parser.add_argument("--compare", help="with --keep: the paired difference from this bot")
    args = parser.parse_args()
    if args.keep is not None and args.iterations is None:
        parser.error("--keep needs --iterations: only a replayable budget replays a deal")
    _register()
    for spec in args.variant:
        register_variant(spec)
    partners = None if args.partners is None else tuple(args.partners.split(","))
    pair = ArenaConfig(
        bots=tuple(args.bots.split(",")),
        hands=args.hands,
        preset=args.preset,
        players=4 if partners else args.players,
        partnerships=partners is not None,
        partners=partners,
        seed=args.seed,
        budget_ms=args.budget_ms,
        iterations=args.iterations,
    )
    bound = oracle_config(pair) if args.oracle else None
    stop = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    done: list[Played] = []
    deals = iter(range(args.hands))
    kept = {} if args.keep is None else load_kept(args.keep)
    configs = (pair, bound)
    running: set[Future[tuple[Played, tuple[bool, bool]]]] = set()
    stopping = False
    # A deal is handed to a worker only when one is free, so that at the stop nothing is
    # queued: the deals under way finish (and count), and the workers exit.
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        while True:
            while not stopping and len(running) < args.jobs:
                deal = next(deals, None)
                if deal is None:
                    break
                mine = {k: v for k, v in kept.items() if k[1] == deal}
                running.add(pool.submit(play_both, pair, bound, deal, mine))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                played, fresh = future.result()
                done.append(played)
                if args.keep is not None:
                    for config, result, new in zip(configs, played, fresh, strict=True):
                        if new and config is not None and result is not None:
                            keep(args.keep, config, result)
                if len(done) % args.every == 0:
                    print(report(pair, bound, done), flush=True)
            if not stopping and stop is not None and time.monotonic() > stop:
                print(f"stopped after {args.minutes:g} minutes", flush=True)
                stopping = True
    print("final:", report(pair, bound, done), flush=True)
    if args.compare and args.keep is not None:
        print(compared(pair, args.compare, done, load_kept(args.keep)), flush=True)


if __name__ == "__main__":
    main()
