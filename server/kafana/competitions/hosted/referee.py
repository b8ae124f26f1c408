"""Watching one hosted table to its end, and enforcing "forfeit the hand" on a timeout.

The server's clock knows two answers to a timeout: its default move, or a forfeit of the
match. For an event whose policy is `forfeit_hand`, the table's clock plays the default move
and the referee, which holds every seat's token, then plays default moves for that seat (the
first legal move, a trail when it has one) until the hand is over. The hand is scored as its
cards fall; the fault is recorded as `seatN:timeout->forfeit_hand@M`.
"""

from __future__ import annotations

import contextlib

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.convert import current_seat
from kafana_client.errors import ResourceExhaustedError, RpcError

from kafana.competitions.policy import Action, FaultPolicy
from kafana.v1 import events_pb2


async def referee(
    client: AsyncClient, table_id: str, tokens: list[str], policy: FaultPolicy
) -> None:
    """Follow the table until the match is over (or the table is closed)."""
    forfeiting: dict[int, int] = {}  # seat -> the hand it forfeited
    hand = 0
    async for event in client.watch(table_id):
        after = event.state.tablic
        if (
            policy.on_timeout is Action.FORFEIT_HAND
            and event.kind == events_pb2.EVENT_KIND_MOVE
            and event.reason == "timeout"
        ):
            forfeiting[event.seat] = hand
        hand = after.hand_no
        if event.match_over:
            return
        seat = current_seat(event.state)
        if seat is not None and forfeiting.get(seat) == hand:
            held = AsyncSeat(client, table_id, seat, tokens[seat])
            await default_move(held, event.state.seq)


async def default_move(seat: AsyncSeat, seq: int) -> None:
    """Play the seat's default move at `seq` (nothing if the table has moved on or is over).

    The first legal move (a trail when it has one); on a table whose captures are too many to
    list, a trail of the first card of the hand that the server accepts.
    """
    with contextlib.suppress(RpcError):
        try:
            legal = await seat.legal_moves()
        except ResourceExhaustedError:
            state = await seat.state()
            if state.seq != seq:
                return
            for card in state.tablic.hand:
                with contextlib.suppress(RpcError):
                    await seat.play(card, last_seq=seq)
                    return
            return
        if legal.seq == seq and legal.moves:  # not an old event replayed after a restart
            await seat.play(legal.moves[0].text, last_seq=legal.seq)
