"""A built-in bot playing its seat inside the server process.

All gRPC stays on the server's event loop; only the bot's decision, which may take a while,
runs in a worker thread so it never stalls the service. If the bot fails, the seat gets the
event's disconnect policy after the grace period. On a position whose captures are too many
for the server to list, the seat plays its default move (a trail).
"""

from __future__ import annotations

import asyncio
import contextlib

from kafana_bots import Bot
from kafana_client.aio import AsyncSeat
from kafana_client.bots import bot_events
from kafana_client.convert import current_seat, view_of
from kafana_client.errors import (
    MatchOverRpcError,
    NotYourTurnRpcError,
    ResourceExhaustedError,
    RpcError,
    StaleStateError,
)

from kafana.competitions.hosted.referee import default_move
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.seats import table_over
from kafana.v1 import state_pb2


async def follow(seat: AsyncSeat, bot: Bot | None) -> None:
    """Play `seat` with `bot` (None: default moves) until the match is over."""
    before: state_pb2.TableState | None = None
    async for event in seat.events():
        if bot is not None:
            for item in bot_events(event, before):
                bot.observe(item)
        before = event.state
        if event.match_over:
            return
        if current_seat(event.state) != seat.seat:
            continue
        if bot is None:
            await default_move(seat, event.state.seq)
            continue
        with contextlib.suppress(StaleStateError, NotYourTurnRpcError, MatchOverRpcError):
            try:
                legal = await seat.legal_moves()
            except ResourceExhaustedError:
                await default_move(seat, event.state.seq)
                continue
            if legal.seq != event.state.seq:
                continue  # an older event (replayed after a restart): the table moved on
            move = await asyncio.to_thread(bot.choose, view_of(event.state), legal.parsed())
            await seat.play(move, last_seq=legal.seq)


async def bot_seat(seat: AsyncSeat, bot: Bot, policy: FaultPolicy, notes: list[Fault]) -> None:
    """`follow`; if the bot fails, note a disconnect and apply the policy to the seat."""
    try:
        await follow(seat, bot)
        return
    except Exception as exc:  # the bot or its connection failed
        detail = f"{type(exc).__name__}: {exc}"
    if await table_over(seat.client, seat.table_id):
        return
    await asyncio.sleep(policy.disconnect_grace_ms / 1000)
    action = policy.action(Reason.DISCONNECT)
    notes.append(Fault(seat.seat, Reason.DISCONNECT, action, -1, detail))
    with contextlib.suppress(RpcError):
        if action is Action.FORFEIT_MATCH:
            await seat.leave()
        else:
            await follow(seat, None)
