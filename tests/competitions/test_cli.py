"""`kafana tournament run` in-process, its exports, and `kafana verify` over the export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner
from kafana.cli import main


def test_tournament_run_exports_and_verify(tmp_path: Path) -> None:
    out = tmp_path / "event"
    args = ["tournament", "run", "greedy", "random", "heuristic", "random"]
    args += ["--kind", "swiss", "--target", "31", "--chosen-seed", "4", "--out", str(out)]
    outcome = CliRunner().invoke(main, args)
    assert outcome.exit_code == 0, outcome.output
    assert "warning: organiser-chosen seed 4: every deal is predictable" in outcome.stderr
    assert "Standings" in outcome.output and "random-2" in outcome.output
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 4  # 2 Swiss rounds of 2 games
    games = [json.loads(line) for line in lines]
    assert all(g["ending"] == "score" and g["record"] for g in games)
    assert all("\nmeta deal organiser-chosen\n" in g["record"] for g in games)
    rows = list(csv.DictReader((out / "standings.csv").open()))
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    assert sum(float(r["points"]) for r in rows) == 4
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    assert "polyline" in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    checked = CliRunner().invoke(main, ["verify", str(out / "records.jsonl")])
    assert checked.exit_code == 0 and checked.output.count(": OK: ") == 4
    # tamper with one game's revealed secret inside the export: verify says which line
    secret = games[2]["record"].split("\nrevealed ")[1][:64]
    other = ("1" if secret[0] != "1" else "2") + secret[1:]
    games[2]["record"] = games[2]["record"].replace(secret, other)
    (out / "bad.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    checked = CliRunner().invoke(main, ["verify", str(out / "bad.jsonl")])
    assert checked.exit_code == 1 and checked.output.count("REJECTED") == 1
    rejected = next(ln for ln in checked.output.splitlines() if "REJECTED" in ln)
    assert "line 3" in rejected and "commitment" in rejected


def test_plain_seed_is_refused_and_fresh_secrets_are_unmarked(tmp_path: Path) -> None:
    args = ["tournament", "run", "greedy", "random", "--target", "11"]
    refused = CliRunner().invoke(main, [*args, "--seed", "4"])
    assert refused.exit_code == 2 and "--chosen-seed" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Standings" not in refused.output
    fresh = CliRunner().invoke(main, [*args, "--out", str(tmp_path)])
    assert fresh.exit_code == 0 and "warning" not in fresh.stderr, fresh.output
    (game,) = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert "organiser-chosen" not in game["record"] and "\nrevealed " in game["record"]


def test_ratings_of_an_earlier_event_pair_round_one(tmp_path: Path) -> None:
    names = ["ana=heuristic", "bob=random", "cid=greedy", "dan=random"]
    first = ["tournament", "run", *names, "--kind", "round_robin", "--target", "21"]
    assert CliRunner().invoke(main, [*first, "--out", str(tmp_path / "one")]).exit_code == 0
    ratings = tmp_path / "one" / "ratings.json"
    book = json.loads(ratings.read_text())["ratings"]["tablic/serbian-2"]
    order = [spec.split("=")[0] for spec in names]
    ranked = sorted(order, key=lambda n: (-(book[n]["mu"] - 3 * book[n]["sigma"]), order.index(n)))
    args = ["tournament", "run", *names, "--rounds", "1", "--target", "11", "--ratings"]
    second = CliRunner().invoke(main, [*args, str(ratings), "--out", str(tmp_path / "two")])
    assert second.exit_code == 0, second.output
    games = [json.loads(line) for line in (tmp_path / "two" / "records.jsonl").open()]
    assert [g["seats"] for g in games] == [[ranked[0], ranked[2]], [ranked[1], ranked[3]]]
    after = json.loads((tmp_path / "two" / "ratings.json").read_text())
    assert after["games"]["tablic/serbian-2"] == 6 + 2  # the ratings went on from the first
    bad = CliRunner().invoke(main, [*args, str(tmp_path / "two" / "records.jsonl")])
    assert bad.exit_code == 2 and "not a ratings.json" in bad.output
