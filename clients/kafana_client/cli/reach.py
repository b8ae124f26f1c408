"""How every command that talks to a server reaches it: `--tls-ca PEM` and `--key`, one
decorator (`--server` stays each command's own: its default and help differ).

Neither is a parameter of the command: both are kept on click's context and read where the
command connects::

    @click.command()
    @click.option("--server", required=True)
    @server_options
    def watch(server: str) -> None:
        ... async with reached(server) as client: ...

`reached(server)` is the one way a command connects; `reach_args()` gives the options back
for a command line printed for pasting.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import click

from kafana_client.aio import AsyncClient
from kafana_client.cli.key import KEY_META, cli_key, key_option
from kafana_client.cli.tls import cli_tls, cli_tls_ca, tls_ca_option
from kafana_client.connection import (
    CONNECT_SECONDS,
    EXAMPLE,
    GRPC_SCHEMES,
    SCHEME,
    Tls,
    host_port,
    url_refusal,
)

F = TypeVar("F", bound=Callable[..., Any])
__all__ = [
    "TARGET",
    "Target",
    "cli_key",
    "cli_tls",
    "cli_tls_ca",
    "reach_args",
    "reached",
    "server_options",
]


class Target(click.ParamType[str]):
    """`--server`: HOST:PORT, refused at the edge when it is none. A gRPC target URI
    (`unix:/run/k.sock`, `dns:///host:port`: `GRPC_SCHEMES`) passes as it is; grpc judges it.
    A URL (`http://`, `https://`, `grpc://`...) is refused saying the HOST:PORT to give: no
    scheme means anything to grpc or the SDK (TLS is `--tls-ca`). `optional`: "" means no
    server (the command's default).

    >>> TARGET.convert("[::1]:50051", None, None)
    '[::1]:50051'
    >>> TARGET.convert("localhost:99999", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: 'localhost:99999' is not HOST:PORT (e.g. localhost:50051, a port from 1 to 65535)
    >>> TARGET.convert("https://kafana.example:443/", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: 'https://kafana.example:443/' is not HOST:PORT: --server takes no scheme (https://); give --server kafana.example:443 --tls-ca PEM (TLS: the root certificate to trust)
    """  # noqa: E501

    name = "host:port"

    def __init__(self, optional: bool = False) -> None:
        self.optional = optional

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value).strip()
        if not text and self.optional:
            return text
        scheme = SCHEME.match(text)
        if scheme and scheme.group(1).lower() in GRPC_SCHEMES:
            return text
        refusal = url_refusal(text, "--server", "--tls-ca PEM")
        if refusal:
            self.fail(refusal, param, ctx)
        if not host_port(text):
            self.fail(f"{value!r} is not HOST:PORT ({EXAMPLE})", param, ctx)
        return text


TARGET = Target()


def server_options(command: F) -> F:
    """Add `--tls-ca` and `--key` (KAFANA_KEY) to a command that talks to a server."""
    return tls_ca_option(key_option(command))


def reach_args(*, key: bool = True) -> list[str]:
    """`--tls-ca PEM` if given, and with `key` the `--key KEY` if typed on the command line (a
    key from KAFANA_KEY is in the shell already): for a command line printed to be pasted
    (`key=False` for lines other people paste: each uses a key of their own)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return []
    out: list[str] = []
    ca = cli_tls_ca()
    if ca is not None:
        out += ["--tls-ca", str(ca)]
    if key and ctx.get_parameter_source("key") is click.core.ParameterSource.COMMANDLINE:
        out += ["--key", str(ctx.meta.get(KEY_META))]
    return out


@asynccontextmanager
async def reached(server: str, tls: Tls | None = None) -> AsyncIterator[AsyncClient]:
    """A client of `server` with the command's key and TLS (`tls`, else --tls-ca), connected
    within `CONNECT_SECONDS`, else DeadlineExceededError, which the error boundary names as an
    unreachable server: a port that accepts and never answers is named as soon as a closed
    one (it took the first call's 10 s deadline)."""
    async with AsyncClient.connect(server, tls=tls or cli_tls(), key=cli_key()) as client:
        await client.wait_ready(CONNECT_SECONDS)
        yield client
