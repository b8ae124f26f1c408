"""The store's doctests hold (RESP packing and parsing, key slots, URLs, errors, key names)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import kafana.store
import pytest

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(kafana.store.__path__, "kafana.store.")
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    failures, _tried = doctest.testmod(importlib.import_module(name))
    assert failures == 0


def test_the_store_modules_with_examples_are_all_found() -> None:
    assert {"kafana.store.client", "kafana.store.errors", "kafana.store.resp"} <= set(MODULES)
