"""The command line's contract for hosted tournaments and leagues: every bad input is one line
on stderr, no traceback, exit status 2 (usage) or 1 (refused, unreachable), nothing changed on
the server; the hints they print work when pasted; `watch` on Ctrl-C exits 130. A real
`kafana serve` on loopback (the contract test's)."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import click
from click.testing import CliRunner
from kafana.cli.tournament_hosted import SERVER, pasteable
from kafana.store.redis_server import free_port
from kafana_client import AsyncClient
from kafana_client.blocking import Client
from kafana_client.convert import table_config
from kafana_client.errors import NotFoundRpcError
from kafana_client.leagues import Leagues
from kafana_client.tournaments import Tournaments
from kit import KAFANA, Served, default_sigint, signal_other_thread

from .test_cli_contract import _many, one_line, run, server

__all__ = ["server"]  # the contract test's server, shared by this module


async def _events(target: str) -> tuple[list[Any], bool]:
    """The server's events, and whether league `lg-refused` exists."""
    async with AsyncClient.connect(target) as client:
        events = await Tournaments(client).list()
        try:
            await Leagues(client).get("lg-refused")
        except NotFoundRpcError:
            return events, False
        return events, True


def test_hosted_tournament_commands_refuse_bad_input(server: Served) -> None:
    at = ("--server", server.target)
    before, _ = asyncio.run(_events(server.target))
    create = ("tournament", "create", "refused", *at)
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, (*create, "--rounds", "-1")),
        (2, (*create, "--move-ms", "-5")),
        (2, (*create, "--boards", "-1")),
        (2, (*create, "--parallel", "-1")),
        (2, (*create, "--rounds", str(2**32))),
        (2, (*create, "--chosen-seed", "-1")),
        (2, (*create, "--seed", "5")),
        (2, (*create, "--format", "knockout")),
        (2, (*create, "--on-timeout", "shrug")),
        (1, ("tournament", "enter", "nope", "ana", *at)),
        (1, ("tournament", "start", "nope", "--token", "t", *at)),
        (1, ("tournament", "status", "nope", *at)),
        (2, ("tournament", "watch", "nope", "--play", *at)),
        (2, ("tournament", "watch", "nope", "--token", "t", "--bot", "nobot", *at)),
        (2, ("tournament", "pause", "nope", *at)),
        (1, ("tournament", "pause", "nope", "--token", "t", *at)),
        (1, ("tournament", "adjudicate", "nope", "g1", "0", "--token", "t", *at)),
    ]
    lines = _many(cases)
    assert "'--rounds': -1 is not in the range" in lines[0]
    assert "'--move-ms': -5 is not in the range" in lines[1]
    assert "see `kafana tournament create --help`" in lines[0]
    assert "--seed is refused" in lines[6]
    for line in lines[9:12]:
        assert f"the server at {server.target} refused: no event 'nope'" in line
    assert "need your entry --token" in lines[12]
    assert "unknown bot 'nobot'" in lines[13]
    assert "--server needs the organiser --token" in lines[14]
    after, _ = asyncio.run(_events(server.target))
    assert len(after) == len(before)  # no event made where the command refused


def test_a_wrong_organiser_token_starts_nothing(server: Served) -> None:
    at = ("--server", server.target)
    made = run("tournament", "create", "cup", *at, "--format", "round_robin")
    event = made.out.split()[1]
    for name in ("ana", "bo"):
        assert run("tournament", "enter", event, name, "--bot", "random", *at).status == 0
    line = one_line(run("tournament", "start", event, "--token", "wrong", *at), 1)
    assert "organiser token" in line
    status = run("tournament", "status", event, *at)
    assert status.status == 0 and ", open, " in status.out, status


def test_league_commands_refuse_bad_input(server: Served) -> None:
    at = ("--server", server.target)
    made = run("league", "create", "lg-open", *at, "--target", "11")
    assert made.status == 0, made
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("league", "create", "lg-refused", *at, "--target", "-5")),
        (2, ("league", "create", "lg-refused", *at, "--move-ms", "-1")),
        (2, ("league", "create", "lg-refused", *at, "--game", "chess")),
        (1, ("league", "info", "nope", *at)),
        (1, ("league", "board", "nope", *at)),
        (2, ("league", "board", "lg-open", *at, "--page", "0")),
        (2, ("league", "board", "lg-open", *at, "--size", "0")),
        (2, ("league", "board", "lg-open", *at, "--season", "-1")),
        (1, ("league", "player", "nope", "ana", *at)),
        (2, ("league", "match", "lg-open", "0", *at)),
        (1, ("league", "match", "lg-open", "1", *at)),
        (1, ("league", "season", "nope", *at)),
        (2, ("league", "play", "lg-open", "greedy", *at, "--matches", "-1")),
        (2, ("league", "play", "lg-open", "nobot", *at)),
        (2, ("league", "play", "lg-open", "greedy", *at, "-o", "foo=1")),
        (1, ("league", "play", "lg-open", "greedy", *at)),  # no key: no account to play for
        (1, ("league", "create", "lg-refused", *at, "--key", "kfk_made_up")),
        (2, ("league", "run", "lg-open")),
    ]
    lines = _many(cases)
    assert "'--target': -5 is not in the range" in lines[0]
    assert f"the server at {server.target} refused: no league 'nope'" in lines[3]
    assert "'--page': 0 is not in the range" in lines[5]
    assert "no match 1 in league 'lg-open'" in lines[10]
    assert "unknown bot 'nobot'" in lines[13]
    assert "greedy takes no option foo" in lines[14]
    assert f"the server at {server.target} refused the credentials" in lines[15]
    assert "is gone" in lines[17]
    _, exists = asyncio.run(_events(server.target))
    assert not exists  # no league made where the command refused
    info = run("league", "info", "lg-open", *at)
    assert "0 waiting, 0 matches made" in info.out, info  # nobody joined the queue


def test_hosted_commands_name_an_unreachable_server_within_5_seconds() -> None:
    dead = f"127.0.0.1:{free_port()}"
    cases: list[tuple[str, ...]] = [
        ("tournament", "create", "x", "--server", dead),
        ("tournament", "status", "ev", "--server", dead),
        ("tournament", "pause", "ev", "--server", dead, "--token", "t"),
        ("league", "info", "lg", "--server", dead),
        ("league", "play", "lg", "greedy", "--server", dead),
    ]
    baseline = ("league", "board", "lg", "--page", "0")  # the same start-up, no connection
    with ThreadPoolExecutor(len(cases) + 1) as pool:
        done = list(pool.map(lambda args: run(*args), [*cases, baseline]))
    start_up = done[-1].seconds
    for ran in done[:-1]:
        line = one_line(ran, 1)
        assert f"cannot reach a Kafana server at {dead}" in line, ran
        assert ran.seconds < start_up + 5 + 1.5, ran  # the wait is at most 5 s


def test_the_hints_work_when_pasted(server: Served) -> None:
    at = ("--server", server.target)
    created = run("tournament", "create", "hinted", *at)
    event = created.out.split()[1]
    start = created.out.splitlines()[-1].removeprefix("once entries are in: ")
    assert shlex.split(start)[-2:] == list(at), created
    assert run(*shlex.split(start)[1:], "--help").status == 0, start
    entered = run("tournament", "enter", event, "ana", *at)
    hint = next(line for line in entered.out.splitlines() if line.startswith("play: "))
    words = shlex.split(hint.removeprefix("play: "))
    assert words[:3] == ["kafana", "tournament", "watch"] and words[-2:] == list(at), hint
    pasted = run(*words[1:], "--help")  # every option of the hint is one the command takes
    assert pasted.status == 0, pasted
    alone = run("league", "create", "lg-one", *at)
    assert "2 players" in alone.out and "1 matches" not in alone.out, alone


async def _person_and_bot(target: str) -> tuple[str, str]:
    """A started round robin: ana (a person, 2 min to show up) and a random bot; the event id
    and ana's entry token."""
    async with AsyncClient.connect(target) as client:
        events = Tournaments(client)
        made = await events.create(
            "hint-cup", "round_robin", target=11, disconnect_grace_ms=120_000
        )
        ana = await events.enter(made.event_id, "ana")
        await events.enter(made.event_id, "bo", bot="random")
        await events.start(made.event_id, made.organiser_token)
        return made.event_id, ana.token


def test_the_seat_hint_of_watch_plays_the_game_when_pasted(server: Served) -> None:
    at = ("--server", server.target)
    event, token = asyncio.run(_person_and_bot(server.target))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    watching = subprocess.Popen(
        [KAFANA, "tournament", "watch", event, "--token", token, *at],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**environment, "GRPC_VERBOSITY": "NONE", "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert watching.stdout is not None
        line = next(line for line in watching.stdout if line.startswith("r1-g1: "))
        hint = shlex.split(line.split("(a bot plays it: ")[1].rstrip(")\n"))
        assert hint[:4] == ["kafana", "bot", "run", "SPEC"], line  # no bot chosen for you
        played = run(*[("greedy" if word == "SPEC" else word) for word in hint[1:]])
        assert played.status == 0 and "match over" in played.out, played
        out, err = watching.communicate(timeout=60)
    finally:
        watching.kill()
        watching.wait()
    assert watching.returncode == 0 and "the event is over" in out, (out, err)


def _watch(server: Served) -> subprocess.Popen[str]:
    """`kafana watch` of a new table, once it follows the feed (SIGINT at its default)."""
    with Client.connect(server.target) as client:
        table = client.create_table(table_config(name="watched")).table_id
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    watching = subprocess.Popen(
        [KAFANA, "watch", table, "--server", server.target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**environment, "GRPC_VERBOSITY": "NONE", "PYTHONUNBUFFERED": "1"},
        preexec_fn=default_sigint,
    )
    assert watching.stdout is not None
    line = watching.stdout.readline()  # "Watching table ...": it is following the feed
    assert "Watching table" in line, line
    return watching


def _interrupted(watching: subprocess.Popen[str], timeout: float) -> None:
    """It ends at once with status 130 and one line, no traceback."""
    try:
        out, err = watching.communicate(timeout=timeout)
    finally:
        watching.kill()
    assert watching.returncode == 130, (out, err)
    assert "Bye" not in out and "Traceback" not in err, (out, err)
    assert err.strip().splitlines() == ["kafana watch: interrupted"], err


def test_watch_exits_130_on_ctrl_c(server: Served) -> None:
    watching = _watch(server)
    watching.send_signal(signal.SIGINT)
    _interrupted(watching, timeout=20)


def test_watch_hears_ctrl_c_on_any_thread(server: Served) -> None:
    """A Ctrl-C the kernel hands to one of gRPC's threads: heard at once, not when the event
    loop next wakes (asyncio.run's own handler waited for that: seconds, or never while the
    feed is quiet)."""
    watching = _watch(server)
    time.sleep(1.0)  # the loop has nothing left to do: it sleeps until the feed says more
    signal_other_thread(watching.pid, signal.SIGINT)
    _interrupted(watching, timeout=2.5)  # ~0.1 s when heard at once


def test_a_hint_carries_the_server_and_a_typed_key() -> None:
    @click.command()
    @SERVER
    def probe(server: str) -> None:
        click.echo(pasteable("kafana", "tournament", "watch", "ev 1"))

    typed = CliRunner().invoke(probe, ["--server", "h:1", "--key", "k;y"])  # quoted for a shell
    assert typed.output == "kafana tournament watch 'ev 1' --server h:1 --key 'k;y'\n", typed
    from_env = CliRunner().invoke(probe, [], env={"KAFANA_KEY": "k", "KAFANA_SERVER": "h:2"})
    assert from_env.output == "kafana tournament watch 'ev 1' --server h:2\n", from_env
