"""A built-in bot playing its seat inside the server process.

The SDK's `run_bot` plays it, with each decision (which may take a while) in a worker thread
so it never stalls the service; all gRPC stays on the server's event loop. If the bot fails,
the seat gets the event's disconnect policy after the grace period.
"""

from __future__ import annotations

import asyncio
import contextlib

from kafana_bots import Bot
from kafana_client.aio import AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.convert import current_seat
from kafana_client.errors import RpcError

from kafana.competitions.hosted.referee import default_move
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.seats import table_over


async def follow(seat: AsyncSeat, bot: Bot | None) -> None:
    """Play `seat` with `bot` (None: default moves) until the match is over."""
    if bot is not None:
        await run_bot(seat, bot, threaded=True)
        return
    async for event in seat.events():
        if event.match_over:
            return
        if current_seat(event.state) == seat.seat:
            await default_move(seat, event.state.seq)


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
