"""Bots by game and name: `create("greedy", seat=0, rules=rules, rng=random.Random(1))`.

Each game has its own names; the game follows from the rules passed (`tablic.Rules` or
`tac.Rules`), or is named with `game=` where no rules are at hand (`names("tac")`).

>>> import random
>>> from kafana.games import tac
>>> names("tac")
['random', 'loader', 'search']
>>> create("loader", seat=1, rules=tac.Rules(players=3), rng=random.Random(1))
<LoaderTacBot 'loader' seat=1>
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, overload

from kafana.errors import InvalidInputError
from kafana.games import tablic, tac

from kafana_bots.base import Bot
from kafana_bots.tac_bots import TacBot

Factory = Callable[..., Any]
GAMES = ("tablic", "tac")
"""The games bots are registered for."""


@dataclass(frozen=True)
class Entry:
    """A registered bot: its factory, one line of help, and the options it accepts."""

    factory: Factory
    summary: str
    options: frozenset[str] = field(default_factory=frozenset)
    arena_only: bool = False
    """Sees what a seat may not (the oracle): lent to the arena, refused everywhere else."""


_REGISTRY: dict[str, dict[str, Entry]] = {game: {} for game in GAMES}


def _game(game: str) -> dict[str, Entry]:
    try:
        return _REGISTRY[game]
    except KeyError:
        raise InvalidInputError(
            f"no bots for game {game!r}: choose one of {', '.join(GAMES)}"
        ) from None


def option_names(options: Iterable[str]) -> frozenset[str]:
    """The names in `options` (any collection of keyword argument names: a set, a list, a
    dict's keys); InvalidInputError naming the parameter for a lone string or a non-name.

    >>> sorted(option_names({"depth": 2, "width": 3}))
    ['depth', 'width']
    >>> option_names("depth")
    Traceback (most recent call last):
    ...
    kafana.errors.InvalidInputError: options is a collection of option names, not one string: ['depth']
    """  # noqa: E501
    if isinstance(options, str | bytes):
        raise InvalidInputError(
            f"options is a collection of option names, not one string: [{options!r}]"
        )
    if not isinstance(options, Iterable):
        raise InvalidInputError(
            f"options is a collection of option names, not {type(options).__name__}"
        )
    names = list(options)
    for option in names:
        if not (isinstance(option, str) and option.isidentifier()):
            raise InvalidInputError(f"options holds {option!r}, not a name of a keyword argument")
    return frozenset(names)


def register(
    name: str,
    factory: Factory,
    summary: str,
    options: Iterable[str] = frozenset(),
    *,
    game: str = "tablic",
    arena_only: bool = False,
) -> None:
    """Add a bot under `name` for `game`; called as factory(seat, rules, rng, **options).
    `options`: the names of the keyword arguments it takes (any collection of names).
    An `arena_only` bot is created only for the arena (`create(..., arena=True)`)."""
    bots = _game(game)
    accepted = option_names(options)
    if name in bots:
        raise InvalidInputError(f"a {game} bot named {name!r} is already registered")
    bots[name] = Entry(factory, summary, accepted, arena_only)


def names(game: str = "tablic", *, arena: bool = False) -> list[str]:
    """Registered bot names of `game`, weakest built-in first (with `arena`, the arena-only
    ones too)."""
    return [name for name, found in _game(game).items() if arena or not found.arena_only]


def entry(name: str, game: str = "tablic", *, arena: bool = False) -> Entry:
    """The registry entry of `name` for `game`; an arena-only bot only with `arena`."""
    bots = _game(game)
    try:
        found = bots[name]
    except KeyError:
        known = ", ".join(names(game, arena=arena))
        raise InvalidInputError(f"unknown bot {name!r} for {game}: choose one of {known}") from None
    if found.arena_only and not arena:
        raise InvalidInputError(
            f"bot {name!r} sees every hidden card: it plays only in the arena, never at a "
            "table, in an event or as a remote bot"
        )
    return found


def game_of(rules: tablic.Rules | tac.Rules) -> str:
    """The game a Rules object is for."""
    if isinstance(rules, tac.Rules):
        return "tac"
    if isinstance(rules, tablic.Rules):
        return "tablic"
    raise InvalidInputError(f"not the rules of a known game: {rules!r}")


@overload
def create(
    name: str,
    *,
    seat: int,
    rules: tablic.Rules,
    rng: random.Random,
    arena: bool = False,
    **options: Any,
) -> Bot: ...


@overload
def create(
    name: str,
    *,
    seat: int,
    rules: tac.Rules,
    rng: random.Random,
    arena: bool = False,
    **options: Any,
) -> TacBot: ...


def create(
    name: str,
    *,
    seat: int,
    rules: tablic.Rules | tac.Rules,
    rng: random.Random,
    arena: bool = False,
    **options: Any,
) -> Bot | TacBot:
    """A new bot of that name for `seat`, for the game of `rules`; unknown options are an
    error, and so is an arena-only bot (the oracle) unless `arena` (only the arena says so)."""
    found = entry(name, game_of(rules), arena=arena)
    unknown = set(options) - found.options
    if unknown:
        raise InvalidInputError(f"bot {name!r} takes no option(s) {', '.join(sorted(unknown))}")
    bot: Bot | TacBot = found.factory(seat, rules, rng, **options)
    return bot


def _register_builtins() -> None:
    from kafana_bots.greedy import GreedyBot
    from kafana_bots.heuristic import HeuristicBot
    from kafana_bots.ismcts import SearchBot
    from kafana_bots.oracle import OracleBot
    from kafana_bots.random_bot import RandomBot
    from kafana_bots.tac_bots import TAC_BOTS
    from kafana_bots.tac_oracle import TacOracleBot
    from kafana_bots.tac_search import TacSearchBot

    register("random", RandomBot, "a uniformly random legal move")
    register("greedy", GreedyBot, "best immediate gain: tabla, points, cards")
    register("heuristic", HeuristicBot, "greedy with card counting, tabla safety, last capture")
    register(
        "ismcts",
        SearchBot,
        "determinized search over sampled hidden hands; exact last deal with 2 players",
        frozenset({"budget_ms", "iterations", "horizon"}),
    )
    register(
        "oracle",
        OracleBot,
        "the bound: searches the true deal (every hand, the deck's order); arena only",
        frozenset({"budget_ms", "iterations"}),
        arena_only=True,
    )
    for name, (factory, summary) in TAC_BOTS.items():
        register(name, factory, summary, game="tac")
    register(
        "search",
        TacSearchBot,
        "determinized playouts over the closed piles, loader play for every seat",
        frozenset({"budget_ms", "iterations", "horizon"}),
        game="tac",
    )
    register(
        "oracle",
        TacOracleBot,
        "the bound: search with every closed pile known; arena only",
        frozenset({"budget_ms", "iterations"}),
        game="tac",
        arena_only=True,
    )


_register_builtins()
