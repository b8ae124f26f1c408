"""`kafana tournament create | enter | start | watch | status` (the league's commands:
`tests/client/test_leagues_cli.py`)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner
from kafana.cli import main

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
    code, out = kafana("tournament", "create", "guessable", *at, "--seed", "2")
    assert code == 2 and "--seed is refused" in out and "--chosen-seed" in out
    ev, org = create_event(hosted.target, "cli-ev", target=21, seed=2)
    code, out = kafana("tournament", "enter", ev, "nemo", "--bot", "deep-blue", *at)
    assert code == 2 and "unknown bot 'deep-blue'" in out  # INVALID_ARGUMENT: bad input
    for name, bot in (("ana", "greedy"), ("bob", "random"), ("cid", "heuristic")):
        code, out = kafana("tournament", "enter", ev, name, "--bot", bot, *at)
        assert code == 0 and "the server plays" in out, out
    early = tmp_path / "early" / "exports"  # not finished: nothing to write, no folder made
    code, out = kafana("tournament", "status", ev, *at, "--out", str(early))
    assert code == 0 and "once the event is finished" in out, out
    assert not early.parent.exists()
    code, out = kafana("tournament", "start", ev, *at, "--token", "wrong")
    assert code == 1 and "wrong or missing organiser token" in out
    code, out = kafana("tournament", "start", ev, *at, "--token", org)
    assert code == 0 and "started" in out, out
    code, out = kafana("tournament", "watch", ev, *at)  # a spectator, until the end
    assert code == 0 and "Standings" in out and out.count(" (score)") == 3, out
    code, out = kafana("tournament", "status", ev, *at, "--out", str(tmp_path / "hosted"))
    assert code == 0 and "finished" in out, out
    assert len(re.findall(r"commitment [0-9a-f]{64}\b", out)) == 3  # in full
    assert "deals: organiser-chosen seed" in out
    code, out = kafana("verify", str(tmp_path / "hosted" / "records.jsonl"))
    assert code == 0 and out.count(": OK: ") == 3, out
    code, out = kafana("tournament", "run", "a=greedy", "b=random", "--kind", "round_robin",
                       "--target", "11", "--out", str(tmp_path / "local"))  # fmt: skip
    assert code == 0, out
    mine, local = (sorted((tmp_path / d).iterdir()) for d in ("hosted", "local"))
    assert [f.name for f in mine] == [f.name for f in local]  # the same exports
    assert [f.read_text().splitlines()[0] for f in mine if f.suffix == ".csv"] == [
        f.read_text().splitlines()[0] for f in local if f.suffix == ".csv"
    ]
    code, out = kafana("tournament", "pause", ev, *at, "--token", org)
    assert code == 1 and "finished, not running" in out
    code, out = kafana("tournament", "pause", ev)
    assert code == 2 and "--redis" in out  # neither a control Redis nor a server
