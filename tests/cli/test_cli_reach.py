"""Every command that talks to a server reaches it the same way: `--server`, `--tls-ca PEM`
and `--key` (one decorator); the tournament and league commands over TLS, as `play` does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from kafana.cli import main
from kit import Served, serving
from reliability.reliability_support import make_certs

from .test_cli_contract import run


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    """Every command under `group`, with its path (`tournament watch`)."""
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def test_every_command_with_a_server_takes_tls_ca_and_key() -> None:
    talking = {
        path: {option for param in command.params for option in param.opts}
        for path, command in commands(main)
        if any("--server" in param.opts for param in command.params)
    }
    assert {"tournament watch", "tournament run", "league play", "account create"} <= set(talking)
    missing = sorted(path for path, opts in talking.items() if not {"--tls-ca", "--key"} <= opts)
    assert missing == []


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> Iterator[Served]:
    tls = ("--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"))
    with serving(tmp_path_factory.mktemp("tls"), "--memory", *tls) as (server,):
        server.wait_started()
        yield server


def test_events_and_leagues_over_tls(secure: Served, certs: Path) -> None:
    at = ("--server", secure.target, "--tls-ca", str(certs / "ca.pem"))
    made = run("tournament", "create", "tls-cup", *at)
    assert made.status == 0, made
    event = made.out.split()[1]
    entered = run("tournament", "enter", event, "ana", *at)
    assert entered.status == 0 and "--tls-ca" in entered.out, entered  # the hint reaches it too
    assert run("tournament", "status", event, *at).status == 0
    league = run("league", "create", "lg-tls", *at, "--target", "11")
    assert league.status == 0, league
    assert run("league", "info", "lg-tls", *at).status == 0
    plain = run("tournament", "status", event, "--server", secure.target)
    assert plain.status == 1 and "cannot reach" in plain.err  # without the CA: refused
