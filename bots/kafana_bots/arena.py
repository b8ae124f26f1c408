"""The arena: bots against each other on the same deals, with seats swapped (duplicate).

Deal k is the deck `shuffled_deck(seed, k)`, played as one hand. With `duplicate`, every deal
is played once per seating (the two bots swap seats; with more seats, every rotation), so
the luck of the cards cancels out in the per-deal difference. With `partners` (2 against 2)
each bot sits opposite its own partner, and a bot's points are its side's.

The arena is the only place the all-seeing `oracle` plays: it creates bots with
`registry.create(..., arena=True)` and shows an oracle the deal before play.
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import statistics
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from itertools import islice
from math import sqrt

from kafana.games.tablic import Rules, new_match, shuffled_deck

from kafana_bots import registry
from kafana_bots.oracle import OracleBot
from kafana_bots.play import play

MAX_JOBS = 64
"""The most worker processes `run` takes. The workers are CPU-bound, so more than the cores
only adds memory and contention (and slows timed searches down, `budget_ms`); 64 is well past
the cores of a big machine yet a number any machine can fork, the same everywhere."""
CHUNK = 4
"""Deals a worker plays per task at most (fewer when there are few deals per worker)."""


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: the bots (by registry name), the deals and the table."""

    bots: tuple[str, ...]
    hands: int = 400
    duplicate: bool = True
    preset: str = "serbian"
    players: int = 2
    partnerships: bool = False
    seed: int = 1
    budget_ms: float | None = None
    iterations: int | None = None
    building: bool = False
    """The `building` switch (builds and raises) on top of the preset."""
    partners: tuple[str, ...] | None = None
    """2 against 2 only: the partner of each of the two bots (`ismcts` with a `heuristic`
    partner: bots ("heuristic", "ismcts"), partners ("heuristic", "heuristic"))."""

    def __post_init__(self) -> None:
        if len(self.bots) > self.players:
            raise ValueError(
                f"{len(self.bots)} bots for {self.players} seats: a bot without a seat would "
                "never play"
            )
        if self.partners is not None and not (
            self.players == 4
            and self.partnerships
            and len(self.bots) == 2
            and len(self.partners) == 2
        ):
            raise ValueError("partners need two bots, two partners and 4 players in 2 against 2")

    @property
    def rules(self) -> Rules:
        """The rules of every deal."""
        return Rules.preset(
            self.preset,
            players=self.players,
            partnerships=self.partnerships,
            building=self.building,
        )


@dataclass
class DealResult:
    """One deal: each bot's mean points per hand over its seats, and its decision times."""

    deal: int
    points: list[float]
    times: list[list[float]] = field(default_factory=list)


def seatings(bots: int, players: int, duplicate: bool) -> list[tuple[int, ...]]:
    """Bot index per seat for each game of a deal: bots alternate round the table.

    >>> seatings(2, 2, True)
    [(0, 1), (1, 0)]
    >>> seatings(2, 4, True)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    """
    base = tuple(i % bots for i in range(players))
    if not duplicate:
        return [base]
    out: list[tuple[int, ...]] = []
    for shift in range(players):
        seating = tuple(base[(seat + shift) % players] for seat in range(players))
        if seating not in out:
            out.append(seating)
    return out


Lineup = tuple[tuple[int, str, bool], ...]
"""Per seat: the bot index it plays for, the bot's name, and whether it is that bot itself
(False: its partner, whose decisions are not timed)."""


def lineups(config: ArenaConfig) -> list[Lineup]:
    """Each game of a deal: who sits where (`seatings`; with partners, every rotation of
    bot 0, bot 1, partner 0, partner 1 round the table)."""
    bots = config.bots
    if config.partners is None:
        k = len(bots)
        return [
            tuple((b, bots[b], True) for b in seating)
            for seating in seatings(k, config.players, config.duplicate)
        ]
    a, b = config.partners
    table = ((0, bots[0], True), (1, bots[1], True), (0, a, False), (1, b, False))
    shifts = range(4) if config.duplicate else range(1)
    return [tuple(table[(seat + shift) % 4] for seat in range(4)) for shift in shifts]


def _options(config: ArenaConfig, name: str) -> dict[str, float | int]:
    accepted = registry.entry(name, arena=True).options
    options: dict[str, float | int] = {}
    if config.budget_ms is not None and "budget_ms" in accepted:
        options["budget_ms"] = config.budget_ms
    if config.iterations is not None and "iterations" in accepted:
        options["iterations"] = config.iterations
    return options


def play_deal(config: ArenaConfig, deal: int) -> DealResult:
    """Play deal number `deal` once per seating; points and decision times per bot."""
    rules = config.rules
    deck = shuffled_deck(config.seed, deal)
    k = len(config.bots)
    sums = [0.0] * k
    seats_played = [0] * k
    times: list[list[float]] = [[] for _ in range(k)]
    for g, lineup in enumerate(lineups(config)):
        bots = [
            registry.create(
                name,
                seat=seat,
                rules=rules,
                rng=random.Random(f"{config.seed}:{deal}:{g}:{seat}"),
                arena=True,
                **_options(config, name),
            )
            for seat, (_, name, _) in enumerate(lineup)
        ]
        start = new_match(rules, decks=[deck])
        for bot in bots:
            if isinstance(bot, OracleBot):
                bot.see(start)  # the yardstick is shown the deal; no other bot is

        def timed(seat: int, seconds: float, lineup: Lineup = lineup) -> None:
            b, _, itself = lineup[seat]
            if itself:
                times[b].append(seconds)

        state = play(start, bots, hands=1, on_decision=timed)
        points = state.hand_results[0].points
        for seat, (b, _, _) in enumerate(lineup):
            sums[b] += points[rules.side_of(seat)]
            seats_played[b] += 1
    means = [s / max(1, n) for s, n in zip(sums, seats_played, strict=True)]
    return DealResult(deal, means, times)


def run(
    config: ArenaConfig, jobs: int = 1, progress: Callable[[DealResult], None] | None = None
) -> list[DealResult]:
    """Play every deal, in `jobs` worker processes (1 to `MAX_JOBS`; never more than there
    are deals, and 1 plays in this process), calling `progress` as each one finishes.

    However `run` ends (an exception, Ctrl-C, a `KeyboardInterrupt` a SIGTERM handler
    raises), no worker outlives it; on Linux a worker also dies when this process does."""
    if not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"jobs must be 1 to {MAX_JOBS}, not {jobs}")
    workers = min(jobs, config.hands)
    played: Generator[DealResult, None, None] = (
        (play_deal(config, deal) for deal in range(config.hands))
        if workers <= 1
        else _played_in(config, workers)
    )
    results: list[DealResult] = []
    with closing(played):  # a `progress` that raises ends the workers too
        for result in played:
            results.append(result)
            if progress is not None:
                progress(result)
    results.sort(key=lambda r: r.deal)
    return results


def _played_in(config: ArenaConfig, workers: int) -> Generator[DealResult, None, None]:
    """The deals played by `workers` processes, as they finish: a few tasks of at most
    `CHUNK` deals per worker in flight, the next handed out as one finishes."""
    chunk = max(1, min(CHUNK, config.hands // workers))
    starts = iter(range(0, config.hands, chunk))
    running: set[Future[list[DealResult]]] = set()
    with _pool(workers) as pool:
        while True:
            for start in islice(starts, 2 * workers - len(running)):
                end = min(start + chunk, config.hands)
                running.add(pool.submit(_play_deals, config, start, end))
            if not running:
                return
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield from future.result()


def _play_deals(config: ArenaConfig, start: int, end: int) -> list[DealResult]:
    return [play_deal(config, deal) for deal in range(start, end)]


@contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` processes, shut down on the way out; on an exception (Ctrl-C, an
    error, the deals' generator closed early) its workers are killed first, not waited for:
    a task of search bots may take minutes."""
    pool = ProcessPoolExecutor(workers, initializer=_worker_starts, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        _kill(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _kill(pool: ProcessPoolExecutor) -> None:
    """Kill `pool`'s workers and reap them (its `_processes`: `terminate_workers` is
    Python 3.14's); its shutdown then finds them gone."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.kill()
    for process in processes:
        process.join()


PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent (the thread that forked it) ends."""


def _worker_starts(parent: int) -> None:
    """In each worker, first: the parent alone hears Ctrl-C (and ends its workers); SIGTERM
    kills a worker whatever handler it inherited; on Linux, SIGKILL when the parent ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before prctl took effect
        os._exit(1)


@dataclass(frozen=True)
class Summary:
    """Means per bot, differences against the first bot with 95% intervals, decision times."""

    bots: tuple[str, ...]
    deals: int
    mean: tuple[float, ...]
    diff: tuple[tuple[float, float, float], ...]  # (mean, low, high) for bots[1:] minus bots[0]
    median_ms: tuple[float, ...]
    p99_ms: tuple[float, ...]


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, mean, mean)
    half = 1.96 * statistics.stdev(values) / sqrt(len(values))
    return (mean, mean - half, mean + half)


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(config: ArenaConfig, results: Sequence[DealResult]) -> Summary:
    """Aggregate deal results (paired per deal for the differences)."""
    k = len(config.bots)
    mean = tuple(statistics.fmean(r.points[b] for r in results) for b in range(k))
    diff = tuple(_interval([r.points[b] - r.points[0] for r in results]) for b in range(1, k))
    times = [[t for r in results for t in r.times[b]] for b in range(k)]
    return Summary(
        bots=config.bots,
        deals=len(results),
        mean=mean,
        diff=diff,
        median_ms=tuple(1000 * _percentile(t, 0.5) for t in times),
        p99_ms=tuple(1000 * _percentile(t, 0.99) for t in times),
    )


def share_text(name: str, bot: Sequence[float], bound: Sequence[float]) -> str:
    """One line: the bot's share of the oracle's margin (`share_of_bound`), or why there is
    none (an oracle that does not beat the opponent is no bound)."""
    top = sum(bound) / len(bound) if bound else 0.0
    if top <= 0:
        return (
            f"no share: the oracle's margin is {top:+.2f} over {len(bound)} deals "
            "(not above zero: no bound here)"
        )
    share, low, high = share_of_bound(bot, bound)
    return (
        f"share of the oracle's margin: {name} {100 * share:.0f}% "
        f"[{100 * low:.0f}%, {100 * high:.0f}%] over {len(bot)} deals"
    )


def share_of_bound(
    bot: Sequence[float], bound: Sequence[float], resamples: int = 2000
) -> tuple[float, float, float]:
    """A bot's mean margin as a share of the oracle's against the same opponent on the same
    deals (per-deal margins, paired), with a 95% interval from resampling the deals."""
    if len(bot) != len(bound) or not bot:
        raise ValueError("the two margins must be over the same deals")
    n = len(bot)
    rng = random.Random(0)
    shares: list[float] = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        total = sum(bound[i] for i in picks)
        if total > 0:
            shares.append(sum(bot[i] for i in picks) / total)
    top = sum(bound)
    share = sum(bot) / top if top > 0 else float("nan")
    if not shares:
        return (share, float("nan"), float("nan"))
    return (share, _percentile(shares, 0.025), _percentile(shares, 0.975))
