"""Prometheus metrics: one registry per process, scraped at `kafana serve --metrics PORT`.

Names and labels follow Prometheus conventions: counters end in `_total`, durations are in
seconds, labels have few values (a method, a game, a status code, a limit's name: never a
table id, an account or a token). The registry is the process's own (tests that start several
servers in one process read deltas); `kafana serve --metrics PORT` serves it over HTTP.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    gc_collector,
    platform_collector,
    process_collector,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

T = TypeVar("T")

# No `_created` twin of every counter: scrapes stay small.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry(auto_describe=True)
process_collector.ProcessCollector(registry=REGISTRY)
platform_collector.PlatformCollector(registry=REGISTRY)
gc_collector.GCCollector(registry=REGISTRY)

# Latency buckets for one call: a move is ~0.3 ms of CPU; a stream's "duration" is its life.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RPC_CALLS = Counter(
    "kafana_rpc_calls",
    "Calls answered, by service, method and status code.",
    ("service", "method", "code"),
    registry=REGISTRY,
)
RPC_DURATION = Histogram(
    "kafana_rpc_duration_seconds",
    "Time to answer a unary call (streams: until they end), by service and method.",
    ("service", "method"),
    buckets=_BUCKETS,
    registry=REGISTRY,
)
MOVES_APPLIED = Counter(
    "kafana_moves_applied",
    "Moves applied to tables (played, or by the clock), by game.",
    ("game",),
    registry=REGISTRY,
)
STREAMS_OPEN = Gauge(
    "kafana_streams_open",
    "Server streams open now on this process, by method.",
    ("method",),
    registry=REGISTRY,
)
CLOCK_TIMEOUTS = Counter(
    "kafana_clock_timeouts",
    "Fault-policy actions the clock applied: a seat out of time or absent (a default move, "
    "a forfeit, an abandonment).",
    registry=REGISTRY,
)
TABLES_ABANDONED = Counter(
    "kafana_tables_abandoned",
    "Tables closed because every seat ran out of time turn after turn.",
    registry=REGISTRY,
)
REFUSALS = Counter(
    "kafana_refusals",
    "Calls refused by a limit (rate, quota, stream cap, size), by the limit's name.",
    ("limit",),
    registry=REGISTRY,
)
REDIS_CALLS = Counter(
    "kafana_redis_calls",
    "Round trips to Redis (a pipeline counts once).",
    registry=REGISTRY,
)
REDIS_ERRORS = Counter(
    "kafana_redis_errors",
    "Round trips to Redis that failed (unreachable, timed out, refused).",
    registry=REGISTRY,
)
LEAGUE_SETTLED = Counter(
    "kafana_league_matches_settled",
    "League matches settled by this process's referee.",
    registry=REGISTRY,
)
LEAGUE_RATED = Counter(
    "kafana_league_matches_rated",
    "League matches settled with a rating update.",
    registry=REGISTRY,
)
LEAGUE_QUEUE = Gauge(
    "kafana_league_queue_length",
    "Players waiting in league queues, as this process last read them.",
    registry=REGISTRY,
)
EVENT_GAMES = Counter(
    "kafana_event_games_finished",
    "Games of hosted events that finished under this process's director.",
    registry=REGISTRY,
)


Sizes = Callable[[Any], Iterable[tuple[str, int, int]]]
"""What an owner's bounded caches hold: (cache name, entries, bound) of each."""
Census = Callable[[Any], Iterable[tuple[str, str]]]
"""The tables an owner holds: (game, status) of each."""


class Watched(Collector):
    """Gauges read at scrape time from live objects (weakly held: a stopped server's caches
    drop out): `kafana_cache_entries` / `kafana_cache_capacity` by cache, `kafana_tables` by
    game and status. Nothing is counted on the move path; a scrape walks the session cache
    (1,024 entries by default)."""

    def __init__(self) -> None:
        self._sizes: weakref.WeakKeyDictionary[Any, Sizes] = weakref.WeakKeyDictionary()
        self._census: weakref.WeakKeyDictionary[Any, Census] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()  # scrapes run in the HTTP server's thread

    def sizes(self, owner: Any, read: Sizes) -> None:
        """Report `read(owner)`'s caches while `owner` lives."""
        with self._lock:
            self._sizes[owner] = read

    def census(self, owner: Any, read: Census) -> None:
        """Count `read(owner)`'s tables while `owner` lives."""
        with self._lock:
            self._census[owner] = read

    def describe(self) -> list[Metric]:
        """The families, without samples (the registry learns the names)."""
        return list(self._families())

    def collect(self) -> list[Metric]:
        """The families, read now (summed over owners: several servers in one process)."""
        entries, capacity, tables = self._families()
        with self._lock:
            sizes = [(owner, read) for owner, read in self._sizes.items()]
            census = [(owner, read) for owner, read in self._census.items()]
        held: dict[str, list[int]] = {}
        for owner, read_sizes in sizes:
            for name, count, bound in _safely(read_sizes, owner):
                total = held.setdefault(name, [0, 0])
                total[0] += count
                total[1] += bound
        for name, (count, bound) in sorted(held.items()):
            entries.add_metric([name], count)
            capacity.add_metric([name], bound)
        counted: dict[tuple[str, str], int] = {}
        for owner, read_census in census:
            for key in _safely(read_census, owner):
                counted[key] = counted.get(key, 0) + 1
        for (game, status), count in sorted(counted.items()):
            tables.add_metric([game, status], count)
        return [entries, capacity, tables]

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily]:
        return (
            GaugeMetricFamily(
                "kafana_cache_entries",
                "Entries held by a bounded cache, by cache.",
                labels=["cache"],
            ),
            GaugeMetricFamily(
                "kafana_cache_capacity",
                "The bound of a cache, by cache (entries never exceed it).",
                labels=["cache"],
            ),
            GaugeMetricFamily(
                "kafana_tables",
                "Tables this process holds in its cache, by game and status (open, playing).",
                labels=["game", "status"],
            ),
        )


def _safely(read: Callable[[Any], Iterable[T]], owner: Any) -> list[T]:
    """`read(owner)` as a list; a cache changing under the scrape thread gives nothing this
    time rather than a failed scrape."""
    try:
        return list(read(owner))
    except RuntimeError:  # "changed size during iteration"
        return []


WATCHED = Watched()
REGISTRY.register(WATCHED)


_moves: dict[str, Any] = {}  # the counter of each game: `labels()` costs a lock and a tuple


def move_applied(game: str, count: int = 1) -> None:
    """`count` moves were applied at a table of `game` (its name: "tablic", "tac")."""
    counter = _moves.get(game)
    if counter is None:
        counter = _moves[game] = MOVES_APPLIED.labels(game)
    counter.inc(count)


def league_settled(rated: bool) -> None:
    """The referee settled a league match (`rated`: with a rating update)."""
    LEAGUE_SETTLED.inc()
    if rated:
        LEAGUE_RATED.inc()


_queues: dict[tuple[str, str], int] = {}  # (referee, league): players it read waiting


def league_queue(referee: str, league: str, waiting: int) -> None:
    """`referee` read `waiting` players in `league`'s queue: the gauge is the sum."""
    _queues[referee, league] = waiting
    LEAGUE_QUEUE.set(sum(_queues.values()))


def league_queue_gone(referee: str, league: str | None = None) -> None:
    """`referee` no longer reads `league`'s queue (another pairs it), or no queue at all
    (`league` None: it stopped)."""
    if league is not None:  # each round of a league another referee pairs: one lookup
        gone = [(referee, league)] if (referee, league) in _queues else []
    else:
        gone = [key for key in _queues if key[0] == referee]
    for key in gone:
        del _queues[key]
    if gone:
        LEAGUE_QUEUE.set(sum(_queues.values()))


def serve_metrics(port: int, host: str = "127.0.0.1") -> int:
    """Serve the registry at http://host:port/metrics (a thread); the port bound."""
    server, _thread = start_http_server(port, addr=host, registry=REGISTRY)
    return int(server.server_port)


__all__ = [
    "CLOCK_TIMEOUTS",
    "EVENT_GAMES",
    "LEAGUE_QUEUE",
    "LEAGUE_RATED",
    "LEAGUE_SETTLED",
    "MOVES_APPLIED",
    "REDIS_CALLS",
    "REDIS_ERRORS",
    "REFUSALS",
    "REGISTRY",
    "RPC_CALLS",
    "RPC_DURATION",
    "STREAMS_OPEN",
    "TABLES_ABANDONED",
    "WATCHED",
    "Census",
    "Sizes",
    "Watched",
    "league_queue",
    "league_queue_gone",
    "league_settled",
    "move_applied",
    "serve_metrics",
]
