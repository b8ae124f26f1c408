"""`kafana tournament create | enter | start | watch | status` and `kafana league` commands."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from client.kafana_client_live import LiveServer
from kafana.cli import main
from redis import Redis

from .hosted_helpers import Served


def kafana(*args: str) -> tuple[int, str]:
    """Run the command line; (exit code, output)."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def create_event(server: str, name: str, target: int, seed: int) -> tuple[str, str]:
    """`kafana tournament create` a round robin; (event id, organiser token)."""
    code, out = kafana("tournament", "create", name, "--server", server, "--format", "round_robin",
                       "--target", str(target), "--chosen-seed", str(seed))  # fmt: skip
    assert code == 0, out
    event = re.search(r"event (ev-\w+)", out)
    token = re.search(r"organiser token (\S+)", out)
    assert event and token
    return event.group(1), token.group(1)


def test_a_hosted_event_from_the_command_line(hosted: Served, tmp_path: Path) -> None:
    at = ("--server", hosted.target)
    ev, org = create_event(hosted.target, "cli-ev", target=21, seed=2)
    code, out = kafana("tournament", "enter", ev, "nemo", "--bot", "deep-blue", *at)
    assert code == 1 and "unknown bot 'deep-blue'" in out
    for name, bot in (("ana", "greedy"), ("bob", "random"), ("cid", "heuristic")):
        code, out = kafana("tournament", "enter", ev, name, "--bot", bot, *at)
        assert code == 0 and "the server plays" in out, out
    code, out = kafana("tournament", "start", ev, *at, "--token", "wrong")
    assert code == 1 and "wrong or missing organiser token" in out
    code, out = kafana("tournament", "start", ev, *at, "--token", org)
    assert code == 0 and "started" in out, out
    code, out = kafana("tournament", "watch", ev, *at)  # a spectator, until the end
    assert code == 0 and "Standings" in out and out.count(" (score)") == 3, out
    code, out = kafana("tournament", "status", ev, *at, "--out", str(tmp_path))
    assert code == 0 and "finished" in out, out
    code, out = kafana("verify", str(tmp_path / "records.jsonl"))
    assert code == 0 and out.count(": OK: ") == 3, out
    code, out = kafana("tournament", "pause", ev, *at, "--token", org)
    assert code == 1 and "finished, not running" in out
    code, out = kafana("tournament", "pause", ev)
    assert code == 2 and "--redis" in out  # neither a control Redis nor a server


def test_league_run_referees_the_queue(server: LiveServer, redis_url: str) -> None:
    redis = ("--redis", redis_url)
    for player in ("ana", "bob"):
        code, out = kafana("league", "join", "cup", player, *redis)
        assert code == 0 and f"{player} is waiting in cup" in out, out
    code, out = kafana("league", "ticket", "cup", "ana", *redis)
    assert code == 1 and "no table yet" in out
    league = subprocess.Popen(
        [sys.executable, "-c", "from kafana.cli import main; main()", "league", "run", "cup",
         *redis, "--interval", "0.1", "--target", "11",
         "--for-seconds", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        sync = Redis.from_url(redis_url)
        deadline = time.monotonic() + 30
        while not sync.hget("{lg:cup}:assigned", "bob") or b"pending" in (
            sync.hget("{lg:cup}:assigned", "bob") or b""
        ):
            assert time.monotonic() < deadline, "the league never paired the queue"
            time.sleep(0.1)
        bots = []
        for player in ("ana", "bob"):
            table, seat = (sync.hget("{lg:cup}:assigned", player) or b"").decode().split()
            argv = [sys.executable, "-m", "kafana.cli", "bot", "run", "greedy", "--server",
                    server.target, "--table", table, "--seat", seat, "--name", player]  # fmt: skip
            quiet = subprocess.DEVNULL
            bots.append(subprocess.Popen(argv, stdout=quiet, stderr=quiet))
        for bot in bots:
            assert bot.wait(timeout=60) == 0
        out, _ = league.communicate(timeout=60)
    finally:
        league.kill()
    assert league.returncode == 0 and "1 matches settled" in out, out
    code, out = kafana("league", "board", "cup", *redis)
    assert code == 0 and "2 players" in out and "ana" in out and "bob" in out, out
