"""The table quotas of one caller: tables created per hour and tables open at once.

Both are counted in the store's shared counters (`kafana.store.counters`), keyed by the caller,
so every server process on one Redis charges the same budget. A refusal is `QuotaExceeded`:
RESOURCE_EXHAUSTED, reason QUOTA_EXCEEDED, with a RetryInfo, since waiting (or finishing a
table) helps.
"""

from __future__ import annotations

from kafana import metrics
from kafana.errors import KafanaError
from kafana.service.limits import HOUR_MS, Limits
from kafana.store.base import FINISHED, TableStore


class QuotaExceeded(KafanaError):
    """A caller over a quota that frees up with time: retry after `retry_after_ms`."""

    reason = "QUOTA_EXCEEDED"

    def __init__(self, message: str, retry_after_ms: int, **metadata: object) -> None:
        super().__init__(message, **metadata)
        self.retry_after_ms = max(1, retry_after_ms)


def over_quota(message: str, wait: int, quota: str, limit: int, refusal: str = "") -> QuotaExceeded:
    """The refusal of a call over `quota` (at most `limit`; waiting `wait` ms helps), counted
    in the refusals metric under `refusal` (default: `quota`)."""
    metrics.REFUSALS.labels(refusal or quota).inc()
    return QuotaExceeded(message, wait, quota=quota, limit=limit)


class TableQuotas:
    """Charges each new table to its creator (a caller key, e.g. `p:ipv4:10.0.0.7`)."""

    def __init__(self, store: TableStore, limits: Limits) -> None:
        self.store = store
        self.limits = limits

    async def admit(
        self, owner: str, table_id: str, until_ms: int, now_ms: int, *, bots_only: bool = False
    ) -> None:
        """Count table `table_id` (open until `until_ms` at the latest) against `owner`'s
        quotas (`bots_only`: a table whose every seat is a built-in bot, also against
        `open_bot_tables`), or raise `QuotaExceeded` (nothing counted)."""
        limits = self.limits
        held: list[str] = []
        try:
            quotas = [("open:", "open_tables", limits.open_tables, "tables")]
            if bots_only:
                bots = "tables of built-in bots only"
                quotas.append(("botopen:", "open_bot_tables", limits.open_bot_tables, bots))
            for prefix, quota, limit, what in quotas:
                if limit:
                    key = prefix + owner
                    await self._hold(key, table_id, limit, until_ms, now_ms, quota, what)
                    held.append(key)
            if limits.tables_per_hour:
                counters = self.store.counters
                wait = await counters.count(
                    "made:" + owner, limits.tables_per_hour, HOUR_MS, now_ms
                )
                if wait:
                    raise over_quota(
                        f"at most {limits.tables_per_hour} tables per caller are created per "
                        f"hour: retry in {_span(wait)}",
                        wait,
                        "tables_per_hour",
                        limits.tables_per_hour,
                    )
        except QuotaExceeded:
            for key in held:
                await self.store.counters.release(key, table_id)
            raise

    async def _hold(
        self,
        held: str,
        table_id: str,
        limit: int,
        until_ms: int,
        now_ms: int,
        quota: str,
        what: str,
    ) -> None:
        """Hold `table_id`'s place under `held` (at most `limit` of `what` at once), first
        freeing the places of ended tables when full; else raise `QuotaExceeded`."""
        counters = self.store.counters
        wait = await counters.hold(held, table_id, limit, until_ms, now_ms)
        if wait and await self._drop_ended(held, now_ms):
            wait = await counters.hold(held, table_id, limit, until_ms, now_ms)
        if wait:
            raise over_quota(
                f"at most {limit} {what} per caller are open at once: finish or close one, "
                f"or retry in {_span(wait)} when the oldest expires",
                wait,
                quota,
                limit,
            )

    async def _drop_ended(self, held: str, now_ms: int) -> bool:
        """Free the places of tables that finished or expired; whether any was freed."""
        freed = False
        for table_id in await self.store.counters.holders(held, now_ms):
            if await self.store.status(table_id) in (None, FINISHED):
                await self.store.counters.release(held, table_id)
                freed = True
        return freed


def _span(millis: int) -> str:
    """A wait in words.

    >>> _span(1500), _span(125_000), _span(7_200_000)
    ('2 s', '3 min', '2 h')
    """
    seconds = -(-millis // 1000)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{-(-seconds // 60)} min"
    return f"{-(-seconds // 3600)} h"
