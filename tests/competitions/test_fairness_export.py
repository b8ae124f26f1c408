"""An event's records.jsonl checked as a whole: games without records, and lines that are each
fine but do not belong together (two boards' secrets, a game twice, two events)."""

from __future__ import annotations

import json

from kafana.competitions import exports
from kafana.competitions.local_runner import registry_bots, run_local
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify import VerificationError
from kafana.competitions.verify_export import Checked, verify_export

NAMES = {"ana": "greedy", "bo": "heuristic", "cy": "random", "di": "greedy"}
BOTS = registry_bots(NAMES)


def duplicate() -> list[dict[str, object]]:
    """A one-board, one-round duplicate event (the board at two tables), played in-process:
    its export's lines."""
    config = EventConfig(
        "dup", Kind.DUPLICATE, tuple(NAMES), target=11, boards=1, hands_per_board=2, rounds=1
    )
    event = run_local(Tournament(config), BOTS)
    return [json.loads(line) for line in exports.records_jsonl(event).splitlines()]


def errors(lines: list[dict[str, object]]) -> list[str]:
    """The messages of every line refused."""
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return [str(c) for c in verify_export(text) if isinstance(c, VerificationError)]


def test_a_duplicate_board_verifies_and_its_lines_must_belong_together() -> None:
    first, second = duplicate()
    assert first["commitment"] == second["commitment"] and first["board"] == 1
    assert errors([first, second]) == []
    # the second table of another run of the same event: every field fine on its own ...
    _, stranger = duplicate()
    assert errors([stranger]) == [] and stranger["commitment"] != first["commitment"]
    # ... but the board was dealt from one secret
    assert errors([first, stranger]) == ["line 2: board 1 has another commitment on line 1"]
    assert errors([first, first]) == [f"line 2: game {first['game']} is on line 1 already"]
    renamed = dict(second, event="other", record=str(second["record"]).replace(
        "meta event dup", "meta event other"))  # fmt: skip
    assert errors([first, renamed]) == ["line 2: event 'other', but line 1 is of 'dup'"]
    assert "field sides" in errors([dict(first, sides=[1, 0])])[0]


def test_games_without_a_record_must_say_so_in_every_field() -> None:
    config = EventConfig("rr", Kind.ROUND_ROBIN, ("ana", "bo", "cy", "di"), target=11)
    event = Tournament(config)
    event.next_round()
    lines = [json.loads(line) for line in exports.records_jsonl(event).splitlines()]
    assert lines[0]["ending"] == "pending" and errors(lines) == []
    assert "a pending game has scores null" in errors([dict(lines[0], scores=[1, 0])])[0]
    event.end("stopped")
    lines = [json.loads(line) for line in exports.records_jsonl(event).splitlines()]
    checked = verify_export("".join(json.dumps(line) + "\n" for line in lines))
    assert all(isinstance(c, Checked) and c.verified is None for c in checked)
    assert "a game not played has no winner" in errors([dict(lines[0], winner=0)])[0]
    assert "scores 0 for each side" in errors([dict(lines[0], scores=[99, 0])])[0]
    assert "has its fair record" in errors([dict(lines[0], ending="score")])[0]
