"""A built-in bot playing its seat inside the server process.

All gRPC stays on the server's event loop (grpc.aio objects belong to one loop; channels on
loops in other threads of the serving process lost wakeups under load); only the bot's
decision, which may take a while, runs in a worker thread so it never stalls the loop.
If the bot fails, the seat gets the event's disconnect policy after the grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from kafana_bots import Bot
from kafana_client.aio import AsyncSeat
from kafana_client.bots import bot_events
from kafana_client.convert import current_seat, view_of
from kafana_client.errors import NotYourTurnRpcError, RpcError, StaleStateError

from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.seats import Fallback, table_over
from kafana.games.tablic import Rules
from kafana.v1 import state_pb2


async def follow(seat: AsyncSeat, bot: Bot) -> None:
    """Play `seat` with `bot` until the match is over."""
    before: state_pb2.TableState | None = None
    async for event in seat.events():
        for item in bot_events(event, before):
            bot.observe(item)
        before = event.state
        if event.match_over:
            return
        if current_seat(event.state) != seat.seat:
            continue
        with contextlib.suppress(StaleStateError, NotYourTurnRpcError):
            legal = await seat.legal_moves()
            if legal.seq != event.state.seq:
                continue  # an older event (replayed after a restart): the table moved on
            move = await asyncio.to_thread(bot.choose, view_of(event.state), legal.parsed())
            await seat.play(move, last_seq=legal.seq)


async def bot_seat(
    seat: AsyncSeat, bot: Bot, policy: FaultPolicy, rules: Rules, notes: list[Fault]
) -> None:
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
            await follow(seat, Fallback(seat.seat, rules, random.Random(0)))
