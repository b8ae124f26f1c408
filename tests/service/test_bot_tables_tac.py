"""A Tač table of every Tač bot the registry offers (TableConfig.bots) plays itself to the end."""

from __future__ import annotations

import pytest
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_bots import registry
from kit import Service, finished

pytestmark = pytest.mark.usefixtures("service")


async def test_a_tac_table_of_every_tac_bot_plays_itself_to_the_end(service: Service) -> None:
    names = registry.names("tac")
    assert {"random", "loader", "search"} <= set(names) and len(names) <= 4
    config = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=len(names))
    )
    for seat, name in enumerate(names):
        config.bots.add(seat=seat, bot=name)
    created = await service.stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    assert [s.bot for s in created.info.seats] == names
    state = await finished(service, created.table_id, within=120)
    assert state.result.reason == state_pb2.RESULT_REASON_OUT  # a seat went out: played through
    places = list(state.result.places)
    # A place for every seat, 1 first; tied seats share a place (docs/tac.md: "1, 3, 2, 3"), so
    # each place is one more than the number of seats placed strictly better.
    assert len(places) == len(names) and min(places) == 1, places
    assert all(p == 1 + sum(q < p for q in places) for p in places), places
    record = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=created.table_id))
    moves = [e.seat for e in record.events if e.move.text]
    assert set(moves) == set(range(len(names))), moves
