"""The PlayMove answer: the event's table is the mover's table after the move, built once."""

from __future__ import annotations

import random

import grpc
import pytest
from conftest import Service
from kafana.v1 import rules_pb2, service_pb2
from kafana_play import config, open_table, play_to_end


async def test_event_state_is_the_movers_state_after_the_move(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(any_service.stub, config(players=2, seed=11))
    await play_to_end(stub, table, random.Random(3))
    played = [r for r in table.responses if isinstance(r, service_pb2.PlayMoveResponse)]
    assert played
    for response in played:
        assert response.event.state == response.state
        assert response.state.seq == response.event.seq
        assert response.state.tablic.seat == response.event.seat


async def test_captures_bad_rules_are_refused_every_time(any_service: Service) -> None:
    """Rules are cached per spec for Captures; a bad spec is refused, never cached."""
    bad = rules_pb2.RulesSpec(game="tablic", preset="no-such-preset")
    good = rules_pb2.RulesSpec(game="tablic", preset="serbian", players=2)
    for _ in range(2):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await any_service.stub.Captures(
                service_pb2.CapturesRequest(card="KC", table=["KD"], rules=bad)
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no-such-preset" in (refused.value.details() or "")
        found = await any_service.stub.Captures(
            service_pb2.CapturesRequest(card="KC", table=["KD", "KH"], rules=good)
        )
        assert sorted(list(c.cards) for c in found.captures) == [["KD"], ["KD", "KH"], ["KH"]]
