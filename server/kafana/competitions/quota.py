"""How many events and leagues one caller may create: a window count per caller key.

Counted in the table store's shared counters (`kafana.store.counters`: Redis for a server on
Redis, so every process charges the same budget), keyed by the caller's key (`a:<account>`;
a self-registered account counts as its address, `p:<address>`). Callers without a key
(`--auth open`, one machine's) and operators are not counted. A refusal is `QuotaExceeded`
(RESOURCE_EXHAUSTED, QUOTA_EXCEEDED, with a RetryInfo): the window ends.

With `store` a table store, the third creation within the hour is refused:

    quota = CreationQuota("events", 2, HOUR_MS, "hour", store.counters)
    ana = Caller("a:ana", "ana", "organiser", "10.0.0.7")
    await quota.admit(ana, now_ms=0)
    await quota.admit(ana, now_ms=0)
    await quota.admit(ana, now_ms=1)  # QuotaExceeded: at most 2 events per account are ...
"""

from __future__ import annotations

from kafana import metrics
from kafana.service.auth import Caller
from kafana.service.limits import HOUR_MS
from kafana.service.quotas import QuotaExceeded, _span
from kafana.store.counters import Counters

DAY_MS = 24 * HOUR_MS
EVENTS_PER_HOUR = 20
"""Hosted events one caller with a key may create per hour."""
LEAGUES_PER_DAY = 5
"""Leagues one caller with a key may create per day."""


class CreationQuota:
    """Charges each new `what` (events, leagues) to its creator: `limit` per `window_ms`."""

    def __init__(
        self,
        what: str,
        limit: int,
        window_ms: int,
        period: str,
        counters: Counters | None = None,
    ) -> None:
        self.what = what
        self.limit = limit
        self.window_ms = window_ms
        self.period = period
        self.counters: Counters | None = counters  # the server's store's, once it starts

    async def admit(self, caller: Caller, now_ms: int) -> None:
        """Count one creation by `caller`, or raise `QuotaExceeded` (nothing counted)."""
        if caller.account is None or caller.role == "operator" or not self.limit:
            return
        if self.counters is None:
            raise RuntimeError(f"the {self.what} quota has no counters: the server has not started")
        key = f"{self.what}:{caller.key}"
        wait = await self.counters.count(key, self.limit, self.window_ms, now_ms)
        if wait:
            metrics.REFUSALS.labels(f"{self.what}_created").inc()
            raise QuotaExceeded(
                f"at most {self.limit} {self.what} per account are created per {self.period}:"
                f" retry in {_span(wait)}",
                wait,
                quota=f"{self.what}_created",
                limit=self.limit,
            )
