"""`kafana demo`: a local match between two random players, run through the rules engine."""

from __future__ import annotations

import random

import click
from kafana_bots.play import play
from kafana_bots.random_bot import RandomBot
from kafana_client.cli.words import plural

from kafana.cli.options import PRESET, SEED, need_four
from kafana.games import tablic


def play_random_match(rules: tablic.Rules, seed: int) -> tablic.MatchState:
    """Play a whole match with uniformly random legal moves (seeded; the players share one
    generator, so the match is the same as drawing every move from `random.Random(seed)`)."""
    rng = random.Random(seed)
    bots = [RandomBot(seat, rules, rng) for seat in range(rules.players)]
    return play(tablic.new_match(rules, seed=seed), bots)


@click.command()
@PRESET
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--partnerships", is_flag=True, help="Four players in two partnerships.")
@click.option("--seed", type=SEED, default=7, show_default=True)
def demo(preset: str, players: int, partnerships: bool, seed: int) -> None:
    """Play one match between random players and print every hand's score."""
    need_four(players, partnerships)
    rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships)
    state = play_random_match(rules, seed)
    for result in state.hand_results:
        click.echo(
            f"hand {result.hand + 1:>2}: points {result.points} cards {result.cards} "
            f"tablas {result.tablas}"
        )
    click.echo(
        f"final scores {state.scores}: side {state.winner} wins after "
        f"{plural(state.move_count, 'move')}"
    )
