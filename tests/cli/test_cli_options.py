"""A command's options become its config dataclass by name (`options_of`): `kafana arena`'s
`ArenaConfig` and `kafana play`'s `PlayOptions` carry every flag given, and what the command
worked out itself."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import click
import pytest
from click.testing import CliRunner
from kafana.cli import main
from kafana.cli.options import options_of
from kafana_bots.arena import ArenaConfig
from kafana_client.cli.play import PlayOptions

arena_command = importlib.import_module("kafana.cli.arena")  # the modules (the package
play_command = importlib.import_module("kafana.cli.play")  # names the commands)


@dataclass(frozen=True)
class Asked:
    size: int
    label: str
    kept: str = "default"


def test_options_become_the_fields_of_the_same_names() -> None:
    made: list[Asked] = []

    @click.command()
    @click.option("--size", type=int, default=1)
    @click.option("--label", default="x")
    @click.option("--verbose", is_flag=True)  # no field of that name: not passed on
    def command(size: int, label: str, verbose: bool) -> None:
        made.append(options_of(Asked, label=label.upper()))

    result = CliRunner().invoke(command, ["--size", "7", "--label", "ab", "--verbose"])
    assert result.exit_code == 0, result.output
    assert made == [Asked(size=7, label="AB", kept="default")]


def test_arena_config_carries_every_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ArenaConfig] = []

    def stop(config: ArenaConfig, **_: Any) -> list[object]:
        seen.append(config)
        raise SystemExit(0)

    monkeypatch.setattr(arena_command, "run", stop)
    args = ["--bots", "greedy,random", "--vs", "heuristic", "--hands", "6", "--no-duplicate"]
    args += ["--preset", "wild_jack", "--players", "4", "--partnerships", "--building"]
    args += ["--seed", "9", "--budget-ms", "12.5", "--iterations", "30"]
    result = CliRunner().invoke(main, ["arena", *args])
    assert result.exit_code == 0, result.output
    assert seen == [
        ArenaConfig(
            bots=("heuristic", "greedy", "random"),
            hands=6,
            duplicate=False,
            preset="wild_jack",
            players=4,
            partnerships=True,
            seed=9,
            budget_ms=12.5,
            iterations=30,
            building=True,
        )
    ]


def test_play_options_carry_every_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[PlayOptions] = []

    async def record(options: PlayOptions, console: object) -> None:
        seen.append(options)

    monkeypatch.setattr(play_command, "_run", record)
    args = ["--server", "localhost:1", "--name", "ana", "--bots", "greedy, open ,random"]
    args += ["--players", "4", "--partnerships", "--preset", "tabinet", "--target", "51"]
    args += ["--seed", "5", "--hands", "2", "--delay", "0.5", "--move-ms", "9000"]
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 0, result.output
    [options] = seen
    assert options.server == "localhost:1" and options.table_id is None and options.seat is None
    assert (options.name, options.bots) == ("ana", ("greedy", "open", "random"))
    assert (options.players, options.partnerships, options.preset) == (4, True, "tabinet")
    assert (options.target, options.seed, options.hands) == (51, 5, 2)
    assert (options.delay, options.move_ms, options.save, options.game) == (
        0.5,
        9000,
        None,
        "tablic",
    )
    assert (options.decks, options.tac_calls, options.play_on, options.building) == (
        1,
        False,
        False,
        False,
    )
    seen.clear()
    tac = ["--server", "localhost:1", "--game", "tac", "--players", "3", "--decks", "2"]
    result = CliRunner().invoke(main, ["play", *tac, "--tac-calls", "--play-on", "--name", "b"])
    assert result.exit_code == 0, result.output
    [options] = seen
    assert (options.game, options.players, options.decks) == ("tac", 3, 2)
    assert options.tac_calls and options.play_on and options.bots == ("loader",)
