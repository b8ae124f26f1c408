"""The fault policy every table enforces (ClockSpec), on a real server and Redis.

Illegal moves counted and forfeited, the N-th timeout forfeiting, no-shows, nobody showing up,
and a dead seat (its stream closed, no calls) disconnected after the grace.
"""

from __future__ import annotations

import asyncio
import time

import grpc
from kafana.competitions.policy import Reason
from kafana.competitions.table_results import table_faults
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2
from kit import Service, finished, refusal, running, seat_md

FORFEIT = events_pb2.EVENT_KIND_FORFEIT
R = state_pb2  # the EventReason values: R.EVENT_REASON_TIMEOUT ...


def table_config(**clock: int) -> rules_pb2.TableConfig:
    """A two-player Tablić table to 11 with the given clock fields."""
    return rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(
            game=rules_pb2.GAME_TABLIC, players=2, tablic=rules_pb2.TablicRules(target=11)
        ),
        clock=rules_pb2.ClockSpec(**clock),
        name="faults",
        seed=11,
    )


async def opened(svc: Service, config: rules_pb2.TableConfig) -> tuple[str, list[str]]:
    """Create the table and take both seats; its id and the seat tokens."""
    made = await svc.stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    tokens = []
    for seat in range(2):
        joined = await svc.stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=made.table_id, seat=seat, name=f"p{seat}")
        )
        tokens.append(joined.seat_token)
    return made.table_id, tokens


async def record(svc: Service, table_id: str) -> service_pb2.GetRecordResponse:
    """The finished table's record and events."""
    answer: service_pb2.GetRecordResponse = await svc.stub.GetRecord(
        service_pb2.GetRecordRequest(table_id=table_id)
    )
    return answer


async def test_an_illegal_move_spammer_forfeits_with_reason_illegal_move(service: Service) -> None:
    table_id, tokens = await opened(service, table_config(illegal_limit=3))
    state = await service.stub.GetState(
        service_pb2.GetStateRequest(table_id=table_id), metadata=seat_md(tokens[0])
    )
    moves = []
    for attempt in range(3):
        error = await refusal(
            service.stub.PlayMove(
                service_pb2.PlayMoveRequest(
                    table_id=table_id,
                    move=state_pb2.Move(text="XX"),
                    last_seq=state.seq,
                    client_move_id=f"bad-{attempt}",
                ),
                metadata=seat_md(tokens[0]),
            )
        )
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        moves.append(error.details() or "")
        if attempt < 2:  # refused, counted, the match goes on
            again = await service.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
            assert again.info.status == state_pb2.TABLE_STATUS_PLAYING
    assert "forfeits the match after 3 illegal moves" in moves[-1], moves
    over = await finished(service, table_id, within=1)
    assert over.result.reason == state_pb2.RESULT_REASON_FORFEIT and over.result.forfeit_seat == 0
    assert over.result.winner_side == 1
    answer = await record(service, table_id)
    last = answer.events[-1]
    assert (last.kind, last.seat, last.reason) == (FORFEIT, 0, R.EVENT_REASON_ILLEGAL_MOVE)
    assert [f.code() for f in table_faults(list(answer.events), [])] == [
        "seat0:illegal_move->forfeit_match@0"
    ]


async def test_the_nth_timeout_forfeits_with_reason_timeouts(service: Service) -> None:
    table_id, _tokens = await opened(
        service, table_config(move_millis=200, forfeit_after_timeouts=2)
    )
    await finished(service, table_id)
    answer = await record(service, table_id)
    kinds = [(e.kind, e.seat, e.reason) for e in answer.events if e.seq > 2]
    move = events_pb2.EVENT_KIND_MOVE
    # seat 0 and seat 1 each time out once (default moves), seat 0's second is a forfeit
    assert kinds == [
        (move, 0, R.EVENT_REASON_TIMEOUT),
        (move, 1, R.EVENT_REASON_TIMEOUT),
        (FORFEIT, 0, R.EVENT_REASON_TIMEOUTS),
    ]
    codes = [f.code() for f in table_faults(list(answer.events), [])]
    assert codes[-1] == "seat0:timeouts->forfeit_match@2", codes
    assert answer.result.forfeit_seat == 0


async def test_a_seat_that_never_shows_up_forfeits_with_reason_no_show(service: Service) -> None:
    table_id, tokens = await opened(service, table_config(no_show_millis=600))
    # seat 1 shows up (a call with its token); seat 0 never does
    await service.stub.GetState(
        service_pb2.GetStateRequest(table_id=table_id), metadata=seat_md(tokens[1])
    )
    started = time.monotonic()
    over = await finished(service, table_id)
    assert time.monotonic() - started >= 0.3  # not before the no-show time
    assert over.result.reason == state_pb2.RESULT_REASON_FORFEIT and over.result.forfeit_seat == 0
    answer = await record(service, table_id)
    assert (answer.events[-1].kind, answer.events[-1].reason) == (FORFEIT, R.EVENT_REASON_NO_SHOW)
    faults = table_faults(list(answer.events), [])
    assert [(f.seat, f.reason) for f in faults] == [(0, Reason.NO_SHOW)]


async def test_nobody_showing_up_ends_the_match_with_no_result(service: Service) -> None:
    made = await service.stub.CreateTable(
        service_pb2.CreateTableRequest(config=table_config(no_show_millis=500))
    )  # nobody even sits down
    over = await finished(service, made.table_id)
    assert over.result.reason == state_pb2.RESULT_REASON_NO_SHOW and not over.result.HasField(
        "winner_side"
    )
    assert "no seat showed up" in over.result.detail
    answer = await record(service, made.table_id)
    assert (answer.events[-1].kind, answer.events[-1].reason) == (
        events_pb2.EVENT_KIND_CLOSED,
        R.EVENT_REASON_NO_SHOW,
    )
    codes = [f.code() for f in table_faults(list(answer.events), [], seats=2)]
    assert codes == ["seat0:no_show->forfeit_match@0", "seat1:no_show->forfeit_match@0"]


async def watch(svc: Service, table_id: str, token: str) -> None:
    """Hold the seat's event stream open until cancelled (a live bot waiting)."""
    request = service_pb2.WatchEventsRequest(table_id=table_id)
    async for _item in svc.stub.WatchEvents(request, metadata=seat_md(token)):
        pass


async def test_a_dead_seat_forfeits_after_the_grace_on_any_process(redis_url: str) -> None:
    grace = 800
    config = table_config(
        disconnect_grace_millis=grace, on_disconnect=rules_pb2.TIMEOUT_POLICY_FORFEIT
    )
    stores = [RedisStore.from_url(redis_url) for _ in range(2)]
    try:
        async with running(stores[0]) as one, running(stores[1]) as two:
            table_id, tokens = await opened(one, config)
            # each seat streams from another process; either process's clock may check them
            streams = [
                asyncio.create_task(watch(svc, table_id, t))
                for svc, t in zip((one, two), tokens, strict=True)
            ]
            try:
                await asyncio.sleep(grace * 3 / 1000)  # both present: nobody forfeits
                state = await two.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
                assert state.info.status == state_pb2.TABLE_STATUS_PLAYING
                streams[0].cancel()  # seat 0 (to move) dies: its stream closes, no more calls
                died = time.monotonic()
                over = await finished(two, table_id, within=10)
                waited = time.monotonic() - died
            finally:
                for stream in streams:
                    stream.cancel()
                await asyncio.gather(*streams, return_exceptions=True)
            assert waited >= grace / 1000, waited
            assert over.result.forfeit_seat == 0 and over.result.winner_side == 1
            answer = await record(one, table_id)
    finally:
        for store in stores:
            await store.close()
    assert (answer.events[-1].kind, answer.events[-1].reason) == (
        FORFEIT,
        R.EVENT_REASON_DISCONNECT,
    )
    codes = [f.code() for f in table_faults(list(answer.events), [])]
    assert codes == ["seat0:disconnect->forfeit_match@0"]


async def play_first(svc: Service, table_id: str, token: str) -> None:
    """The seat plays its first legal move."""
    legal = await svc.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
    )
    await svc.stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=table_id,
            move=legal.moves[0],
            last_seq=legal.seq,
            client_move_id=f"first-{legal.seq}",
        ),
        metadata=seat_md(token),
    )


async def reach(svc: Service, table_id: str, seq: int, within: float = 10.0) -> int:
    """Wait until the table is at `seq` or later; its seq."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        if state.seq >= seq:
            return int(state.seq)
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} did not reach {seq}")


async def test_a_disconnected_seat_gets_default_moves_until_it_is_back(service: Service) -> None:
    table_id, tokens = await opened(service, table_config(disconnect_grace_millis=500))
    streams = [asyncio.create_task(watch(service, table_id, tokens[1]))]  # seat 0 never comes
    try:
        await reach(service, table_id, 3)  # seat 0's turn played for it
        await play_first(service, table_id, tokens[1])
        await reach(service, table_id, 5)  # and again
        streams.append(asyncio.create_task(watch(service, table_id, tokens[0])))  # it is back
        await asyncio.sleep(0.3)
        await play_first(service, table_id, tokens[1])
        await asyncio.sleep(1.5)  # present: its turn waits for it
        state = await service.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        assert state.seq == 6 and state.current_seat == 0
    finally:
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    events = await take(service, table_id, 2)
    said = [(e.seat, e.reason) for e in events]
    away, played = R.EVENT_REASON_DISCONNECT, R.EVENT_REASON_PLAYED
    assert said == [(0, away), (1, played), (0, away), (1, played)], said
    codes = [f.code() for f in table_faults(events, [])]
    assert codes == ["seat0:disconnect->default_move@0"]  # one fault for the one absence


async def take(svc: Service, table_id: str, after: int) -> list[events_pb2.Event]:
    """The events after `after` that are there now."""
    out = []
    call = svc.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id, after_seq=after))
    state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
    async for item in call:
        if item.WhichOneof("item") != "event":
            continue
        out.append(item.event)
        if item.event.seq >= state.seq:
            break
    call.cancel()
    return out


async def test_presence_writes_a_seat_at_most_once_a_second_per_process(
    redis_store: RedisStore,
) -> None:
    from kafana.service.presence import Presence

    presence = Presence(redis_store.counters)
    clock = rules_pb2.ClockSpec(disconnect_grace_millis=5000)
    for ms in range(0, 1000, 10):  # 100 calls in one second: the first sighting's two writes
        await presence.mark("t1", 0, 2, clock, ms)
    assert presence.writes == 2
    await presence.mark("t1", 0, 2, clock, 1000)  # a second later: the lease again
    assert presence.writes == 3
    await presence.mark("t2", 0, 2, rules_pb2.ClockSpec(move_millis=100), 0)  # nothing checks it
    assert presence.writes == 3
    seen = await presence.seen("t1", 2000)
    assert seen.ever == {0} and seen.recent == {0}
    assert (await presence.seen("t1", 9000)).recent == frozenset()  # grace + 2 s after: lapsed


async def test_event_tables_follow_the_events_game_seats_and_policy(service: Service) -> None:
    from kafana.competitions.policy import Action, FaultPolicy
    from kafana.competitions.table_results import game_table_config
    from kafana.competitions.tournament import EventConfig, Kind, Tournament

    policy = FaultPolicy(
        move_ms=900, timeouts_to_forfeit=3, disconnect_grace_ms=700, no_show_ms=4000
    )
    names = ("a", "b", "c", "d")
    for game, players, partnerships in (
        ("tac", 4, False),
        ("tablic", 4, True),
        ("tablic", 3, False),
    ):
        wanted = rules_pb2.GAME_TAC if game == "tac" else rules_pb2.GAME_TABLIC
        config = EventConfig(
            "e", Kind.ROUND_ROBIN, names, game=game, players=players,
            partnerships=partnerships, policy=policy,
        )  # fmt: skip
        t = Tournament(config)
        spec = t.next_round()[0]
        table = game_table_config(spec, t.seed_of(spec.game_id), t)
        made = await service.stub.CreateTable(service_pb2.CreateTableRequest(config=table))
        rules = made.info.rules
        assert (rules.game, rules.players, rules.partnerships) == (wanted, players, partnerships)
        assert rules.WhichOneof("variant") == game  # the rules in force: the game's branch
        clock = made.info.clock
        assert (clock.move_millis, clock.forfeit_after_timeouts) == (900, 3)
        assert (clock.disconnect_grace_millis, clock.no_show_millis) == (700, 4000)
        assert clock.on_disconnect == rules_pb2.TIMEOUT_POLICY_FORFEIT
        assert clock.illegal_limit == 3  # the policy's default, forfeiting
    hand = game_table_config(spec, 1, Tournament(
        EventConfig("h", Kind.ROUND_ROBIN, names, policy=FaultPolicy(
            on_timeout=Action.FORFEIT_HAND, on_disconnect=Action.DEFAULT_MOVE))
    ))  # fmt: skip
    assert hand.clock.policy == rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE  # the referee's part
    assert hand.clock.on_disconnect == rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
