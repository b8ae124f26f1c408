"""A bot named on the command line: a registry name, `module:Class` or `path/to/file.py:Class`.

Modules are looked up in the current folder first (no PYTHONPATH needed), a file path is
loaded as it is. The class is a `kafana_bots.Bot` (Tablić) or `TacBot` (Tač) subclass, built
as `Class(seat, rules, rng, **options)`. Options (`-o key=value`) are checked against the
factory before anything happens on a server: an unknown key or a value of the wrong type is a
usage error.

>>> parse_options(("budget_ms=50", "name=x"))
{'budget_ms': 50, 'name': 'x'}
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from kafana_bots import Bot, registry
from kafana_bots.tac_bots import TacBot
from kafana_client.cli.numbers import bot_option

Factory = Callable[..., Bot | TacBot]


@dataclass(frozen=True)
class BotSpec:
    """What a spec names: its factory per game it plays, and the options each accepts."""

    spec: str
    factories: dict[str, Factory]
    options: dict[str, frozenset[str] | None]
    """Accepted option names per game (None: any keyword the class takes)."""

    @property
    def game(self) -> str:
        """The first game the bot plays (a class plays exactly one)."""
        return next(iter(self.factories))

    def factory(self, game: str) -> Factory:
        """The factory for `game`, or a usage error naming the games it plays."""
        if game not in self.factories:
            plays = " or ".join(self.factories)
            raise click.BadParameter(
                f"{self.spec!r} plays {plays}, not {game}: name a {game} bot "
                f"({', '.join(registry.names(game))}) or a {game} class",
                param_hint="SPEC",
            )
        return self.factories[game]

    def check_options(self, game: str, options: dict[str, Any]) -> None:
        """Refuse an option the bot does not take, or a value of the wrong type."""
        factory = self.factory(game)
        accepted = self.options[game]
        params = keywords(factory)
        names = set(params) if accepted is None else accepted
        unknown = sorted(set(options) - names)
        if unknown:
            takes = ", ".join(sorted(names)) or "none"
            raise click.BadParameter(
                f"{self.spec} takes no option {', '.join(unknown)} (it takes: {takes})",
                param_hint="--option",
            )
        for key, value in options.items():
            wanted = params.get(key)
            if wanted is not None and not _fits(value, wanted):
                raise click.BadParameter(
                    f"{key}={value!r} is not a {_type_name(wanted)}", param_hint="--option"
                )


def parse_options(items: tuple[str, ...]) -> dict[str, Any]:
    """`key=value` items as a dict (numbers as int or float, the rest as text); a number
    that is negative or not finite (`1e309`, `nan`) is refused."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected key=value, not {item!r}", param_hint="--option")
        value: Any = text
        for kind in (int, float):
            try:
                value = bot_option(key, text, kind(text))
                break
            except ValueError:
                continue
        options[key.replace("-", "_")] = value
    return options


def load(spec: str) -> BotSpec:
    """The bot SPEC names: a registry name (of either game), or a class in a module or file."""
    if ":" not in spec:
        found = {
            game: registry.entry(spec, game)
            for game in registry.GAMES
            if spec in registry.names(game)
        }
        if not found:
            known = "; ".join(f"{g}: {', '.join(registry.names(g))}" for g in registry.GAMES)
            raise click.BadParameter(
                f"unknown bot {spec!r} ({known}), or give module:Class or ./file.py:Class",
                param_hint="SPEC",
            )
        return BotSpec(
            spec,
            {game: entry.factory for game, entry in found.items()},
            {game: entry.options for game, entry in found.items()},
        )
    where, _, attr = spec.rpartition(":")
    if not where or not attr.isidentifier():
        raise click.BadParameter(
            f"{spec!r} is no bot: a SPEC is a bot's name, module:Class or ./file.py:Class",
            param_hint="SPEC",
        )
    found_class = getattr(_module(where, spec), attr, None)
    if found_class is None:
        raise click.BadParameter(f"no class {attr!r} in {where}", param_hint="SPEC")
    game = _game_of(found_class)
    if game is None:
        raise click.BadParameter(
            f"{attr!r} in {where} is not a kafana_bots.Bot or TacBot subclass", param_hint="SPEC"
        )
    assert isinstance(found_class, type)
    missing = sorted(getattr(found_class, "__abstractmethods__", ()))
    if missing:  # a method misspelt: it failed later, "unexpected TypeError"
        raise click.BadParameter(
            f"{attr!r} in {where} does not define {', '.join(missing)} (the bot interface's "
            "methods: docs/bots.md)",
            param_hint="SPEC",
        )
    factory: Factory = found_class
    return BotSpec(spec, {game: factory}, {game: None})


def _module(where: str, spec: str) -> Any:
    """The module of `where`: a file path (`./mybot.py`) or a dotted name (cwd first)."""
    if where.endswith(".py") or os.sep in where or where.startswith("."):
        path = Path(where)
        if not path.is_file():
            raise click.BadParameter(f"no file {where} (in {Path.cwd()})", param_hint="SPEC")
        name = f"kafana_bot_{path.stem}"
        loader = importlib.util.spec_from_file_location(name, path)
        if loader is None or loader.loader is None:
            raise click.BadParameter(f"{where} is not a Python file (*.py)", param_hint="SPEC")
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module  # for pickling and dataclasses
        _run_module(lambda: loader.loader.exec_module(module), spec)  # type: ignore[union-attr]
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name != where.split(".")[0] and exc.name != where:
            raise click.ClickException(f"cannot load {spec}: {exc}") from None
        raise click.BadParameter(
            f"no module {where!r} in {Path.cwd()} or the installed packages", param_hint="SPEC"
        ) from None
    except (Exception, SystemExit) as exc:
        raise click.ClickException(f"cannot load {spec}: {type(exc).__name__}: {exc}") from None


def _run_module(run: Callable[[], None], spec: str) -> None:
    try:
        run()
    except (Exception, SystemExit) as exc:  # a module that exits while loading: no bot either
        raise click.ClickException(f"cannot load {spec}: {type(exc).__name__}: {exc}") from None


def _game_of(found: object) -> str | None:
    if not isinstance(found, type):
        return None
    if issubclass(found, TacBot):
        return "tac"
    if issubclass(found, Bot):
        return "tablic"
    return None


def keywords(factory: Factory) -> dict[str, Any]:
    """The keyword parameters after (seat, rules, rng), with their annotations (or None)."""
    try:
        signature = inspect.signature(factory)
        hints = typing.get_type_hints(_init_of(factory))
    except (TypeError, ValueError, NameError):
        return {}
    params = list(signature.parameters.values())[3:]
    return {
        p.name: hints.get(p.name)
        for p in params
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _fits(value: Any, wanted: Any) -> bool:
    """Whether an option value fits an annotation (int, float, str, X | None); others pass."""
    kinds = typing.get_args(wanted) if typing.get_args(wanted) else (wanted,)
    kinds = tuple(k for k in kinds if k is not type(None))
    if not all(isinstance(k, type) for k in kinds) or not kinds:
        return True
    if float in kinds and isinstance(value, int):
        return True
    return isinstance(value, kinds)


def _type_name(wanted: Any) -> str:
    kinds = typing.get_args(wanted) or (wanted,)
    names = [getattr(k, "__name__", str(k)) for k in kinds if k is not type(None)]
    return " or ".join(names) or "value"


def _init_of(factory: Factory) -> Any:
    """What carries a factory's annotations: a class's `__init__`, or the function itself."""
    if isinstance(factory, type):
        return factory.__init__  # type: ignore[misc]
    return factory
