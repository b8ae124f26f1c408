"""`--tls-ca PEM`: the root certificate a client command trusts (TLS); none: plaintext.

Kept on click's context like `--key` (`kafana_client.cli.key`), not passed as a parameter;
`cli_tls()` returns what to connect with. Commands take both through
`kafana_client.cli.reach.server_options`.
"""

from __future__ import annotations

from pathlib import Path

import click

from kafana_client.connection import Tls

TLS_META = "kafana_client.tls_ca"


def _remember(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    ctx.meta[TLS_META] = value


tls_ca_option = click.option(
    "--tls-ca",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    expose_value=False,
    callback=_remember,
    help="Use TLS with this root certificate (PEM); none: plaintext.",
)
"""Add `--tls-ca` to a click command (its value: `cli_tls_ca()`)."""


def cli_tls_ca() -> Path | None:
    """The `--tls-ca` of the running command (None: none given, or not in a command)."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(TLS_META)


def cli_tls() -> Tls | None:
    """TLS trusting the running command's `--tls-ca`; None (plaintext) without one."""
    ca = cli_tls_ca()
    return Tls(root_certificates=ca) if ca is not None else None
