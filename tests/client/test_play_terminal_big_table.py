"""The terminal client keeps a person playing when the server cannot list the captures."""

from __future__ import annotations

import io

from kafana_client import AsyncClient, table_config
from kafana_client.cli import render
from kafana_client.cli.session import PersonAtTable
from kafana_client.seat_loop import trails
from rich.console import Console

from .big_table import grow_until_unlistable
from .kafana_client_live import LiveServer


async def test_a_person_plays_on_when_the_moves_are_too_many_to_list(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=5, target=1))
        seats = [await client.join(table.table_id, name=n) for n in ("ana", "ben")]
        state = await grow_until_unlistable(seats)
        mover = seats[state.current_seat]
        mine = await mover.state()
        hand = list(mine.tablic.hand)
        answers = iter(["9", "1"])  # no move 9: the person is told and asked again
        out = io.StringIO()
        person = PersonAtTable(mover, Console(file=out, width=100), ask=lambda _: next(answers))
        await person.turn()
        after = await mover.state()
        text = out.getvalue()
    assert after.seq == state.seq + 1, text
    assert len(after.tablic.hand) == len(hand) - 1
    assert "too many" in text and "There is no move 9" in text
    offered = [render.move_text(move).plain for move in trails(hand)]
    assert all(f"{n}) {line}" in text for n, line in enumerate(offered, start=1)), text
