"""`--tls-ca PEM`: the root certificate a client command trusts (TLS); none: plaintext."""

from __future__ import annotations

from pathlib import Path

import click

tls_ca_option = click.option(
    "--tls-ca",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="Use TLS with this root certificate (PEM).",
)
"""Add `--tls-ca` to a click command (its parameter: `tls_ca: Path | None`)."""
