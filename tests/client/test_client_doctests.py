"""The examples in the SDK's docstrings run (those that need a server are marked to skip)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "kafana_client",
    "kafana_client.aio",
    "kafana_client.blocking",
    "kafana_client.bots",
    "kafana_client.connection",
    "kafana_client.convert",
    "kafana_client.errors",
    "kafana_client.paging",
    "kafana_client.remote",
    "kafana_client.seat_loop",
    "kafana_client.tac",
    "kafana_client.tournaments",
    "kafana_client.cli.choice",
    "kafana_client.cli.explain",
    "kafana_client.cli.numbers",
    "kafana_client.cli.paths",
    "kafana_client.cli.rule_args",
    "kafana_client.cli.render",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
