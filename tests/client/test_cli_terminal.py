"""The terminal client's clock and keys, in a pseudo-terminal: the clock shown and counting
down, the notice after a move the server played, Ctrl-C, Ctrl-D, leaving with confirmation, and
replay going back and forth."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pexpect
from kafana.cli.demo import play_random_match
from kafana.games import tablic, tac
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.blocking import Client
from kafana_client.convert import table_config
from kafana_client.tournaments import Tournaments
from kit import serving

from .kafana_client_live import LiveServer
from .test_play_terminal import PROMPT, kafana, plain, spawn

INTERRUPTED = 130


def test_the_clock_counts_down_then_the_server_plays_for_the_person() -> None:
    child = spawn("play", "--move-ms", "2500", "--seed", "5", "--delay", "0", "--bots", "greedy")
    try:
        child.expect(r"\[  3s\] " + PROMPT)
        shown = plain(child.before)
        assert "Clock 2.5 s a move: ▶ you" in shown and "s left · greedy 2.5 s" in shown
        child.expect(r"\x1b7\r\[  2s\]\x1b8")  # rewritten in place, the typed text untouched
        child.expect(r"\x1b7\r\[  1s\]\x1b8")
        child.expect("Time is up: the server plays for you.")
        child.expect("Your time ran out: the server played for you.")
        child.expect("You ran out of time; played ")
        child.expect(PROMPT)  # the next turn, with a fresh clock
        started = time.monotonic()
        child.sendcontrol("c")
        child.expect("Interrupted: you left the table.")
        child.expect(pexpect.EOF)
        assert time.monotonic() - started < 5  # at once, not after an Enter that never comes
        assert "Traceback" not in plain(child.before)
    finally:
        child.close()
    assert child.exitstatus == INTERRUPTED


def test_a_clocked_tac_game_with_the_person_away_is_played_to_its_end(tmp_path: Path) -> None:
    """The clock plays every step of the away seat (a Tač turn may be several in a row: up to
    6 with this seed) while the bot plays its own: the game ends by the rules, not as abandoned
    after 4 timeouts. 200 ms a move leaves the bot time to answer on a loaded machine; the
    seed has the shortest such game of 400 (104 steps of the away seat)."""
    record = tmp_path / "tac.txt"
    child = spawn(
        "play", "--game", "tac", "--move-ms", "200", "--seed", "144", "--delay", "0",
        "--bots", "loader", "--name", "ana", "--save", str(record),
    )  # fmt: skip
    try:
        child.expect(pexpect.EOF, timeout=150)
        shown = plain(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert "abandoned" not in shown
    final = tac.GameRecord.from_text(record.read_text()).replay()
    assert final.is_over and final.move_count > 20
    assert shown.count("You ran out of time; played ") >= 10
    assert "loader played " in shown


def test_ctrl_d_leaves_saying_what_it_costs_and_no_traceback() -> None:
    child = spawn("play", "--seed", "5", "--delay", "0", "--bots", "greedy")
    try:
        child.expect(PROMPT)
        child.sendeof()
        child.expect(r"End of input: leaving \(the match ends here: the table is closed\)\.")
        child.expect("You left the table.")
        child.expect(pexpect.EOF)
        assert "Traceback" not in plain(child.before)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_q_asks_first_and_no_keeps_playing() -> None:
    child = spawn("play", "--seed", "5", "--delay", "0", "--bots", "greedy")
    try:
        child.expect(PROMPT)
        child.sendline("q")
        child.expect(r"Leave the match\? The match ends here: the table is closed\. \[y/N\] ")
        child.sendline("n")
        child.expect(PROMPT)
        child.sendline("1")
        child.expect("You played ")
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(r"Leave the match\?")
        child.sendline("y")
        child.expect("You left the table.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_replay_steps_back_and_forth_and_jumps_to_a_hand_or_a_move(tmp_path: Path) -> None:
    final = play_random_match(tablic.Rules.preset("serbian"), 3)
    total = final.move_count
    record = tmp_path / "m.txt"
    record.write_text(final.record().to_text() + "# seat 0: ana\n# seat 1: bo\n")
    second = _start_of_hand_2(final)
    viewer = spawn("replay", str(record))
    prompt = rf"move (\d+)/{total} \(Enter: next, b: back"
    try:
        viewer.expect(prompt)
        assert "▶ ana:" in plain(viewer.before) and "bo:" in plain(viewer.before)
        viewer.sendline("")
        viewer.expect(prompt)
        assert viewer.match.group(1) == "1" and "ana played " in plain(viewer.before)
        viewer.sendline("n")
        viewer.expect(prompt)
        assert viewer.match.group(1) == "2" and "bo played " in plain(viewer.before)
        viewer.sendline("b")
        viewer.expect(prompt)
        assert viewer.match.group(1) == "1" and "After move 1" in plain(viewer.before)
        viewer.sendline("h 2")
        viewer.expect(prompt)
        assert viewer.match.group(1) == str(second)
        assert f"— move {second} of {total} —" in plain(viewer.before)
        assert "Hand 2 · deck" in plain(viewer.before)
        viewer.sendline("h 99")
        viewer.expect(prompt)
        assert "There is no hand 99" in plain(viewer.before)
        viewer.sendline("10")
        viewer.expect(prompt)
        assert viewer.match.group(1) == "10" and "After move 10" in plain(viewer.before)
        viewer.sendline(str(total + 1))
        viewer.expect(prompt)
        assert "That is past the end" in plain(viewer.before)
        viewer.sendline("e")
        viewer.expect(prompt)
        winner = "ana" if final.winner == 0 else "bo"
        assert f": {winner} wins." in plain(viewer.before)
        viewer.sendline("q")
        viewer.expect("Stopped.")
        viewer.expect(pexpect.EOF)
    finally:
        viewer.close()
    assert viewer.exitstatus == 0


def _start_of_hand_2(final: tablic.MatchState) -> int:
    """How many moves of `final`'s match come before the second hand's position."""
    state = tablic.new_match(final.rules, seed=final.record().seed)
    for done, move in enumerate(final.record().moves):
        if state.hand_no == 1:
            return done
        state = state.apply(move)
    raise AssertionError("the match has one hand")


def test_moves_from_a_file_or_a_pipe(tmp_path: Path) -> None:
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n1\nq\ny\n")
    command, argv = kafana("play", "--seed", "3", "--delay", "0", "--bots", "greedy")
    with moves.open() as given:
        done = subprocess.run(
            [command, *argv], stdin=given, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("You played ") == 2 and "You left the table." in done.stdout
    piped = subprocess.run(
        [command, *argv], input="", capture_output=True, text=True, timeout=60
    )  # end of input at once: leaves, as Ctrl-D does
    assert piped.returncode == 0 and "End of input: leaving" in piped.stdout, piped.stderr


def test_the_table_moving_on_during_the_persons_turn_is_shown(server: LiveServer) -> None:
    with Client.connect(server.target) as client:
        created = client.create_table(table_config(seed=5, name="t"))
        child = spawn("play", "--server", server.target, "--table", created.table_id)
        try:
            child.expect(r"seat 0\.")
            client.join(created.table_id, name="bo")
            child.expect(PROMPT)
            client.close_table(created.table_id, created.admin_token)  # nothing typed
            child.expect("The table moved on.")
            child.expect(r"The table was closed \(admin\)\.")  # the reason, in words
            child.expect(pexpect.EOF)
        finally:
            child.close()
    assert child.exitstatus == 0


async def _event_with_a_person(target: str) -> tuple[str, str]:
    """A started round robin of a person (ana) and a random bot: (event id, ana's entry token)."""
    async with AsyncClient.connect(target) as client:
        events = Tournaments(client)
        made = await events.create("quit-cup", "round_robin", target=11)
        ana = await events.enter(made.event_id, "ana")
        await events.enter(made.event_id, "bo", bot="random")
        await events.start(made.event_id, made.organiser_token)
        return made.event_id, ana.token


async def _game(target: str, event_id: str) -> pb.GameInfo:
    async with AsyncClient.connect(target) as client:
        info = await Tournaments(client).get(event_id)
        return info.rounds[0].games[0]


def test_q_in_a_tournament_game_forfeits_it_with_no_traceback(tmp_path: Path) -> None:
    with serving(tmp_path, "--memory") as servers:
        servers[0].wait_started()
        target = servers[0].target
        event_id, token = asyncio.run(_event_with_a_person(target))
        child = spawn(
            "tournament", "watch", event_id, "--token", token, "--play", "--server", target
        )
        try:
            child.expect(PROMPT)
            child.sendline("q")
            child.expect(r"Leave the match\? Your seat forfeits this game")
            child.sendline("y")
            child.expect(r"You left game r1-g1")
            child.expect(pexpect.EOF)
            shown = plain(child.before)
        finally:
            child.close()
        game = asyncio.run(_game(target, event_id))
    assert child.exitstatus == 0, shown
    assert "Traceback" not in shown and "Quit" not in shown and "the bot failed" not in shown
    assert game.ending == pb.GAME_ENDING_FORFEIT, game
