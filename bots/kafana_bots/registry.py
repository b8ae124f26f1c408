"""Bots by name: `create("greedy", seat=0, rules=rules, rng=random.Random(1))`."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafana.errors import InvalidInputError
from kafana.games.tablic import Rules

from kafana_bots.base import Bot

Factory = Callable[..., Bot]


@dataclass(frozen=True)
class Entry:
    """A registered bot: its factory, one line of help, and the options it accepts."""

    factory: Factory
    summary: str
    options: frozenset[str] = field(default_factory=frozenset)


_REGISTRY: dict[str, Entry] = {}


def register(
    name: str, factory: Factory, summary: str, options: frozenset[str] = frozenset()
) -> None:
    """Add a bot under `name`; the factory is called as factory(seat, rules, rng, **options)."""
    if name in _REGISTRY:
        raise InvalidInputError(f"a bot named {name!r} is already registered")
    _REGISTRY[name] = Entry(factory, summary, options)


def names() -> list[str]:
    """Registered bot names, weakest built-in first."""
    return list(_REGISTRY)


def entry(name: str) -> Entry:
    """The registry entry of `name`."""
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(_REGISTRY)
        raise InvalidInputError(f"unknown bot {name!r}: choose one of {known}") from None


def create(name: str, *, seat: int, rules: Rules, rng: random.Random, **options: Any) -> Bot:
    """A new bot of that name for `seat`; unknown options are an error."""
    found = entry(name)
    unknown = set(options) - found.options
    if unknown:
        raise InvalidInputError(f"bot {name!r} takes no option(s) {', '.join(sorted(unknown))}")
    return found.factory(seat, rules, rng, **options)


def _register_builtins() -> None:
    from kafana_bots.greedy import GreedyBot
    from kafana_bots.heuristic import HeuristicBot
    from kafana_bots.ismcts import SearchBot
    from kafana_bots.random_bot import RandomBot

    register("random", RandomBot, "a uniformly random legal move")
    register("greedy", GreedyBot, "best immediate gain: tabla, points, cards")
    register("heuristic", HeuristicBot, "greedy with card counting, tabla safety, last capture")
    register(
        "ismcts",
        SearchBot,
        "determinized search over sampled hidden hands; exact last deal with 2 players",
        frozenset({"budget_ms", "iterations", "horizon"}),
    )


_register_builtins()
