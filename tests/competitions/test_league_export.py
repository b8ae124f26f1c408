"""`kafana league export`: a season's board (CSV) and matches with their fair records (JSON
lines), each record checked by `kafana verify` (issue 32: leagues had no export)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import subprocess
from pathlib import Path

from client.leagues_support import make_accounts
from kit import KAFANA, RedisServer, flush, serving

from .test_hosted_cli import kafana


def test_a_league_season_exports_its_board_and_matches(
    private_redis: RedisServer, tmp_path: Path
) -> None:
    url = flush(private_redis)
    keys = asyncio.run(make_accounts(url, org="organiser", ana="bot", bob="bot"))
    with serving(tmp_path, "--redis", url, "--auth", "required") as (served,):
        served.wait_started()
        at = ("--server", served.target)
        create = ("league", "create", "cup", *at, "--target", "11", "--move-ms", "3000")
        code, out = kafana(*create, "--key", keys["org"])
        assert code == 0, out
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
        for p in players:
            assert p.wait(timeout=90) == 0, p.communicate()[0]
        out_dir = tmp_path / "cup"
        code, out = kafana("league", "export", "cup", *at, "--out", str(out_dir),
                           "--key", keys["ana"])  # fmt: skip
        assert code == 0 and "2 players, 1 match" in out, out
        board = list(csv.DictReader(io.StringIO((out_dir / "board.csv").read_text())))
        assert sorted(r["player"] for r in board) == ["ana", "bob"]
        assert [r["rank"] for r in board] == ["1", "2"]
        lines = (out_dir / "matches.jsonl").read_text().splitlines()
        assert len(lines) == 1
        match = json.loads(lines[0])
        assert (
            sorted(match["players"]) == ["ana", "bob"] and match["state"] == "MATCH_STATE_SETTLED"
        )
        record = tmp_path / "m1.fair"
        record.write_text(match["record"])
        code, out = kafana("verify", str(record))
        assert code == 0 and ": OK: " in out, out
        # the export as written (it said "unknown field(s) 'created_ms', ..." and exit 1)
        code, out = kafana("verify", str(out_dir / "matches.jsonl"))
        assert code == 0 and "matches.jsonl match 1: OK: tablic, " in out, out
        swapped = tmp_path / "swapped.jsonl"
        swapped.write_text(json.dumps({**match, "players": match["players"][::-1]}) + "\n")
        code, out = kafana("verify", str(swapped))
        assert code == 1 and "REJECTED: line 1: field players is" in out, out
        code, out = kafana("league", "export", "nope", *at, "--out", str(out_dir),
                           "--key", keys["ana"])  # fmt: skip
        assert code == 1 and out.count("\n") == 1, out
