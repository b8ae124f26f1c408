"""`--key` (env KAFANA_KEY): the API key a client command sends with every call.

One option for every command that builds a client: it is kept on click's context, not passed
as a parameter, and `cli_key()` returns it where the command connects::

    @click.command()
    @key_option
    def watch(...): ... AsyncClient.connect(server, key=cli_key())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from kafana_client.connection import check_key

F = TypeVar("F", bound=Callable[..., Any])
KEY_META = "kafana_client.key"


def _remember(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value:
        try:
            check_key(value)
        except ValueError as error:
            raise click.BadParameter(str(error), ctx, param) from None
    ctx.meta[KEY_META] = value or None


def key_option(command: F) -> F:
    """Add `--key` / KAFANA_KEY to a click command (its value: `cli_key()`)."""
    option = click.option(
        "--key",
        envvar="KAFANA_KEY",
        default=None,
        expose_value=False,
        callback=_remember,
        help="API key, sent as 'authorization: Bearer <key>' with every call. Env: KAFANA_KEY.",
    )
    return option(command)


def cli_key() -> str | None:
    """The `--key` of the running command (None: none given, or not in a command)."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(KEY_META)
