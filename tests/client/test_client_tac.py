"""Tač through the SDK and the terminal: bots at a live server, views, `kafana play --game tac`."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import pexpect
import pytest
from kafana.games import tac
from kafana.v1 import state_pb2
from kafana_bots import registry
from kafana_bots.tac_bots import TacBot
from kafana_client import AsyncClient
from kafana_client.aio import AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.cli.watch import follow
from kafana_client.tac import run_tac_bot, tac_rules_of, tac_table_config, tac_view_of
from rich.console import Console

from .kafana_client_live import LiveServer
from .test_play_terminal import TAC_PROMPT as PROMPT
from .test_play_terminal import ben_leaves, plain, spawn, two_people

Runner = Callable[[AsyncSeat, TacBot], Awaitable[state_pb2.TableState]]


@pytest.mark.parametrize("runner", [run_tac_bot, run_bot])
async def test_tac_bots_play_a_whole_game_with_calls(server: LiveServer, runner: Runner) -> None:
    names = ("random", "loader", "loader")
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(tac_table_config(players=3, seed=4, tac_calls=True))
        rules = tac_rules_of(table.info)
        assert rules == tac.Rules(players=3, tac_calls=True)
        seats = [await client.join(table.table_id, name=name) for name in names]
        bots = [
            registry.create(name, seat=s.seat, rules=rules, rng=random.Random(s.seat))
            for name, s in zip(names, seats, strict=True)
        ]
        finals = await asyncio.wait_for(
            asyncio.gather(*(runner(s, b) for s, b in zip(seats, bots, strict=True))), 120
        )
        answer = await client.record(table.table_id)
    record = tac.GameRecord.from_text(answer.record)
    replayed = record.replay()
    assert replayed.is_over and replayed.places() == tuple(answer.result.places)
    assert all(f.tac.is_over for f in finals)
    offences = sum(step.offence for step in replayed.steps())
    calls = sum(move.kind == "call" for move in record.moves)
    assert calls <= offences
    # The wire view, turned back into a tac.View, is the engine's view of that seat.
    assert tac_view_of(finals[1]).to_dict() == replayed.view(1).to_dict()


async def test_wire_views_match_the_engine_move_by_move(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(tac_table_config(players=2, seed=9))
        seats = [await client.join(table.table_id) for _ in range(2)]
        local = tac.new_game(tac.Rules(players=2), seed=9)
        for _ in range(40):
            seat = seats[local.current_seat or 0]
            legal = await seat.legal_moves()
            assert [m.text for m in legal.moves] == [str(m) for m in local.legal_moves()]
            move = local.legal_moves()[0]
            played = await seat.play(str(move), last_seq=legal.seq)
            local = local.apply(move)
            assert tac_view_of(played.state).to_dict() == local.view(seat.seat).to_dict()
            spectator = await client.get_state(table.table_id)
            assert tac_view_of(spectator).to_dict() == local.public_view().to_dict()


def test_play_tac_in_the_terminal(tmp_path: Path) -> None:
    record = tmp_path / "tac.txt"
    child = spawn(
        "play", "--game", "tac", "--seed", "3", "--delay", "0", "--bots", "loader",
        "--name", "ana", "--save", str(record),
    )  # fmt: skip
    screen: list[str] = []
    try:
        child.expect(PROMPT)
        first = plain(child.before)
        assert "Central pile: (empty: it starts with an ace)" in first
        assert "1) flip: turn up the top card of your closed pile" in first
        assert "ana (you)" in first and "loader" in first
        for typed, answer in (
            ("zz", "Mistyped: 'zz' is neither a move number"),
            ("99", "There is no move 99: choose a number from 1 to 1."),
            ("call", "Refused: call P0: this table enforces the order: there are no Tač calls"),
            ("play X->C", "Refused: play X->C: no card is turned up: flip first"),
        ):
            child.sendline(typed)
            child.expect(PROMPT)
            assert answer in plain(child.before), plain(child.before)
        moves = 0
        while True:
            child.sendline("1")
            moves += 1
            found = child.expect([PROMPT, "Game over"], timeout=60)
            screen.append(plain(child.before))
            if found == 1:
                break
        child.expect(pexpect.EOF)
        screen.append(plain(child.before))
    finally:
        child.close()
    assert child.exitstatus == 0
    text = "".join(screen)
    assert "You turned up " in text and "loader turned up " in text
    assert "Record saved to" in text
    final = tac.GameRecord.from_text(record.read_text()).replay()
    assert final.is_over
    assert sum(1 for step in final.steps() if step.seat == 0) == moves

    viewer = spawn("replay", str(record))
    viewer.expect(r"move 0/\d+ \(Enter: next, b: back")
    assert "▶ ana: closed 26" in plain(viewer.before)  # the seat's name, from the saved record
    viewer.sendline("")
    viewer.expect(r"move 1/\d+ ")
    assert "ana flip" in plain(viewer.before)
    viewer.sendline("b")
    viewer.expect(r"move 0/\d+ ")
    assert "— move 0 of" in plain(viewer.before) and "ana: closed 26" in plain(viewer.before)
    viewer.sendline("h 1")
    viewer.expect(r"move 0/\d+ ")
    assert "This game has no hands" in plain(viewer.before)
    viewer.sendline("q")
    viewer.expect("Stopped.")
    viewer.expect(pexpect.EOF)
    viewer.close()
    assert viewer.exitstatus == 0


async def test_watch_draws_a_tac_game(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(tac_table_config(players=3, seed=4, tac_calls=True))
        rules = tac_rules_of(table.info)
        seats = [await client.join(table.table_id, name=n) for n in ("ana", "ben", "cid")]
        bots = [
            registry.create(name, seat=s.seat, rules=rules, rng=random.Random(s.seat))
            for name, s in zip(("random", "loader", "random"), seats, strict=True)
        ]
        await asyncio.wait_for(
            asyncio.gather(*(run_tac_bot(s, b) for s, b in zip(seats, bots, strict=True))), 120
        )
        console = Console(file=io.StringIO(), width=100, highlight=False)
        await follow(client, table.table_id, console)
        text = console.file.getvalue()  # type: ignore[attr-defined]
        answer = await client.record(table.table_id)
    final = tac.GameRecord.from_text(answer.record).replay()
    assert "ana sat down at seat 0." in text and "All seats taken: the game begins." in text
    assert "Central pile: " in text and "discard top" in text
    winner = final.winner
    assert winner is not None and f"{('ana', 'ben', 'cid')[winner]} wins." in text
    calls = [step for step in final.steps() if step.move.kind == "call"]
    assert text.count("called Tač!") == len(calls)
    assert text.count("out of order!") == sum(step.offence for step in final.steps())


def test_two_people_at_a_tac_table(server: LiveServer) -> None:
    ana, ben = two_people(server, "--game", "tac", "--seed", "3")
    try:
        ben.expect("You are ben, seat 1.")
        ana.expect(PROMPT)
        ana.sendline("1")
        ana.expect("You turned up")
        ana.expect(PROMPT)
        ana.sendline("1")
        ben.expect(PROMPT)
        seen = plain(ben.before)
        assert "ana turned up " in seen and "ben (you)" in seen and "Central pile" in seen
        ben_leaves(ana, ben)
    finally:
        ana.close()
        ben.close()
    assert ana.exitstatus == 0 and ben.exitstatus == 0
