"""Prometheus metrics: one registry per process, scraped at `kafana serve --metrics PORT`.

Names and labels follow Prometheus conventions: counters end in `_total`, durations are in
seconds, labels have few values (a method, a game, a status code, a limit's name: never a
table id, an account or a token). The registry is the process's own (tests that start several
servers in one process read deltas); `kafana serve --metrics PORT` serves it over HTTP.
"""

from __future__ import annotations

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

disable_created_metrics()  # no `_created` twin of every counter: scrapes stay small
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
TABLES = Gauge(
    "kafana_tables",
    "Tables this process holds in its cache, by game and status (open, playing).",
    ("game", "status"),
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
    "Moves the clock played or forfeited because a seat ran out of time.",
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
CACHE_ENTRIES = Gauge(
    "kafana_cache_entries",
    "Entries held by a bounded cache, by cache.",
    ("cache",),
    registry=REGISTRY,
)
CACHE_CAPACITY = Gauge(
    "kafana_cache_capacity",
    "The bound of a cache, by cache (entries never exceed it).",
    ("cache",),
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


def cache_size(name: str, entries: int, capacity: int) -> None:
    """Record a bounded cache's size against its bound."""
    CACHE_ENTRIES.labels(name).set(entries)
    CACHE_CAPACITY.labels(name).set(capacity)


def serve_metrics(port: int, host: str = "127.0.0.1") -> int:
    """Serve the registry at http://host:port/metrics (a thread); the port bound."""
    server, _thread = start_http_server(port, addr=host, registry=REGISTRY)
    return int(server.server_port)


__all__ = [
    "CACHE_CAPACITY",
    "CACHE_ENTRIES",
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
    "TABLES",
    "TABLES_ABANDONED",
    "cache_size",
    "serve_metrics",
]
