"""A table too big for the server to list a card's captures, for the client tests."""

from __future__ import annotations

import pytest
from kafana.v1 import state_pb2
from kafana_client import AsyncSeat
from kafana_client.errors import TooManyMovesRpcError


async def grow_until_unlistable(seats: list[AsyncSeat]) -> state_pb2.TableState:
    """Both seats trail their first card until the seat to move cannot have its moves listed.

    Returns the state at that point (the seat to move gets TOO_MANY_MOVES from
    GetLegalMoves).
    """
    state = await seats[0].state()
    for _ in range(60):
        mover = seats[state.current_seat]
        try:
            await mover.legal_moves()
        except TooManyMovesRpcError:
            return state
        mover_state = await mover.state()
        await mover.play(mover_state.tablic.hand[0], last_seq=mover_state.seq)
        state = await seats[0].state()
    pytest.fail("the table never grew past what the server can list")
