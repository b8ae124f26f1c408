"""Fixtures of the fault suite: a private redis-server with the project's settings per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kafana.games import tablic
from kit import require_redis

from .reliability_support import Redis

collect_ignore = [] if tablic.BUILD == "pure" else ["test_cache_bounds_pure.py"]
"""The pure build's memory tests run in `make test`'s pure pass (KAFANA_PURE=1)."""


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    """Our own redis-server (never the shared one on 6379), started with deploy/redis.conf."""
    require_redis()
    server = Redis(tmp_path / "redis")
    try:
        yield server
    finally:
        server.close()
