"""`kafana play` in a pseudo-terminal: a whole hand against a bot, as a person sees it."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from kafana.games import tablic
from kafana.v1 import state_pb2
from kafana_client.blocking import Client
from kit import default_sigint

from .kafana_client_live import LiveServer

SEED = 7
PROMPT = r"Your move \(number, or e\.g\. KC:KD; \? help, q quit\): "
TAC_PROMPT = r"Your move \(number, or e\.g\. play X->C; \? help, q quit\): "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def kafana(*args: str) -> tuple[str, list[str]]:
    """The command line of the `kafana` entry point of this venv."""
    script = Path(sys.executable).parent / "kafana"
    if script.exists():
        return str(script), list(args)
    return sys.executable, ["-c", "from kafana.cli import main; main()", *args]


def spawn(*args: str) -> Any:
    command, argv = kafana(*args)
    env = dict(os.environ, COLUMNS="100", LINES="50", TERM="xterm-256color", GRPC_VERBOSITY="ERROR")
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        command,
        argv,
        env=env,
        encoding="utf-8",
        dimensions=(50, 100),
        timeout=20,
        preexec_fn=default_sigint,  # the terminal tests press Ctrl-C
    )


def plain(text: str) -> str:
    """Screen text without colour codes and with pexpect's CRLF line ends."""
    return ANSI.sub("", text).replace("\r\n", "\n")


def test_a_whole_hand_against_a_bot(tmp_path: Path) -> None:
    start = tablic.new_match(tablic.Rules.preset("serbian"), seed=SEED)
    not_in_hand = start.table[0].text  # a card on the table: playing it is illegal
    record = tmp_path / "match.txt"
    child = spawn(
        "play", "--seed", str(SEED), "--hands", "1", "--delay", "0", "--bots", "greedy",
        "--name", "ana", "--save", str(record),
    )  # fmt: skip
    screen: list[str] = []
    try:
        child.expect(PROMPT)
        first = child.before
        screen.append(first)
        child.sendline("zz")
        child.expect(PROMPT)
        screen.append(child.before)
        assert "Mistyped: 'zz' is neither a move number" in plain(child.before)
        child.sendline("99")
        child.expect(PROMPT)
        screen.append(child.before)
        assert "There is no move 99: choose a number from 1 to" in plain(child.before)
        child.sendline(not_in_hand)
        child.expect(PROMPT)
        screen.append(child.before)
        assert f"Illegal move: {not_in_hand} is not in your hand." in plain(child.before)
        card = max(start.hand(0)).text  # the king: 14 cannot be made from one small table card
        small = min(start.table).text
        child.sendline(f"{card.lower()}:{small.lower()}")
        child.expect(PROMPT)
        screen.append(child.before)
        assert f"Illegal move: {card} cannot capture {small}" in plain(child.before)
        turns = 0
        while True:
            child.sendline("1")
            turns += 1
            found = child.expect([PROMPT, r"Stopped after 1 hand\."])
            screen.append(child.before)
            if found == 1:
                break
        child.expect(pexpect.EOF)
        screen.append(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert turns == 24  # 2 players: 4 deals of 6 cards each

    text = plain("".join(screen))
    opening = plain(first)
    table = " ".join(c.text for c in sorted(start.table))
    hand = " ".join(c.text for c in sorted(start.hand(0)))
    symbols = str.maketrans({"C": "♣", "D": "♦", "H": "♥", "S": "♠"})
    assert "ana sat down at seat 0." in opening and "greedy sat down at seat 1." in opening
    assert f"Table:     {table.translate(symbols)}" in opening
    assert f"Your hand: {hand.translate(symbols)}" in opening
    assert re.search(r"^\s*1\) ", opening, flags=re.MULTILINE)
    assert "\x1b[1;31m" in first  # diamonds and hearts are red
    assert text.count("You played ") == 24 and text.count("greedy played ") == 24
    assert "Hand 1 scored" in text and "most cards" in text
    assert re.search(r"ana\s+│\s+\d+\s+│", text)  # the hand's score table has a row for us
    assert "Record saved to" in text

    final = tablic.MatchRecord.from_text(record.read_text()).replay()
    assert len(final.hand_results) == 1 and final.move_count == 48
    points = final.hand_results[0].points
    assert re.search(rf"ana\s+│.*│\s+{points[0]}\s+│\n", text)
    assert "★ TABLA for you! ★" in text and "★ TABLA for greedy! ★" in text  # as they happen
    assert text.count("★ TABLA for") <= sum(final.hand_results[0].tablas)


def test_quit_and_replay(tmp_path: Path) -> None:
    record = tmp_path / "m.txt"
    child = spawn(
        "play", "--seed", "3", "--hands", "1", "--delay", "0", "--bots", "random",
        "--save", str(record), "--name", "ana",
    )  # fmt: skip
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        child.sendline("1")
    child.close()
    assert record.exists()

    viewer = spawn("replay", str(record))
    viewer.expect(r"move 0/48 \(Enter: next, b: back")
    assert "▶ ana:" in plain(viewer.before) and "random:" in plain(viewer.before)  # names
    viewer.sendline("")
    viewer.expect(r"move 1/48 ")
    assert "ana played" in plain(viewer.before) and "After move 1" in plain(viewer.before)
    viewer.sendline("q")
    viewer.expect("Stopped.")
    viewer.expect(pexpect.EOF)
    viewer.close()
    assert viewer.exitstatus == 0

    person = spawn("play", "--seed", "3", "--delay", "0", "--bots", "random")
    person.expect(PROMPT)
    person.sendline("q")
    person.expect(r"Leave the match\? The match ends here: the table is closed\. \[y/N\] ")
    person.sendline("y")
    person.expect("You left the table.")
    person.expect(pexpect.EOF)
    person.close()
    assert person.exitstatus == 0


def test_question_mark_shows_the_keys_and_the_tables_rules() -> None:
    child = spawn("play", "--seed", "3", "--delay", "0", "--bots", "random", "--preset", "tabinet")
    try:
        child.expect(PROMPT)
        child.sendline("?")
        child.expect(PROMPT)
        shown = plain(child.before)
        child.sendline("q")
        child.expect(r"\[y/N\] ")
        child.sendline("y")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    rules = tablic.Rules.preset("tabinet")
    assert "Keys" in shown and "KC:KD+KH" in shown and "q: leave" in shown
    assert "The rules of this table (Tablić tabinet, 2 players, to 151)" in shown
    assert "The J is wild" in shown and f"Q = {rules.queen_value}, K = {rules.king_value}" in shown
    assert "Points of the cards taken: A 1 each; 2C 2; 10D 3." in shown


def test_a_game_left_with_q_is_saved(tmp_path: Path) -> None:
    record = tmp_path / "left.txt"
    child = spawn(
        "play", "--seed", "3", "--delay", "0", "--bots", "random", "--name", "ana",
        "--save", str(record),
    )  # fmt: skip
    try:
        child.expect(PROMPT)
        child.sendline("1")
        child.expect(PROMPT)
        child.sendline("q")
        child.expect(r"\[y/N\] ")
        child.sendline("y")
        child.expect("You left the table.")
        child.expect(r"Record saved to")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    text = record.read_text()
    assert "# seat 0: ana" in text
    moves = tablic.MatchRecord.from_text(text).moves
    assert len(moves) >= 2  # ana's two turns, and random's moves between them


def two_people(server: LiveServer, *args: str) -> tuple[Any, Any]:
    """ana opens a table on `server` with a seat left open (`args`: the game's options), and
    ben takes it: their two terminals."""
    ana = spawn("play", "--server", server.target, *args, "--bots", "open", "--name", "ana")
    ana.expect(r"\r\n(?P<line>kafana play --server \S+ --table (?P<table>\w+))\r\n")
    assert len(ana.match.group("line")) < 80  # on a line of its own: pasted whole
    table = ana.match.group("table")
    ben = spawn("play", "--server", server.target, "--table", table, "--name", "ben")
    return ana, ben


def leaves(leaver: Any, name: str, stayer: Any) -> None:
    """`leaver` (called `name`) quits at their turn: they forfeit and `stayer` wins; both
    terminals end."""
    leaver.sendline("q")
    leaver.expect(r"Leave the match\? Your seat forfeits the match \(the other side wins\)\.")
    leaver.sendline("yes")
    leaver.expect("You left the table.")
    leaver.expect(pexpect.EOF)
    stayer.expect(rf"{name} forfeited \(left\)\.")
    stayer.expect("You win!")
    stayer.expect(pexpect.EOF)


def ben_leaves(ana: Any, ben: Any) -> None:
    """ben quits: he forfeits and ana wins; both terminals end."""
    leaves(ben, "ben", ana)


def test_two_people_through_a_server(server: LiveServer) -> None:
    ana, ben = two_people(server, "--seed", "7")
    try:
        ben.expect("You are ben, seat 1.")
        ana.expect(PROMPT)
        ana.sendline("1")
        ana.expect("You played")
        ben.expect(PROMPT)
        seen = plain(ben.before)
        assert "ana played " in seen and "Your hand: 2♦ 6♣ 6♠ 7♥ 7♠ 8♣" in seen
        ben_leaves(ana, ben)
    finally:
        ana.close()
        ben.close()
    assert ana.exitstatus == 0 and ben.exitstatus == 0


@pytest.mark.parametrize(
    ("game", "leaver"), [("tablic", 0), ("tablic", 1), ("tac", 0)], ids=["ana", "ben", "tac-ana"]
)
def test_whoever_quits_among_people_forfeits(server: LiveServer, game: str, leaver: int) -> None:
    """The table's creator (ana, seat 0) or the person who joined (ben): the seat that quits
    forfeits and the other wins, as the prompt says (the creator's quit closed the table)."""
    options = ("--game", "tac") if game == "tac" else ()
    prompt = TAC_PROMPT if game == "tac" else PROMPT
    ana, ben = two_people(server, *options, "--seed", "7")
    try:
        table_id = ana.match.group("table")
        ben.expect("You are ben, seat 1.")
        people = [(ana, "ana"), (ben, "ben")]
        if leaver == 1:
            ana.expect(prompt)
            ana.sendline("1")
        people[leaver][0].expect(prompt)
        leaves(people[leaver][0], people[leaver][1], people[1 - leaver][0])
    finally:
        ana.close()
        ben.close()
    assert ana.exitstatus == 0 and ben.exitstatus == 0
    with Client.connect(server.target) as client:
        result = client.get_state(table_id).result
    assert result.reason == state_pb2.RESULT_REASON_FORFEIT
    assert result.forfeit_seat == leaver
    assert result.winner_side == 1 - leaver
