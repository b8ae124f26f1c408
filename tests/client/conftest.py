"""Fixtures of the client tests (the helpers themselves are in `kafana_client_live`; the private
Redis is the test kit's, `tests/kit.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .kafana_client_live import BlackHole, LiveServer


@pytest.fixture
def server(redis_url: str) -> Iterator[LiveServer]:
    """A fresh server per test on the test kit's private Redis (emptied first)."""
    live = LiveServer(redis_url)
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def any_server(redis_url: str) -> Iterator[LiveServer]:
    """A server on the test kit's private Redis (emptied first)."""
    live = LiveServer(redis_url)
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def black_hole() -> Iterator[BlackHole]:
    """A listener that never speaks: every call to it stalls."""
    hole = BlackHole()
    try:
        yield hole
    finally:
        hole.close()
