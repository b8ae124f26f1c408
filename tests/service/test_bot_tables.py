"""Built-in bots at a table in one call (TableConfig.bots): both games, bad lists refused with
nothing written, and a bot table played on by another process when its process is killed."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from signal import SIGKILL

import grpc
import pytest
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc, state_pb2
from kit import (
    Service,
    finished,
    healthy,
    info_metadata,
    refusal,
    retry_delay_ms,
    running,
    seat_md,
    serve,
)

pytestmark = pytest.mark.usefixtures("service")
TABLIC = rules_pb2.GAME_TABLIC
TAC = rules_pb2.GAME_TAC


def _config(game: int, bots: dict[int, str], **options: str) -> rules_pb2.TableConfig:
    config = rules_pb2.TableConfig(rules=rules_pb2.RulesSpec(game=game))
    for seat, name in bots.items():
        config.bots.add(seat=seat, bot=name, options=options)
    return config


async def _play_person(
    stub: service_pb2_grpc.KafanaServiceStub, table_id: str, token: str, seat: int, stop: int = 0
) -> int:
    """Random legal moves for `seat` until the match ends (or `stop` moves); moves played."""
    rng = random.Random(seat)
    played = 0
    while not stop or played < stop:
        state = await stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
            return played
        legal = await stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
        )
        if not legal.moves or legal.current_seat != seat:
            await asyncio.sleep(0.02)
            continue
        move = rng.choice(list(legal.moves))
        try:
            await stub.PlayMove(
                service_pb2.PlayMoveRequest(
                    table_id=table_id, move=move, client_move_id=f"p{legal.seq}", last_seq=legal.seq
                ),
                metadata=seat_md(token),
            )
            played += 1
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
    return played


@pytest.mark.parametrize(("game", "bot"), [(TABLIC, "greedy"), (TAC, "loader")])
async def test_one_call_seats_a_bot_that_plays_the_match_through(
    service: Service, game: int, bot: str
) -> None:
    created = await service.stub.CreateTable(
        service_pb2.CreateTableRequest(config=_config(game, {1: bot}))
    )
    seats = created.info.seats
    assert [s.bot for s in seats] == ["", bot] and [s.taken for s in seats] == [False, True]
    joined = await service.stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=created.table_id, name="ana")
    )
    assert joined.seat == 0
    assert await _play_person(service.stub, created.table_id, joined.seat_token, 0) > 5
    state = await finished(service, created.table_id)
    assert state.result.reason in (state_pb2.RESULT_REASON_SCORE, state_pb2.RESULT_REASON_OUT)
    record = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=created.table_id))
    assert {e.seat for e in record.events if e.move.text} == {0, 1}


async def test_a_table_of_bots_plays_itself_to_the_end(service: Service) -> None:
    config = _config(TABLIC, {0: "greedy", 1: "ismcts"}, budget_ms="5")
    config.bots[0].ClearField("options")
    created = await service.stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    state = await finished(service, created.table_id, within=120)
    assert state.result.reason == state_pb2.RESULT_REASON_SCORE


async def test_a_table_of_bots_only_is_paced_after_a_burst(redis_url: str) -> None:
    # at full speed a table of two random bots to 100,000 points ran 2,600 moves/s, 84% of a
    # core, for minutes (a review): nobody waits for it, so it plays a burst, then a pace
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, bot_pace=RateLimit(rate=20.0, burst=30.0)) as svc:
            config = _config(TABLIC, {0: "random", 1: "random"})
            config.rules.tablic.target = 100_000
            made = await svc.stub.CreateTable(service_pb2.CreateTableRequest(config=config))
            mixed = await svc.stub.CreateTable(
                service_pb2.CreateTableRequest(config=_config(TABLIC, {1: "random"}))
            )
            started = time.monotonic()
            await asyncio.sleep(2.0)
            state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=made.table_id))
            elapsed = time.monotonic() - started
            moves = state.seq - 2  # the bots' two joins
            assert 30 < moves <= 30 + 20 * elapsed + 2, (moves, elapsed)
            assert moves >= 30 + 20 * 1.0  # paced, not stopped
            # a table with a person's seat plays at the person's pace, never the bots'
            joined = await svc.stub.JoinTable(
                service_pb2.JoinTableRequest(table_id=mixed.table_id, name="ana")
            )
            played = await _play_person(svc.stub, mixed.table_id, joined.seat_token, 0)
            assert (await finished(svc, mixed.table_id)).info.seq > 30 + 20 * 2
            assert played > 5
    finally:
        await store.close()


async def test_a_caller_has_few_tables_of_bots_only_open(service: Service) -> None:
    bots_only = _config(TABLIC, {0: "random", 1: "random"})
    bots_only.rules.tablic.target = 100_000  # still playing when the next is asked for
    for _ in range(4):
        await service.stub.CreateTable(service_pb2.CreateTableRequest(config=bots_only))
    error = await refusal(
        service.stub.CreateTable(service_pb2.CreateTableRequest(config=bots_only))
    )
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 4 tables of built-in bots only per caller" in (error.details() or "")
    assert info_metadata(error).get("quota") == "open_bot_tables"
    assert retry_delay_ms(error)
    listed = await service.stub.ListTables(service_pb2.ListTablesRequest())
    assert len(listed.tables) == 4  # the refused one left nothing behind
    # a table with a seat for a person is not one of them
    await service.stub.CreateTable(
        service_pb2.CreateTableRequest(config=_config(TABLIC, {1: "random"}))
    )


@pytest.mark.parametrize(
    ("bots", "options", "field", "words"),
    [
        ({2: "greedy"}, {}, "bots.seat", "does not exist"),
        ({1: "alphazero"}, {}, "bots.bot", "unknown bot"),
        ({1: "oracle"}, {}, "bots.bot", "arena"),
        ({1: "ismcts"}, {"budget_ms": "-1"}, "bots.options", "over 0"),
        ({1: "ismcts"}, {"budget_ms": "1e309"}, "bots.options", "over 0"),
        ({1: "ismcts"}, {"depth": "3"}, "bots.options", "no option"),
        # the server thinks for its bots: 1e6 ms a move ran a core for good (a review)
        ({1: "ismcts"}, {"budget_ms": "1000000"}, "bots.options", "at most 1000 at a server"),
        ({1: "ismcts"}, {"iterations": "50000"}, "bots.options", "at most 20000 at a server"),
        ({1: "greedy"}, {"budget_ms": "9"}, "bots.options", "no option"),
    ],
)
async def test_a_bad_bot_list_is_refused_and_nothing_is_created(
    service: Service, bots: dict[int, str], options: dict[str, str], field: str, words: str
) -> None:
    before = await service.stub.ListTables(service_pb2.ListTablesRequest())
    error = await refusal(
        service.stub.CreateTable(
            service_pb2.CreateTableRequest(config=_config(TABLIC, bots, **options))
        )
    )
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info_metadata(error).get("field") == field
    assert words in (error.details() or "")
    after = await service.stub.ListTables(service_pb2.ListTablesRequest())
    assert len(after.tables) == len(before.tables)


async def test_two_bots_on_one_seat_are_refused(service: Service) -> None:
    config = _config(TABLIC, {1: "greedy"})
    config.bots.add(seat=1, bot="random")
    error = await refusal(service.stub.CreateTable(service_pb2.CreateTableRequest(config=config)))
    assert info_metadata(error).get("field") == "bots.seat"


async def test_another_process_plays_the_bots_on_when_theirs_is_killed(
    tmp_path: Path, redis_url: str
) -> None:
    servers = [serve(tmp_path, "--redis", redis_url, "--auth", "open") for _ in range(2)]
    try:
        for server in servers:
            server.wait_started()
            await healthy(server.target)
        first, second = (grpc.aio.insecure_channel(s.target) for s in servers)
        a = service_pb2_grpc.KafanaServiceStub(first)
        b = service_pb2_grpc.KafanaServiceStub(second)
        created = await a.CreateTable(
            service_pb2.CreateTableRequest(config=_config(TABLIC, {1: "greedy"}))
        )
        joined = await b.JoinTable(
            service_pb2.JoinTableRequest(table_id=created.table_id, name="ana")
        )
        assert await _play_person(b, created.table_id, joined.seat_token, 0, stop=4) == 4
        servers[0].stop(SIGKILL)  # the process that seated (and plays) the bot
        await first.close()
        played = await _play_person(b, created.table_id, joined.seat_token, 0)
        assert played > 4
        state = await b.GetState(service_pb2.GetStateRequest(table_id=created.table_id))
        assert state.result.reason == state_pb2.RESULT_REASON_SCORE
        await second.close()
    finally:
        for server in servers:
            server.end()
