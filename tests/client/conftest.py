"""Fixtures of the client tests (the helpers themselves are in `kafana_client_live`; the private
Redis is the test kit's, `tests/kit.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .kafana_client_live import BlackHole, LiveServer


@pytest.fixture
def server() -> Iterator[LiveServer]:
    """A fresh server (and memory store) per test."""
    live = LiveServer()
    try:
        yield live
    finally:
        live.close()


@pytest.fixture(params=["memory", "redis"])
def any_server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """A server over each store in turn: memory, and a real Redis (emptied first)."""
    url = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")  # the test kit's private Redis, emptied
    live = LiveServer(url)
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
