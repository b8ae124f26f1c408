"""Fixtures: the store and the service over it, on the test kit's private redis-server (the
only store there is: `tests/kit.py`'s `redis_store` and `service`)."""

from __future__ import annotations

import pytest
from kafana.store.base import TableStore
from kafana.store.redis_store import RedisStore
from kit import Service


@pytest.fixture
def store(redis_store: RedisStore) -> TableStore:
    """The table store the store suite runs against (emptied first)."""
    return redis_store


@pytest.fixture
def any_service(service: Service) -> Service:
    """The service on the private redis-server (emptied first)."""
    return service
