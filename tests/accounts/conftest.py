"""Fixtures of the account tests: servers in required mode, self-registration off or on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .accounts_support import Guarded, guarded_server


@pytest.fixture
async def guarded(redis_url: str) -> AsyncIterator[Guarded]:
    """Required mode, self-registration off."""
    async for server in guarded_server(redis_url):
        yield server


@pytest.fixture
async def registering(redis_url: str) -> AsyncIterator[Guarded]:
    """Required mode, self-registration on."""
    async for server in guarded_server(redis_url, self_register=True):
        yield server
