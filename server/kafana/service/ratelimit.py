"""Per-caller rate limits: one token bucket per caller key, in memory, per server process.

A caller is its account, else its address (`kafana.service.guard.caller_key`).

A bucket holds up to `burst` tokens and refills at `rate` tokens per second; each call takes one,
and a call whose work is many calls' worth says so (`charge`): that is taken after it, so the
caller's next calls wait for it. An empty bucket refuses the call and says how long until a
token is back:

>>> now = [0.0]
>>> limiter = RateLimiter(RateLimit(rate=2, burst=2), clock=lambda: now[0])
>>> limiter.take("ana"), limiter.take("ana"), limiter.take("ana")
(0.0, 0.0, 0.5)
>>> limiter.take("bora")  # every caller has its own bucket
0.0
>>> now[0] = 0.5
>>> limiter.take("ana")
0.0
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

_CHARGED: ContextVar[Callable[[float], None] | None] = ContextVar("kafana_charged", default=None)
"""Where the running call's charges beyond its own token go (`charge`), set by the guard."""


def charge(tokens: float) -> None:
    """Charge the running call `tokens` more than an ordinary call's one, to its caller (taken
    by the guard after a call, at once in a stream). Outside a guarded call (the domain layer
    used directly, a competition's own work) nothing is charged."""
    charged = _CHARGED.get()
    if charged is not None:
        charged(tokens)


def charging(to: Callable[[float], None] | None = None) -> list[float]:
    """Start counting the running call's `charge`s (the guard, before the call): into the
    list returned, or, given `to` (a stream, which may last hours), straight to it."""
    charged: list[float] = []
    _CHARGED.set(to or charged.append)
    return charged


@dataclass(frozen=True)
class RateLimit:
    """Calls per second each caller may make (`rate`, 0: no limit) and the burst allowed.

    The defaults are generous: a person or a bot playing at any human or engine pace, even many
    tables from one address, never meets them; a client hammering the service does.
    """

    rate: float = 1000.0
    burst: float = 2000.0
    max_clients: int = 100_000  # buckets kept; the least recently seen are forgotten
    max_streams: int = 500  # event streams one caller may hold open at once (0: no cap)

    @property
    def enabled(self) -> bool:
        """Whether calls are limited at all."""
        return self.rate > 0


class RateLimiter:
    """Token buckets by caller key; the least recently used are dropped beyond `max_clients`."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        if limit.enabled and limit.burst < 1:
            raise ValueError(f"a burst of {limit.burst} admits no call: use at least 1")
        self.limit = limit
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key: (tokens, at)

    def charge(self, key: str, tokens: float) -> None:
        """Take `tokens` from `key`'s bucket after a call, refusing nothing: it may go into
        debt (at most a burst's worth), which its next calls wait for."""
        if not self.limit.enabled or tokens <= 0:
            return
        now = self._clock()
        self._keep(key, max(-self.limit.burst, self._refilled(key, now) - tokens), now)

    def _refilled(self, key: str, now: float) -> float:
        """`key`'s tokens now (a full bucket for a caller not seen), its bucket taken out."""
        tokens, at = self._buckets.pop(key, (self.limit.burst, now))
        return min(self.limit.burst, tokens + (now - at) * self.limit.rate)

    def _keep(self, key: str, tokens: float, now: float) -> None:
        """Put `key`'s bucket back, the most recently seen; the least beyond `max_clients`
        are forgotten."""
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.limit.max_clients:
            self._buckets.popitem(last=False)

    def take(self, key: str, *, commit: bool = True) -> float:
        """Take one token for `key`: 0.0 if the call may go ahead, else seconds to wait.

        With `commit=False`, only look: the bucket keeps its token.
        """
        if not self.limit.enabled:
            return 0.0
        now = self._clock()
        tokens = self._refilled(key, now)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0 if commit else 0.0
        else:
            wait = (1.0 - tokens) / self.limit.rate
        self._keep(key, tokens, now)
        return wait
