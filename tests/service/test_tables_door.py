"""`Tables`, the one door: what it reads from the settings and the jobs it passes calls to."""

from __future__ import annotations

from kafana.service.settings import Settings
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore


async def test_the_settings_read_through_and_the_doors_are_the_jobs_methods(
    redis_store: RedisStore,
) -> None:
    settings = Settings(
        idle_ttl_ms=1_234, finished_ttl_ms=5_678, join_deadline_ms=9_012, abandon_after=3
    )
    tables = Tables(redis_store, settings)
    assert (tables.idle_ttl_ms, tables.finished_ttl_ms) == (1_234, 5_678)
    assert (tables.join_deadline_ms, tables.abandon_after) == (9_012, 3)
    assert tables.play == tables.moves.play and tables.join == tables.seats.join
