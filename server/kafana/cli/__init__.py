"""The `kafana` command line, the top layer: one click group, one module per command.

Every command may use any layer below (the SDK, the service, competitions); nothing below
imports this package.
"""

import click
from kafana_client.cli.replay import replay
from kafana_client.cli.watch import watch

from kafana.cli.account import account
from kafana.cli.arena import arena
from kafana.cli.bot import bot
from kafana.cli.demo import demo
from kafana.cli.league import league
from kafana.cli.play import play
from kafana.cli.serve import serve
from kafana.cli.tournament import tournament
from kafana.cli.verify import verify


@click.group()
@click.version_option(package_name="kafana")
def main() -> None:
    """Kafana: Tablić and Tač engine, service, bots and competitions."""


for command in (demo, serve, arena, play, watch, replay, verify, tournament, league, bot, account):
    main.add_command(command)
