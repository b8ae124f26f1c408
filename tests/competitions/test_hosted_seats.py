"""A hosted event's table is played only by its entrant: no stranger takes a seat of it."""

from __future__ import annotations

import pytest
from kafana.v1 import state_pb2
from kafana_client import (
    AsyncClient,
    PermissionDeniedRpcError,
    RpcError,
    SeatTakenRpcError,
)
from kafana_client.errors import MatchNotOverRpcError
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, first_assignment, play_moves


async def test_a_stranger_cannot_take_or_read_an_entrants_seat(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("closed-doors", "round_robin", target=101)
        entries = [await events.enter(made.event_id, n) for n in ("ann", "ben")]
        await events.start(made.event_id, made.organiser_token)
        held = [await first_assignment(client, made.event_id, e.token) for e in entries]
        table_id = held[0][0].table_id

        listed = {t.table_id: t for t in await client.list_tables()}
        info = listed[table_id]  # listed, but nothing to take and nothing secret
        assert [s.name for s in info.seats] == ["ann", "ben"] and all(s.taken for s in info.seats)
        assert info.status == state_pb2.TABLE_STATUS_PLAYING
        for seat in (None, 0, 1):
            with pytest.raises((SeatTakenRpcError, PermissionDeniedRpcError)):
                await client.join(table_id, seat=seat, name="mallory")
        with pytest.raises(RpcError):
            await client.legal_moves(table_id, "")
        with pytest.raises(MatchNotOverRpcError):
            await client.record(table_id)
        view = (await client.get_state(table_id)).tablic
        assert not view.hand and not view.HasField("seat")  # a spectator sees no hand
        await play_moves([seat for seat, _ in held], 2)  # the entrants play with their tokens
