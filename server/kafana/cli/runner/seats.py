"""Seats whose bot is gone: the default-move stand-in, and whether the table is over anyway."""

from __future__ import annotations

from collections.abc import Sequence

from kafana_bots import Bot
from kafana_client.aio import AsyncClient
from kafana_client.errors import RpcError

from kafana.games.tablic import Move, View
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
