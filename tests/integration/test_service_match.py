"""Whole matches through the API, checked against the rules engine replaying the same moves."""

from __future__ import annotations

import random

from kafana.games import tablic
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_play import config, open_table, play_to_end
from kit import Service, seat_md


async def whole_match(svc: Service, players: int, partnerships: bool, seed: int) -> None:
    stub = svc.stub
    table = await open_table(stub, config(players=players, partnerships=partnerships, seed=seed))
    moves = await play_to_end(stub, table, random.Random(seed))
    record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    rules = tablic.Rules.preset("serbian", players=players, partnerships=partnerships)
    # The oracle: the engine replays the moves the API reported, from the seed we chose.
    local = tablic.new_match(rules, seed=seed)
    played = [r for r in table.responses if isinstance(r, service_pb2.PlayMoveResponse)]
    assert len(played) == moves > 40
    for response in played:
        seat = local.current_seat
        assert seat is not None and response.event.seat == seat
        local = local.apply(response.event.move.text)
        assert list(response.state.tablic.hand) == [c.text for c in sorted(local.hand(seat))]
        assert list(response.state.tablic.scores) == list(local.scores)
    assert local.is_over
    assert record.result.reason == state_pb2.RESULT_REASON_SCORE
    assert list(record.result.scores) == list(local.scores)
    assert record.result.winner_side == local.winner
    replayed = tablic.MatchRecord.from_text(record.record).replay()
    assert replayed.scores == local.scores and replayed.is_over
    assert [e.seq for e in record.events] == list(range(1, table.seq + 1))
    assert not any(e.HasField("state") for e in record.events)
    assert record.events[-1].result == record.result and record.events[-1].match_over
    hand_scores = [e.hand_score for e in record.events if e.HasField("hand_score")]
    assert [list(h.points) for h in hand_scores] == [list(h.points) for h in local.hand_results]
    final = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert final.info.status == state_pb2.TABLE_STATUS_FINISHED
    assert final.result.reason == state_pb2.RESULT_REASON_SCORE
    assert not final.HasField("current_seat") and not final.remaining_millis


async def test_two_player_match(any_service: Service) -> None:
    await whole_match(any_service, 2, False, seed=11)


async def test_two_vs_two_match(service: Service) -> None:
    await whole_match(service, 4, True, seed=12)


async def test_list_and_find_tables(service: Service) -> None:
    first = await open_table(service.stub, config())
    created = await service.stub.CreateTable(
        service_pb2.CreateTableRequest(config=config(players=3))
    )
    listed = await service.stub.ListTables(service_pb2.ListTablesRequest())
    assert [t.table_id for t in listed.tables] == [created.table_id, first.table_id]
    open_only = await service.stub.ListTables(
        service_pb2.ListTablesRequest(status=state_pb2.TABLE_STATUS_OPEN)
    )
    assert [t.table_id for t in open_only.tables] == [created.table_id]
    info = await service.stub.GetTable(service_pb2.GetTableRequest(table_id=first.table_id))
    assert info.status == state_pb2.TABLE_STATUS_PLAYING
    assert [s.name for s in info.seats] == ["p0", "p1"]


async def test_explicit_decks_and_switches(service: Service) -> None:
    deck = list(tablic.CANONICAL_DECK)
    deck.reverse()
    cfg = config(seed=None)
    cfg.decks.add(cards=[c.text for c in deck])
    cfg.rules.tablic.must_capture = True
    created = await service.stub.CreateTable(service_pb2.CreateTableRequest(config=cfg))
    in_force = created.info.rules
    assert in_force.game == rules_pb2.GAME_TABLIC and in_force.tablic.must_capture
    assert in_force.tablic.HasField("rank_priority") and not in_force.tablic.rank_priority
    assert in_force.tablic.target == 101 and in_force.tablic.card_points_set
    table = await open_table(service.stub, cfg)
    state = await service.stub.GetState(
        service_pb2.GetStateRequest(table_id=table.table_id), metadata=seat_md(table.tokens[0])
    )
    rules = tablic.Rules.preset("serbian", players=2, must_capture=True)
    local = tablic.new_match(rules, decks=[deck])
    assert list(state.tablic.table) == [c.text for c in sorted(local.table)]
    assert list(state.tablic.hand) == [c.text for c in sorted(local.hand(0))]
    await play_to_end(service.stub, table, random.Random(4))
    record = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert "seed" not in record.record and record.record.count("\ndeck ") == 1
    assert tablic.MatchRecord.from_text(record.record).replay().is_over
