"""The `kafana` command line, the top layer: one click group, one module per command.

Every command may use any layer below (the SDK, the service, competitions); nothing below
imports this package. Every command runs inside one error boundary (`kafana.cli.boundary`):
a failure is one line on stderr, exit 2 for usage errors and 1 for failures.
"""

from __future__ import annotations

import os
import sys

# grpc's C core reads this once, when grpc is imported (below): its own log lines ("E1207 ...
# Illegal header value") would break the one line a command answers. GRPC_VERBOSITY=ERROR
# shows them again.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

from collections.abc import Sequence
from typing import Any

import click
from kafana_client.cli.tables import tables
from kafana_client.cli.watch import watch

from kafana.cli.account import account
from kafana.cli.arena import arena
from kafana.cli.bot import bot
from kafana.cli.boundary import DEBUG_ENV, guarded
from kafana.cli.demo import demo
from kafana.cli.league import league
from kafana.cli.play import play
from kafana.cli.replay import replay
from kafana.cli.rules import rules
from kafana.cli.serve import serve
from kafana.cli.table import table
from kafana.cli.tournament import tournament
from kafana.cli.verify import verify


class Kafana(click.Group):
    """The group whose `main` runs every command inside the error boundary."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; exit with its status (return it if not `standalone_mode`)."""
        given = list(sys.argv[1:] if args is None else args)

        def run(clean: list[str]) -> object:
            return super(Kafana, self).main(
                clean, prog_name, complete_var, standalone_mode=False, **extra
            )

        status = guarded(run, given, lambda clean: self.path_of(clean, prog_name or "kafana"))
        if not standalone_mode:
            return status
        sys.exit(status)

    def path_of(self, args: Sequence[str], prog: str) -> str:
        """`kafana bot run`: the command that `args` name (as far as they name one)."""
        path = [prog]
        command: click.Command = self
        for arg in args:
            if not isinstance(command, click.Group) or arg.startswith("-"):
                continue
            sub = command.commands.get(arg)
            if sub is None:
                break
            path.append(arg)
            command = sub
        return " ".join(path)


@click.group(cls=Kafana)
@click.version_option(package_name="kafana")
@click.option("--debug", is_flag=True, help=f"Print the traceback of a failure (env {DEBUG_ENV}).")
def main(debug: bool) -> None:
    """Kafana: Tablić and Tač engine, service, bots and competitions."""


CLIENT = (play, tables, watch, replay)
"""The commands that play or look at a running server's tables."""
COMMANDS = (demo, serve, arena, *CLIENT, table, rules, verify, tournament, league, bot, account)
for command in COMMANDS:
    main.add_command(command)
