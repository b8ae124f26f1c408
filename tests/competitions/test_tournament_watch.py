"""`kafana tournament watch EVENT --token T --bot SPEC`: an entrant's games played from here."""

from __future__ import annotations

import re
import subprocess

from kit import KAFANA

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


def test_two_entrants_play_a_tac_event_with_bots_from_the_command_line(hosted: Served) -> None:
    at = ("--server", hosted.target)
    # A long grace: a loaded machine may take seconds to start the other entrant's process.
    code, out = kafana("tournament", "create", "tac-ev", *at, "--format", "round_robin",
                       "--game", "tac", "--players", "2",
                       "--disconnect-grace-ms", "60000")  # fmt: skip
    made = re.search(r"event (ev-\w+)", out), re.search(r"organiser token (\S+)", out)
    assert code == 0 and made[0] and made[1], out
    ev, organiser = made[0].group(1), made[1].group(1)
    tokens = {}
    for name in ("mine", "theirs"):  # both remote bots, played by `watch --bot`
        code, out = kafana("tournament", "enter", ev, name, *at)
        entry = re.search(r"entry token (\S+)", out)
        assert code == 0 and entry, out
        tokens[name] = entry.group(1)
    # A Tablić-only bot is refused before it plays a game of the Tač event.
    code, out = kafana("tournament", "watch", ev, *at, "--token", tokens["mine"], "--bot", "greedy")
    assert code == 2 and "plays tablic, not tac" in out, out
    code, out = kafana("tournament", "start", ev, *at, "--token", organiser)
    assert code == 0, out
    theirs = subprocess.Popen(
        [KAFANA, "tournament", "watch", ev, *at, "--token", tokens["theirs"], "--bot", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        code, out = kafana("tournament", "watch", ev, *at, "--token", tokens["mine"], "--bot",
                           "loader")  # fmt: skip
        their_out, _ = theirs.communicate(timeout=120)
    finally:
        theirs.kill()
    assert code == 0 and theirs.returncode == 0, (out, their_out)
    assert "r1-g1: " in out and "the event is over" in out, out
    code, out = kafana("tournament", "status", ev, *at)
    assert code == 0 and "finished" in out, out
    game = re.search(r"  r1-g1: mine - theirs .*|  r1-g1: theirs - mine .*", out)
    assert game and " score " in game[0], out  # played to the end: not forfeited, not closed
