"""One server's settings: built once (`kafana serve` from its flags and environment, a test
from keywords) and passed down whole: `create_server(store, settings)`, `Tables(store,
settings)`. Frozen: nothing patches a setting on a running server."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.service.auth import AuthPolicy
from kafana.service.limits import Limits
from kafana.service.ratelimit import RateLimit
from kafana.service.resets import RESETS_PER_SECOND
from kafana.service.session_cache import CACHE_BYTES, CACHE_ENTRIES

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
JOIN_DEADLINE_MS = 600_000
"""How long an open table waits for its seats to be taken before it expires (10 minutes)."""
ABANDON_AFTER = 2
"""A match ends as abandoned when the clock has played this many moves of every seat, counted
per seat, with no move played by a seat (`faults.abandoned`): no server-played loop runs for
ever, and one away seat is played for while another plays."""
HEARTBEAT_S = 5.0
"""A WatchEvents stream idle this long gets a Heartbeat (`ServerLimits.heartbeat_millis`)."""
RETENTION_MS = 30 * DAY_MS
"""How long hosted events and their data are kept (`kafana serve --retention-days`)."""
BOT_PACE = RateLimit(rate=10.0, burst=2_000.0)
"""The moves a table of built-in bots only plays (every seat the server's): any match of
either game at once (a Tač game of two decks is under 1,700 moves), then 10 a second, per
table (`kafana.service.bot_tables`); at full speed one such table ran 2,600 moves/s, most of
a core, for minutes. Its `max_clients` bounds the tables a process keeps a pace for."""


@dataclass(frozen=True)
class Settings:
    """Everything a server is told: where it listens, how long tables live, its limits.

    The environment variables and flags of `kafana serve` (`KAFANA_IDLE_TTL`, `--idle-ttl`,
    ...) are its contract with deployments; this object is what they become, once.
    """

    # Where it listens.
    host: str = "127.0.0.1"
    port: int = 0  # 0: any free one (`KafanaServer.port` says which)
    reuse_port: bool = False  # share the port with other processes (SO_REUSEPORT)
    tls_cert: str | None = None  # PEM files; None: plaintext
    tls_key: str | None = None
    tls_client_ca: str | None = None  # mutual TLS: clients need a certificate it signed
    http_port: int | None = None  # Connect and gRPC-Web too (0: any free port)
    http_origins: tuple[str, ...] = ()  # CORS; none: same-origin pages only
    # Where tables are kept (`kafana serve` chooses the store from these).
    redis_url: str | None = None
    memory: bool = False
    durability: str = "primary"
    # How long things live.
    idle_ttl_ms: int = DAY_MS  # counted from the last move a seat played
    finished_ttl_ms: int = DAY_MS
    join_deadline_ms: int = JOIN_DEADLINE_MS  # an open table's time to live, from creation
    abandon_after: int = ABANDON_AFTER
    retention_ms: int = RETENTION_MS  # hosted events (the Competitions plug-in)
    # What one process holds and does.
    cache_size: int = CACHE_ENTRIES  # sessions cached (bounded by bytes too)
    cache_bytes: int = CACHE_BYTES
    clock_tick: float = 0.1  # seconds between two looks of the clock at due tables
    heartbeat_s: float = HEARTBEAT_S
    grace: float = 5.0  # seconds to finish calls on stop
    # Who may do what, how much.
    auth: AuthPolicy = field(default_factory=AuthPolicy)
    limits: Limits = field(default_factory=Limits)
    rate_limit: RateLimit = field(default_factory=RateLimit)
    resets_per_second: int = RESETS_PER_SECOND  # 0: a resetting connection is never closed
    bot_pace: RateLimit = field(default_factory=lambda: BOT_PACE)  # see BOT_PACE
    # What it tells.
    metered: bool = False  # count and time every call (`--metrics`)
    metrics_port: int | None = None
    log_format: str = "text"
    trace: bool = False

    def __post_init__(self) -> None:
        if self.abandon_after < 1:
            raise ValueError("abandon_after is at least 1")
        if self.join_deadline_ms < 1 or self.idle_ttl_ms < 1 or self.finished_ttl_ms < 1:
            raise ValueError("join_deadline_ms, idle_ttl_ms and finished_ttl_ms are at least 1")
        if self.heartbeat_s <= 0:
            raise ValueError(f"the heartbeat period is over 0 seconds, not {self.heartbeat_s}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise ValueError("tls_client_ca needs tls_cert and tls_key")
        if self.cache_size < 1 or self.cache_bytes < 1:
            raise ValueError("cache_size and cache_bytes are at least 1")

    @property
    def tls(self) -> bool:
        """Whether the server serves TLS."""
        return self.tls_cert is not None
