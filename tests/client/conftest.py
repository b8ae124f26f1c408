"""Fixtures of the client tests (the helpers themselves are in `kafana_client_live`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .kafana_client_live import BlackHole, LiveServer


@pytest.fixture
def server() -> Iterator[LiveServer]:
    """A fresh server (and store) per test."""
    live = LiveServer()
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
