"""`--tls-ca PEM`: the root certificate a client command trusts (TLS); none: plaintext.

Kept on click's context like `--key` (`kafana_client.cli.key`), not passed as a parameter;
`cli_tls()` returns what to connect with. Commands take both through
`kafana_client.cli.reach.server_options`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kafana_client.connection import Tls

TLS_META = "kafana_client.tls_ca"
MAX_PEM_BYTES = 1 << 20
"""The largest PEM file a command reads (a chain of certificates is a few KB)."""


class Pem(click.Path):
    """A PEM file (a certificate, a chain or a key): one that exists, at most
    `MAX_PEM_BYTES`, holding a `-----BEGIN` line; refused at the edge, naming the file (grpc
    would log its own lines and the command say it cannot reach or listen)."""

    def __init__(self, path_type: type[Path] | None = None) -> None:
        super().__init__(exists=True, dir_okay=False, path_type=path_type)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        try:
            with open(path, "rb") as file:
                head = file.read(MAX_PEM_BYTES + 1)
        except OSError as error:
            self.fail(f"{value}: {error.strerror}", param, ctx)
        if len(head) > MAX_PEM_BYTES:
            self.fail(f"{value} is over {MAX_PEM_BYTES // 2**20} MiB: not a PEM file", param, ctx)
        if b"-----BEGIN " not in head:
            self.fail(f"{value} is not PEM (no -----BEGIN line)", param, ctx)
        return path


def _remember(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    ctx.meta[TLS_META] = value


tls_ca_option = click.option(
    "--tls-ca",
    type=Pem(path_type=Path),
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
