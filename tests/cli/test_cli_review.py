"""`kafana replay --review`: the engine's review of a whole match against `ismcts`, printed."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from kafana.games import tablic
from kafana_bots import registry
from kafana_bots.analysis import review
from kafana_bots.play import play

KAFANA = str(Path(sys.executable).parent / "kafana")


def _match_against_ismcts() -> tablic.MatchState:
    rules = tablic.Rules.preset("serbian", players=2, target=31)
    state = tablic.new_match(rules, seed=4)
    rng = random.Random(4)
    bots = [
        registry.create("random", seat=0, rules=rules, rng=rng),
        registry.create("ismcts", seat=1, rules=rules, rng=rng, iterations=30),
    ]
    return play(state, bots)


def test_the_review_prices_every_move_and_the_random_side_gives_up_more() -> None:
    match = _match_against_ismcts()
    assert match.is_over
    record = match.record()
    found = review(record, budget_ms=5, rng=random.Random(1))
    assert [r.number for r in found] == list(range(1, len(record.moves) + 1))
    assert all(r.cost >= 0 for r in found)
    given_up = {seat: sum(r.cost for r in found if r.seat == seat) for seat in (0, 1)}
    assert given_up[0] > given_up[1]  # random play against the search bot
    only = review(record, {1}, budget_ms=5, rng=random.Random(1))
    assert {r.seat for r in only} == {1}


def test_kafana_replay_review_prints_the_engine_choice_and_totals(tmp_path: Path) -> None:
    match = _match_against_ismcts()
    saved = tmp_path / "match.txt"
    saved.write_text("# seat 0: ana\n# seat 1: ismcts\n" + match.record().to_text())
    done = subprocess.run(
        [KAFANA, "replay", str(saved), "--review", "--budget-ms", "5"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Game review" in out and "engine" in out
    moves = len(match.record().moves)
    seat_lines = [line for line in out.splitlines() if "moves as the engine would" in line]
    assert [line.split(":")[0] for line in seat_lines] == ["ana", "ismcts"]
    counted = sum(int(line.split(" of ")[1].split()[0]) for line in seat_lines)
    assert counted == moves


def test_review_refuses_a_seat_the_match_has_not(tmp_path: Path) -> None:
    saved = tmp_path / "match.txt"
    saved.write_text(_match_against_ismcts().record().to_text())
    done = subprocess.run(
        [KAFANA, "replay", str(saved), "--review", "--seat", "5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "seat 5" in done.stderr and "Traceback" not in done.stderr
