"""`kafana replay` opens fair records and the lines of event and league exports (it once
refused them: "a record starts with ...").

The files are real exports: events played by the local runner (`records_jsonl`, what
`kafana tournament status --out` writes) and a league season's `matches.jsonl`
(`kafana league export`'s `season_exports`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kafana.cli.league import season_exports
from kafana.competitions.envelope import FairRecord
from kafana.competitions.exports import records_jsonl
from kafana.competitions.local_runner import registry_bots, run_local
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.games import tablic, tac
from kafana.v1 import leagues_pb2 as pb
from kit import KAFANA

ENV = {"COLUMNS": "120", "PATH": "/usr/bin:/bin"}


def replay(*args: str, keys: str = "e\nq\n") -> subprocess.CompletedProcess[str]:
    """`kafana replay ARGS`, answering `keys` (by default: to the end, quit)."""
    return subprocess.run(
        [KAFANA, "replay", *args], input=keys, capture_output=True, text=True, timeout=120, env=ENV
    )


def event(game: str, bots: dict[str, str]) -> list[dict[str, Any]]:
    """A round robin of `bots` (entrant: registry bot) played in-process; its export's lines."""
    config = EventConfig("cup", Kind.ROUND_ROBIN, tuple(bots), target=11, game=game)
    played = run_local(Tournament(config), registry_bots(bots))
    return [json.loads(line) for line in records_jsonl(played).splitlines()]


@pytest.fixture(scope="module")
def tablic_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    lines = event("tablic", {"ana": "greedy", "bob": "random", "cid": "heuristic"})
    path = tmp_path_factory.mktemp("export") / "records.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, lines


def decided(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """A game of the export with a winner (its final line names them)."""
    return next(line for line in lines if line["winner"] is not None)


def final_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Final score"))


def test_a_game_of_an_event_export_replays_with_its_seats_names(
    tablic_export: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, lines = tablic_export
    line = decided(lines)
    done = replay(str(path), "--game", str(line["game"]))
    assert done.returncode == 0, done.stderr
    seats, scores, winner = line["seats"], line["scores"], line["seats"][line["winner"]]
    assert final_line(done.stdout) == (f"Final score {scores[0]} – {scores[1]}: {winner} wins.")
    assert all(f"{name}:" in done.stdout for name in seats)


def test_an_export_of_several_games_asks_which(
    tablic_export: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, _ = tablic_export
    done = replay(str(path))
    assert done.returncode == 1 and not done.stdout
    (said,) = done.stderr.splitlines()
    assert "3 games with a record: choose one with --game (r1-g1, r2-g1, r3-g1)" in said, said
    missing = replay(str(path), "--game", "r9-g9")
    assert missing.returncode == 1 and "no game 'r9-g9' in the export" in missing.stderr


def test_a_fair_record_replays_with_its_meta_seats(
    tablic_export: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    _, lines = tablic_export
    fair = decided(lines)["record"]
    saved = tmp_path / "game.txt"
    saved.write_text(fair)
    done = replay(str(saved))
    assert done.returncode == 0, done.stderr
    record = tablic.MatchRecord.from_text(FairRecord.from_text(fair).record)
    final = record.replay()
    seats = FairRecord.from_text(fair).get("seats").split()
    assert final.winner is not None
    assert final_line(done.stdout).startswith(
        f"Final score {final.scores[0]} – {final.scores[1]}: {seats[final.winner]}"
    )
    wrong = replay(str(saved), "--game", "r1-g1")
    assert wrong.returncode == 1 and "--game picks a line of an export" in wrong.stderr


def test_a_tac_game_of_an_event_export_replays(tmp_path: Path) -> None:
    line = event("tac", {"ana": "loader", "bob": "random"})[0]
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(line) + "\n")
    done = replay(str(path))
    assert done.returncode == 0, done.stderr
    moves = len(tac.GameRecord.from_text(FairRecord.from_text(line["record"]).record).moves)
    assert f"move {moves}/{moves}" in done.stdout
    assert "ana" in done.stdout and "bob" in done.stdout


def test_a_match_of_a_league_export_replays(
    tablic_export: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    _, lines = tablic_export
    matches = [
        pb.MatchInfo(
            league="spring", match=n, players=list(line["seats"]), record=str(line["record"])
        )
        for n, line in enumerate(lines, start=1)
    ]
    path = tmp_path / "matches.jsonl"
    path.write_text(season_exports([], matches)["matches.jsonl"])
    line = decided(lines)
    done = replay(str(path), "--game", str(lines.index(line) + 1))
    assert done.returncode == 0, done.stderr
    winner = line["seats"][line["winner"]]
    assert final_line(done.stdout).endswith(f"{winner} wins.")
