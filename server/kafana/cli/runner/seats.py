"""Seats whose bot is gone: the disconnect policy, its default-move stand-in, and whether the
table is over anyway (then nobody is at fault)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Sequence

from kafana_bots import Bot
from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.errors import RpcError

from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.games.tablic import Move, Rules, View
from kafana.v1 import state_pb2


class Fallback(Bot):
    """The default move for a seat whose own bot is gone (a trail when it can)."""

    name = "default"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The first legal move."""
        return legal_moves[0]


async def table_over(client: AsyncClient, table_id: str) -> bool:
    """True when the table's match has ended (or the server cannot tell us otherwise)."""
    try:
        info = await client.get_table(table_id)
    except RpcError:
        return False
    return bool(info.status == state_pb2.TABLE_STATUS_FINISHED)


async def disconnected(
    client: AsyncClient,
    table_id: str,
    seat: int,
    held: AsyncSeat | None,
    detail: str,
    policy: FaultPolicy,
    rules: Rules,
    notes: list[Fault],
    admin_token: str = "",
) -> None:
    """The bot of `seat` is gone (`detail` says how). Unless the table is over, after the grace
    period the fault is noted and the seat forfeits or plays default moves from here on (the
    server has no per-hand forfeit); a seat never `held` has its table closed instead."""
    if await table_over(client, table_id):
        return  # the table ended (the other seat, the organiser): no seat is at fault
    await asyncio.sleep(policy.disconnect_grace_ms / 1000)
    action = policy.action(Reason.DISCONNECT)
    notes.append(Fault(seat, Reason.DISCONNECT, action, -1, detail))
    with contextlib.suppress(RpcError):
        if held is None:  # nobody can play it
            await client.close_table(table_id, admin_token)
        elif action is Action.FORFEIT_MATCH:
            await held.leave()
        else:
            await run_bot(held, Fallback(seat, rules, random.Random(0)))
