"""`kafana tournament watch EVENT --token T --bot SPEC`: an entrant's games played from here."""

from __future__ import annotations

import re

from .hosted_helpers import Served
from .test_hosted_cli import create_event, kafana


def test_an_entrant_plays_its_games_with_a_bot_from_the_command_line(hosted: Served) -> None:
    at = ("--server", hosted.target)
    ev, organiser = create_event(hosted.target, "watch-ev", target=11, seed=5)
    assert kafana("tournament", "enter", ev, "house", "--bot", "greedy", *at)[0] == 0
    code, out = kafana("tournament", "enter", ev, "mine", *at)
    entry = re.search(r"entry token (\S+)", out)
    assert code == 0 and entry, out
    code, out = kafana("tournament", "start", ev, *at, "--token", organiser)
    assert code == 0, out
    code, out = kafana("tournament", "watch", ev, *at, "--token", entry.group(1), "--bot", "random")
    assert code == 0, out
    assert "r1-g1: " in out and " token " in out  # told its table and seat token
    assert "the event is over" in out and "mine" in out.split("the event is over")[1]
    code, out = kafana("tournament", "status", ev, *at)
    assert code == 0 and "finished" in out and "(score)" not in out, out
    assert re.search(r"r1-g1: \S+ - \S+  \d+ : \d+ score", out), out
