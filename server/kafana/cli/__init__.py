"""The `kafana` command line: one click group, each command in the module of its area."""

import click

from kafana.cli.demo import demo
from kafana.cli.serve import serve


@click.group()
@click.version_option(package_name="kafana")
def main() -> None:
    """Kafana: Tablić and Tač engine, service, bots and competitions."""


main.add_command(demo)
# Commands of other areas are registered below this line, one import and one line each.
main.add_command(serve)
from kafana.cli.arena import arena  # noqa: E402

main.add_command(arena)
from kafana.cli.play import play  # noqa: E402
from kafana_client.cli.replay import replay  # noqa: E402
from kafana_client.cli.watch import watch  # noqa: E402

main.add_command(play)
main.add_command(watch)
main.add_command(replay)
from kafana.cli.tournament import tournament  # noqa: E402
from kafana.cli.verify import verify  # noqa: E402

main.add_command(verify)
main.add_command(tournament)
from kafana.cli.league import league  # noqa: E402

main.add_command(league)
from kafana.cli.bot import bot  # noqa: E402

main.add_command(bot)
