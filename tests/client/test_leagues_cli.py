"""`kafana league create | play | board | player | match | season` against a `kafana serve`
process in required mode: an API key, no Redis; one-line errors."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from click.testing import CliRunner
from kafana.cli import main
from kit import KAFANA, RedisServer, flush, serving

from .leagues_support import make_accounts


def kafana(*args: str) -> tuple[int, str]:
    """Run the command line in this process; (exit code, output)."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_a_league_from_the_command_line(private_redis: RedisServer, tmp_path: Path) -> None:
    url = flush(private_redis)
    keys = asyncio.run(make_accounts(url, org="organiser", ana="bot", bob="bot"))
    with serving(tmp_path, "--redis", url, "--auth", "required") as (served,):
        served.wait_started()
        at = ("--server", served.target)
        code, out = kafana("league", "create", "cup", *at, "--key", keys["ana"])
        assert code == 1 and out.count("\n") == 1 and "Traceback" not in out, out
        code, out = kafana("league", "create", "cup", *at, "--key", "kfk_made_up")
        assert code == 1 and out.count("\n") == 1 and "Traceback" not in out, out
        create = ("league", "create", "cup", *at, "--target", "11", "--move-ms", "3000")
        code, out = kafana(*create, "--key", keys["org"])
        assert code == 0 and "league cup (organiser org): season 1" in out, out
        players = [
            subprocess.Popen(
                [KAFANA, "league", "play", "cup", "random", *at, "--matches", "1", "--seed", "3"],
                env={"KAFANA_KEY": keys[name], "PATH": ""},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for name in ("ana", "bob")
        ]
        outs = [p.communicate(timeout=60)[0] for p in players]
        for player, out in zip(players, outs, strict=True):
            assert player.returncode == 0, out
            assert "match 1: ana - bob" in out or "match 1: bob - ana" in out, out
            assert "match 1 settled: " in out and ", rating " in out, out
            assert "1 match settled" in out, out
        mine = ("--key", keys["ana"])
        code, out = kafana("league", "board", "cup", *at, *mine)
        assert code == 0 and "2 players" in out and "ana" in out and "bob" in out, out
        code, out = kafana("league", "player", "cup", "bob", *at, *mine)
        assert code == 0 and "bob in cup, season 1" in out and "1 game," in out, out
        record = tmp_path / "m1.txt"
        code, out = kafana("league", "match", "cup", "1", "--record", str(record), *at, *mine)
        assert code == 0 and "settled" in out and record.exists(), out
        code, out = kafana("verify", str(record))
        assert code == 0 and ": OK: " in out, out
        code, out = kafana("league", "match", "cup", "99", *at, *mine)
        assert code == 1 and "no match 99" in out and out.count("\n") == 1, out
        code, out = kafana("league", "season", "cup", *at, *mine)
        assert code == 1 and "Traceback" not in out, out  # a bot account may not
        code, out = kafana("league", "season", "cup", *at, "--key", keys["org"])
        assert code == 0 and "season 2" in out, out
    code, out = kafana("league", "run", "cup", "--redis", url)
    assert code == 2 and "is gone" in out and "the server referees" in out, out
    code, out = kafana("league", "board", "cup", "--server", served.target, *mine)
    assert code == 1 and out.count("\n") == 1 and "Traceback" not in out, out  # it stopped


def test_a_tac_league_from_the_command_line(private_redis: RedisServer, tmp_path: Path) -> None:
    url = flush(private_redis)
    keys = asyncio.run(make_accounts(url, org="organiser", ana="bot", bob="bot"))
    with serving(tmp_path, "--redis", url, "--auth", "required") as (served,):
        served.wait_started()
        at = ("--server", served.target)
        create = ("league", "create", "tac-cup", *at, "--game", "tac", "--move-ms", "10000")
        code, out = kafana(*create, "--key", keys["org"])
        assert code == 0 and "tac default preset" in out, out
        players = [
            subprocess.Popen(
                [KAFANA, "league", "play", "tac-cup", bot, *at, "--matches", "1"],
                env={"KAFANA_KEY": keys[name], "PATH": ""},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for name, bot in (("ana", "loader"), ("bob", "random"))
        ]
        outs = [p.communicate(timeout=90)[0] for p in players]
        for player, out in zip(players, outs, strict=True):
            assert player.returncode == 0, out
            assert "match 1 settled: " in out and "not rated" not in out, out
            assert "forfeit" not in out and "abandoned" not in out, out
        record = tmp_path / "m1.txt"
        mine = ("--key", keys["ana"])
        code, out = kafana("league", "match", "tac-cup", "1", "--record", str(record), *at, *mine)
        assert code == 0 and "settled" in out, out
        code, out = kafana("verify", str(record))
        assert code == 0 and ": OK: tac, " in out, out
