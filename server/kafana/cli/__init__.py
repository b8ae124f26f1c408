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

import importlib
from collections.abc import Sequence
from typing import Any

try:
    import click

    from kafana.cli.boundary import DEBUG_ENV, guarded
except KeyboardInterrupt:  # Ctrl-C while the command starts: no traceback of the imports
    sys.stderr.write("kafana: interrupted\n")
    raise SystemExit(130) from None

COMMANDS = {
    "demo": "kafana.cli.demo",
    "serve": "kafana.cli.serve",
    "arena": "kafana.cli.arena",
    "play": "kafana.cli.play",
    "tables": "kafana_client.cli.tables",
    "watch": "kafana_client.cli.watch",
    "replay": "kafana.cli.replay",
    "table": "kafana.cli.table",
    "rules": "kafana.cli.rules",
    "verify": "kafana.cli.verify",
    "tournament": "kafana.cli.tournament",
    "league": "kafana.cli.league",
    "bot": "kafana.cli.bot",
    "account": "kafana.cli.account",
}
"""Each command and the module that defines it (a function of the command's name), imported
only when the command runs or help lists it: a command starts without every other's imports
(`kafana --version` took 0.75 s, all of it imports)."""


class Kafana(click.Group):
    """The group whose `main` runs every command inside the error boundary, and which imports
    a command's module when the command is named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(module), cmd_name)
        assert isinstance(command, click.Command), module
        return command

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
        context = click.Context(self)
        for arg in args:
            if not isinstance(command, click.Group) or arg.startswith("-"):
                continue
            if command is self:  # only what was imported: the failure may be the import's
                if arg not in COMMANDS:
                    break
                path.append(arg)
                module = sys.modules.get(COMMANDS[arg])
                if module is None:
                    break
                command = getattr(module, arg)
                continue
            sub = command.get_command(context, arg)
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
