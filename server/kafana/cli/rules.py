"""`kafana rules`: the rules of Tablić (a preset, switches) or Tač as this engine plays them,
written from the rules core's own values (`kafana_client.cli.explain`).

kafana rules                                   # Tablić, serbian, 2 players
kafana rules --preset tabinet --players 4 --partnerships
kafana rules --rule target=61 --rule must_capture=true
kafana rules --game tac --players 3 --rule tac_calls=true
"""

from __future__ import annotations

from typing import Any

import click
from kafana_client.cli.explain import keys, tablic_rules, tac_rules
from kafana_client.cli.rule_args import switches

from kafana.cli.options import game_option
from kafana.games import tablic, tac
from kafana.games.tablic import PRESETS


@click.command()
@game_option()
@click.option(
    "--preset", type=click.Choice(PRESETS), default=None, help="Tablić (default serbian)."
)
@click.option("--players", type=click.IntRange(2, 8), default=2, show_default=True)
@click.option("--partnerships", is_flag=True, help="Tablić: four players, 2 against 2.")
@click.option(
    "--rule", "items", multiple=True, metavar="NAME=VALUE",
    help="A rule switch over the preset, repeatable (as `kafana table create --rule`).",
)  # fmt: skip
@click.option("--keys", "with_keys", is_flag=True, help="Also the keys of the terminal game.")
def rules(
    game: str,
    preset: str | None,
    players: int,
    partnerships: bool,
    items: tuple[str, ...],
    with_keys: bool,
) -> None:
    """Print the rules as this engine plays them (a preset and switches; Tač: --game tac)."""
    given: dict[str, Any] = switches(game, items)
    if game == "tac":
        if preset or partnerships:
            flag = "--preset" if preset else "--partnerships"
            raise click.UsageError(f"{flag} is an option of --game tablic, not of tac")
        lines = tac_rules(tac.Rules(players=players, **given))
    else:
        if "card_points" in given:
            given["card_points"] = tuple(given["card_points"])
        chosen = tablic.Rules.preset(preset or "serbian", players, partnerships, **given)
        lines = tablic_rules(chosen)
    for line in lines:
        click.echo(line)
    if with_keys:
        click.echo("Keys at the table:")
        for line in keys(game):
            click.echo(f"  {line}")
