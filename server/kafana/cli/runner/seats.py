"""Seats whose bot is gone: noted, and left to the table's fault policy.

The table enforces the event's policy (`table_results.clock_spec`: after the disconnect grace
it forfeits the seat or plays its turns by default); the runner only notes what happened to
the bot (the detail of the table's `disconnect` fault) and waits for the table's end. A seat
nobody took (its remote bot process never joined) cannot be played: its table is closed.
"""

from __future__ import annotations

import contextlib

from kafana_client.aio import AsyncClient
from kafana_client.errors import RpcError

from kafana.competitions.policy import Fault, FaultPolicy, Reason
from kafana.v1 import state_pb2


async def table_over(client: AsyncClient, table_id: str) -> bool:
    """True when the table's match has ended (or the server cannot tell us otherwise)."""
    try:
        info = await client.get_table(table_id)
    except RpcError:
        return False
    return bool(info.status == state_pb2.TABLE_STATUS_FINISHED)


async def gone(
    client: AsyncClient,
    table_id: str,
    seat: int,
    seated: bool,
    detail: str,
    policy: FaultPolicy,
    notes: list[Fault],
    admin_token: str = "",
) -> None:
    """The bot of `seat` is gone (`detail` says how). Unless the table is over, the fault is
    noted and the table's policy plays on to the end (waited for here); a seat never `seated`
    has its table closed instead (the game is not played)."""
    if await table_over(client, table_id):
        return  # the table ended (the other seat, the organiser): no seat is at fault
    notes.append(Fault(seat, Reason.DISCONNECT, policy.action(Reason.DISCONNECT), -1, detail))
    with contextlib.suppress(RpcError):
        if not seated:
            await client.close_table(table_id, admin_token)
            return
        async for _event in client.events(table_id):  # a spectator, until the table ends
            pass
