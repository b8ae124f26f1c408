"""`kafana arena`: measure bots against each other on duplicate deals."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import click
from kafana_bots import registry
from kafana_bots.arena import MAX_JOBS, ArenaConfig, DealResult, Summary, run, summarize
from kafana_client.cli import interrupt
from kafana_client.cli.numbers import Finite
from kafana_client.cli.words import plural
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from kafana.cli.bot_spec import keywords, load
from kafana.cli.options import PRESET, SEED, need_four, options_of


@click.command()
@click.option(
    "--bots",
    "bot_names",
    required=True,
    help="Comma-separated bots: registry names (greedy,ismcts; the arena-only oracle too), "
    "module:Class or ./file.py:Class.",
)
@click.option(
    "--vs",
    "baseline",
    default=None,
    help="Measure --bots against this bot (e.g. heuristic): it is listed first, the others' "
    "rows show their difference to it with the 95% confidence interval.",
)
@click.option(
    "--hands", type=click.IntRange(1), default=400, show_default=True, help="Deals to play."
)
@click.option(
    "--duplicate/--no-duplicate",
    default=True,
    show_default=True,
    help="Play each deal once per seating.",
)
@PRESET
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--partnerships", is_flag=True, help="Four players in two partnerships.")
@click.option("--building", is_flag=True, help="Builds and raises (the `building` switch).")
@click.option("--seed", type=SEED, default=1, show_default=True)
@click.option(
    "--budget-ms", type=Finite(1, 600_000), default=None, help="Search bots' time per move."
)
@click.option(
    "--iterations",
    type=click.IntRange(1),
    default=None,
    help="Search bots' worlds per move (replayable).",
)
@click.option(
    "--jobs",
    type=click.IntRange(1, MAX_JOBS),
    default=1,
    show_default=True,
    help=f"Worker processes, at most {MAX_JOBS} (and never more than the deals).",
)
@click.option("--markdown", is_flag=True, help="Also print the result as a Markdown table row.")
def arena(
    bot_names: str,
    baseline: str | None,
    hands: int,
    duplicate: bool,
    preset: str,
    players: int,
    partnerships: bool,
    building: bool,
    seed: int,
    budget_ms: float | None,
    iterations: int | None,
    jobs: int,
    markdown: bool,
) -> None:
    """Play BOTS against each other on the same deals and report points per hand."""
    names = tuple(n.strip() for n in bot_names.split(",") if n.strip())
    if baseline is not None:
        names = (baseline.strip(), *names)
    if len(names) < 2:
        raise click.BadParameter(
            "name at least two bots (or one with --vs BOT)", param_hint="--bots"
        )
    if len(names) > players:
        raise click.BadParameter(
            f"{len(names)} bots for {players} seats: a bot without a seat would score 0 "
            f"(name at most {players}, or add --players)",
            param_hint="--bots",
        )
    need_four(players, partnerships)
    for name in names:
        _registered(name)
    config = options_of(ArenaConfig, bots=names)
    console = Console(stderr=True)
    with (
        _stoppable(),
        Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
        ) as bar,
    ):
        task = bar.add_task(" vs ".join(names), total=hands)

        def advance(_: DealResult) -> None:
            bar.advance(task)

        results = run(config, jobs=jobs, progress=advance)
    summary = summarize(config, results)
    Console().print(_table(config, summary))
    if markdown:
        click.echo(markdown_rows(config, summary))


@contextmanager
def _stoppable() -> Iterator[None]:
    """Ctrl-C or SIGTERM (a plain `kill`) stops the run: its `KeyboardInterrupt` (SIGTERM's
    `Interrupted`, from a plain handler: the arena runs no event loop) ends the workers on its
    way out of `kafana_bots.arena.run`; the error boundary says "interrupted", exit 130 or 143.
    SIGTERM that is ignored, or off the main thread (no handler can be set there), is left be."""
    handled = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
    )
    previous = signal.signal(signal.SIGTERM, _interrupt) if handled else None
    try:
        yield
    finally:
        if handled:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _interrupt(signum: int, _: FrameType | None) -> None:
    raise interrupt.Interrupted(signum)


def _registered(spec: str) -> None:
    """Make SPEC an arena bot: a registry name as it is, an author's class registered under
    its spec (worker processes are forked, so they have it too). The arena lends the
    arena-only bots (the all-seeing `oracle`) that no table gets."""
    if spec in registry.names(arena=True):
        return
    found = load(spec)
    if "tablic" not in found.factories:
        raise click.BadParameter(f"{spec!r} is not a Tablić bot (the arena plays Tablić)")
    options = frozenset({"budget_ms", "iterations"}) & set(keywords(found.factory("tablic")))
    registry.register(spec, found.factory("tablic"), f"{spec} (from the command line)", options)


def _table(config: ArenaConfig, summary: Summary) -> Table:
    seats = f"{config.players}p" + (" 2v2" if config.partnerships else "")
    seats += " building" if config.building else ""
    table = Table(
        title=f"{config.preset} {seats}, {plural(summary.deals, 'deal')}, seed {config.seed}"
    )
    for column in (
        "bot",
        "points/hand",
        f"minus {summary.bots[0]} (95% CI)",
        "median ms",
        "p99 ms",
    ):
        table.add_column(column, justify="right")
    for b, name in enumerate(summary.bots):
        if b == 0:
            diff = "-"
        else:
            m, lo, hi = summary.diff[b - 1]
            diff = f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        table.add_row(
            name,
            f"{summary.mean[b]:.2f}",
            diff,
            _ms(summary.median_ms[b]),
            _ms(summary.p99_ms[b]),
        )
    return table


def _ms(value: float) -> str:
    """Milliseconds with three significant digits or so: 0.012, 1.23, 201."""
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def markdown_rows(config: ArenaConfig, summary: Summary) -> str:
    """Markdown table rows (bots, deals, means, difference [95% CI], times), one per bot."""
    rows = []
    base = summary.bots[0]
    for b in range(1, len(summary.bots)):
        m, lo, hi = summary.diff[b - 1]
        name = summary.bots[b]
        rows.append(
            f"| {name} vs {base} | {summary.deals} | {summary.mean[b]:.2f} / {summary.mean[0]:.2f} "
            f"| {m:+.2f} [{lo:+.2f}, {hi:+.2f}] "
            f"| {_ms(summary.median_ms[b])} / {_ms(summary.p99_ms[b])} "
            f"| {_ms(summary.median_ms[0])} / {_ms(summary.p99_ms[0])} |"
        )
    return "\n".join(rows)
