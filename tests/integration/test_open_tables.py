"""Open tables (issue 31): no cards before every seat is taken; "the creator chose its deal"
only where a caller chose it."""

from __future__ import annotations

import asyncio

import grpc
from kafana.service.tables import Tables
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kit import Service, seat_md

GAMES = (("tablic", 2), ("tablic", 4), ("tac", 2))


def config(game: str, players: int, seed: int | None = None) -> rules_pb2.TableConfig:
    """A table of `game` for `players` seats, seeded by the caller when `seed` is given."""
    rules = rules_pb2.RulesSpec(game=rules_pb2.Game.Value(f"GAME_{game.upper()}"), players=players)
    out = rules_pb2.TableConfig(rules=rules, name="open")
    if seed is not None:
        out.seed = seed
    return out


def cards_in(state: state_pb2.TableState) -> list[str]:
    """Every card a state shows: Tablić's hand and table, Tač's piles and turned card."""
    shown: list[str] = []
    if state.HasField("tablic"):
        view = state.tablic
        shown += list(view.hand) + list(view.table)
    if state.HasField("tac"):
        view = state.tac
        shown += list(view.central) + [c for pile in view.discards for c in pile.cards]
        shown += [view.turned] if view.turned else []
    return shown


async def test_an_open_table_shows_no_card_until_every_seat_is_taken(service: Service) -> None:
    stub = service.stub
    for game, players in GAMES:
        created = await stub.CreateTable(
            service_pb2.CreateTableRequest(config=config(game, players))
        )
        table_id = created.table_id
        tokens = []
        for seat in range(players):
            joined = await stub.JoinTable(
                service_pb2.JoinTableRequest(table_id=table_id, seat=seat, name=f"p{seat}")
            )
            tokens.append(joined.seat_token)
            full = seat == players - 1
            views = [joined.state]
            for token in tokens:  # every seat so far, and a spectator
                request = service_pb2.GetStateRequest(table_id=table_id)
                views.append(await stub.GetState(request, metadata=seat_md(token)))
            views.append(await stub.GetState(service_pb2.GetStateRequest(table_id=table_id)))
            for view in views:
                open_ = view.info.status == state_pb2.TABLE_STATUS_OPEN
                assert open_ != full, (game, players, seat)
            if not full:
                assert all(cards_in(v) == [] for v in views), (game, players, seat, views[0])
        assert joined.state.HasField(game), (game, players)  # the match shows from now on
        if game == "tablic":
            assert len(joined.state.tablic.hand) == 6, players  # the last seat sees its hand


async def test_a_seats_event_stream_deals_nothing_before_the_table_fills(
    service: Service,
) -> None:
    stub = service.stub
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config("tablic", 2)))
    table_id = created.table_id
    first = await stub.JoinTable(service_pb2.JoinTableRequest(table_id=table_id, name="ana"))
    request = service_pb2.WatchEventsRequest(table_id=table_id, with_state=True)
    stream = stub.WatchEvents(request, metadata=seat_md(first.seat_token))
    taken = await asyncio.wait_for(anext(aiter(stream)), 10)
    assert taken.event.seq == 1
    assert cards_in(taken.event.state) == []
    assert not taken.event.HasField("deal") or not taken.event.deal.hand
    await stub.JoinTable(service_pb2.JoinTableRequest(table_id=table_id, name="bora"))
    started = await asyncio.wait_for(anext(aiter(stream)), 10)
    assert started.event.match_started
    assert len(started.event.state.tablic.hand) == 6
    stream.cancel()


async def test_the_deal_notice_is_for_a_seed_a_caller_chose(service: Service) -> None:
    stub = service.stub
    chosen = await stub.CreateTable(
        service_pb2.CreateTableRequest(config=config("tablic", 2, seed=4242))
    )
    drawn = await stub.CreateTable(service_pb2.CreateTableRequest(config=config("tablic", 2)))
    assert chosen.info.deal_chosen_by_creator
    assert not drawn.info.deal_chosen_by_creator
    # The domain layer's own tables (a hosted event's director, a league's referee) are
    # seeded by the server: nobody at them chose the deal.
    tables = Tables(service.store)
    table_id, _admin, _session = await tables.create(config("tablic", 2, seed=4242))
    info = await stub.GetTable(service_pb2.GetTableRequest(table_id=table_id))
    assert not info.deal_chosen_by_creator


async def test_a_seat_of_an_open_table_gets_no_legal_moves(service: Service) -> None:
    stub = service.stub
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config("tablic", 2)))
    joined = await stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=created.table_id, name="ana")
    )
    request = service_pb2.GetLegalMovesRequest(table_id=created.table_id)
    answer = await stub.GetLegalMoves(request, metadata=seat_md(joined.seat_token))
    assert list(answer.moves) == []
    analyze = service_pb2.AnalyzeRequest(table_id=created.table_id)
    try:
        advice = await stub.Analyze(analyze, metadata=seat_md(joined.seat_token))
    except grpc.aio.AioRpcError as error:  # refused: fine, nothing shown
        assert error.code() != grpc.StatusCode.OK
    else:
        assert list(advice.moves) == []
