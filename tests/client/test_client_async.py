"""The async SDK against a real server on loopback: every call, errors, retries, resume."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from kafana.errors import IllegalMoveError, InvalidInputError, NotFoundError, NotYourTurnError
from kafana.games import tablic
from kafana.v1 import events_pb2, state_pb2
from kafana_client import (
    AsyncClient,
    AsyncSeat,
    ConnectOptions,
    LegalMoves,
    MatchOverRpcError,
    NotFoundRpcError,
    NotYourTurnRpcError,
    RefusedMoveError,
    Retry,
    SeatTakenRpcError,
    StaleStateError,
    UnauthenticatedError,
    UnavailableError,
    current_seat,
    rules_spec,
    table_config,
    view_of,
)
from kafana_client.errors import (
    InvalidArgumentError,
    MatchNotOverRpcError,
    PermissionDeniedRpcError,
)

from .kafana_client_live import LiveServer

SEED = 7


async def seated(client: AsyncClient, **config: Any) -> tuple[str, str, AsyncSeat, AsyncSeat]:
    """A new two-seat table with both seats taken: (table id, admin token, seat 0, seat 1)."""
    table = await client.create_table(table_config(seed=SEED, target=1, **config))
    alice = await client.join(table.table_id, name="alice")
    bob = await client.join(table.table_id, name="bob")
    return table.table_id, table.admin_token, alice, bob


def greediest(legal: LegalMoves) -> str:
    """The move taking the most cards (keeps the table small and the match short)."""
    return max(legal.moves, key=lambda m: len(m.tablic.captured)).text


async def play_out(seats: list[AsyncSeat], limit: int = 10_000) -> int:
    """Both seats play their first legal move until the match ends; returns moves played."""
    played = 0
    while played < limit:
        state = await seats[0].state()
        mover = current_seat(state)
        if mover is None:
            return played
        seat = seats[mover]
        await seat.play(greediest(await seat.legal_moves()))
        played += 1
    return played


async def test_create_join_state_moves_play_record(any_server: LiveServer) -> None:
    async with AsyncClient.connect(any_server.target) as client:
        await client.wait_ready()
        table_id, _admin, alice, bob = await seated(client, name="round one")
        assert (alice.seat, bob.seat) == (0, 1)
        assert alice.token and bob.token and alice.token != bob.token

        info = await client.get_table(table_id)
        assert info.status == state_pb2.TABLE_STATUS_PLAYING
        assert [s.name for s in info.seats] == ["alice", "bob"]
        listed = await client.list_tables(status=state_pb2.TABLE_STATUS_PLAYING)
        assert table_id in [t.table_id for t in listed]
        assert await client.list_tables(status=state_pb2.TABLE_STATUS_OPEN) == []

        mine = await alice.state()
        spectator = await client.get_state(table_id)
        expected = tablic.new_match(tablic.Rules.preset("serbian", target=1), seed=SEED)
        assert list(mine.tablic.hand) == [c.text for c in sorted(expected.hand(0))]
        assert list(spectator.tablic.hand) == [] and not spectator.tablic.HasField("seat")
        assert list(spectator.tablic.table) == [c.text for c in sorted(expected.table)]
        view = view_of(mine)
        assert view.seat == 0 and view.hand is not None and set(view.hand) == set(expected.hand(0))

        legal = await alice.legal_moves()
        assert legal.seq == mine.seq == alice.last_seq
        assert set(legal.parsed()) == set(expected.legal_moves())

        assert all(m.text and m.HasField("tablic") for m in legal.moves)  # both forms
        answer = await alice.play(legal.moves[0])  # sent back as listed: text and structured
        assert answer.event.kind == events_pb2.EVENT_KIND_MOVE
        assert answer.event.move.text == legal.moves[0].text
        assert answer.event.seq == legal.seq + 1 == alice.last_seq
        assert not answer.duplicate

        with pytest.raises(MatchNotOverRpcError):
            await client.record(table_id)
        moves = 1 + await play_out([alice, bob])
        record = await client.record(table_id)
        assert record.result.reason == state_pb2.RESULT_REASON_SCORE
        final = tablic.MatchRecord.from_text(record.record).replay()
        assert final.is_over and final.move_count == moves
        assert list(record.result.scores) == list(final.scores)
        assert [e.seq for e in record.events] == list(range(1, len(record.events) + 1))
        finished = await client.get_table(table_id)
        assert finished.status == state_pb2.TABLE_STATUS_FINISHED


async def test_errors_carry_code_and_message(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table_id, admin, alice, bob = await seated(client)
        state = await alice.state()
        hand = list(state.tablic.hand)
        on_table = list(state.tablic.table)

        with pytest.raises(RefusedMoveError) as refused:
            await alice.play(on_table[0])
        assert isinstance(refused.value, IllegalMoveError)
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "is not in the hand of seat 0" in refused.value.message

        with pytest.raises(RefusedMoveError, match="unknown card"):
            await alice.play("ZZ")

        idle = await bob.legal_moves()  # another seat's turn: nothing is legal for bob
        assert idle.moves == [] and idle.current_seat == 0
        with pytest.raises(NotYourTurnRpcError) as turn:
            await bob.play((await bob.state()).tablic.hand[0])
        assert isinstance(turn.value, NotYourTurnError)
        assert turn.value.code == grpc.StatusCode.FAILED_PRECONDITION

        await alice.play(hand[0], last_seq=state.seq)
        with pytest.raises(StaleStateError) as stale:
            await alice.play(hand[1], last_seq=state.seq)
        assert stale.value.state is not None and stale.value.state.seq == state.seq + 1

        with pytest.raises(UnauthenticatedError):
            await client.get_state(table_id, "not-a-token")
        with pytest.raises(PermissionDeniedRpcError):
            await client.get_state(table_id, admin)
        with pytest.raises(NotFoundRpcError) as missing:
            await client.get_state("nope")
        assert isinstance(missing.value, NotFoundError)
        with pytest.raises(SeatTakenRpcError):
            await client.join(table_id)
        with pytest.raises(InvalidInputError, match="unknown preset"):  # refused before sending
            await client.create_table(table_config(preset="no-such-preset"))
        with pytest.raises(InvalidArgumentError):  # the server checks the rules too
            await client.create_table(table_config(jack_value=99))


async def test_leave_close_and_captures(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        open_table = await client.create_table(table_config(seed=1))
        first = await client.join(open_table.table_id, name="a")
        seq = await first.leave()
        info = await client.get_table(open_table.table_id)
        assert info.seq == seq and not info.seats[0].taken
        again = await client.join(open_table.table_id, seat=0, name="b")
        assert again.seat == 0

        table_id, admin, alice, _bob = await seated(client)
        await alice.leave()
        record = await client.record(table_id)
        assert record.result.reason == state_pb2.RESULT_REASON_FORFEIT
        assert record.result.forfeit_seat == 0
        assert record.result.forfeit_reason == state_pb2.EVENT_REASON_LEFT

        await client.close_table(open_table.table_id, open_table.admin_token)
        closed = await client.record(open_table.table_id)
        assert closed.result.reason == state_pb2.RESULT_REASON_CLOSED
        with pytest.raises(MatchOverRpcError):
            await client.close_table(table_id, admin)

        assert await client.captures("KC", ["KD", "KH"]) == [["KD"], ["KH"], ["KD", "KH"]]
        assert await client.captures("9H", ["5S", "4D", "8C"]) == [["4D", "5S"]]
        wild = rules_spec(preset="wild_jack")
        assert await client.captures("JC", ["2C", "9D"], wild) == [["2C", "9D"]]


async def test_duplicate_move_id_applies_once(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table_id, _admin, alice, _bob = await seated(client)
        legal = await alice.legal_moves()
        first = await alice.play(legal.moves[0].text, client_move_id="m-1")
        retry = await alice.play(legal.moves[0].text, client_move_id="m-1", last_seq=legal.seq)
        assert retry.duplicate and retry.event.seq == first.event.seq
        info = await client.get_table(table_id)
        assert info.seq == first.event.seq


class LoseFirstAnswer(grpc.aio.UnaryUnaryClientInterceptor):
    """Lets the first PlayMove reach the server, then reports UNAVAILABLE: a lost answer."""

    def __init__(self) -> None:
        self.lost = 0

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(details, request)
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        if method.endswith("/PlayMove") and self.lost == 0:
            await call
            self.lost += 1
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details="connection lost (test)",
            )
        return call


async def test_play_retries_a_lost_answer_with_the_same_move_id(server: LiveServer) -> None:
    lose = LoseFirstAnswer()
    options = ConnectOptions(server.target, retry=Retry(attempts=3, backoff=0.01))
    channel = grpc.aio.insecure_channel(server.target, interceptors=[lose])
    async with AsyncClient(options, channel) as client:
        table_id, _admin, alice, _bob = await seated(client)
        legal = await alice.legal_moves()
        answer = await alice.play(legal.moves[0].text)
        assert lose.lost == 1
        assert answer.duplicate and answer.event.move.text == legal.moves[0].text
        info = await client.get_table(table_id)
        assert info.seq == legal.seq + 1  # applied once


async def test_play_retries_while_the_server_is_down(any_server: LiveServer) -> None:
    options = ConnectOptions(
        any_server.target, retry=Retry(attempts=20, backoff=0.05, max_backoff=0.2)
    )
    async with AsyncClient(options) as client:
        _table_id, _admin, alice, _bob = await seated(client)
        legal = await alice.legal_moves()
        await asyncio.to_thread(any_server.stop)
        playing = asyncio.create_task(alice.play(legal.moves[0].text))
        await asyncio.sleep(0.3)
        assert not playing.done()
        await asyncio.to_thread(any_server.start)
        answer = await asyncio.wait_for(playing, 10)
        assert answer.event.seq == legal.seq + 1 and not answer.duplicate


class CountStreams(grpc.aio.UnaryStreamClientInterceptor):
    """Counts the event streams opened (and the after_seq each one asked for)."""

    def __init__(self) -> None:
        self.after: list[int] = []

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        self.after.append(request.after_seq)
        return await continuation(details, request)


async def test_dropped_stream_resumes_without_loss_or_repeats(any_server: LiveServer) -> None:
    options = ConnectOptions(
        any_server.target, retry=Retry(attempts=20, backoff=0.05, max_backoff=0.2)
    )
    streams = CountStreams()
    channel = grpc.aio.insecure_channel(any_server.target, interceptors=[streams])
    async with AsyncClient(options) as players, AsyncClient(options, channel) as watcher:
        table_id, _admin, alice, bob = await seated(players)
        seen: list[int] = []
        dropped = asyncio.Event()

        async def watch() -> None:
            async for event in watcher.watch(table_id):
                seen.append(event.seq)
                if event.seq == 10:
                    dropped.set()

        watching = asyncio.create_task(watch())
        for _ in range(8):  # events 3..10
            state = await alice.state()
            mover = [alice, bob][current_seat(state) or 0]
            await mover.play(greediest(await mover.legal_moves()))
        await asyncio.wait_for(dropped.wait(), 10)
        await asyncio.to_thread(any_server.restart)  # every open stream is cut here
        await play_out([alice, bob])
        await asyncio.wait_for(watching, 20)

        record = await players.record(table_id)
        assert streams.after[0] == 0 and len(streams.after) >= 2  # it did drop and reopen
        assert streams.after[1] >= 10  # and resumed after what it had delivered
        assert seen == [e.seq for e in record.events]
        assert seen == list(range(1, len(seen) + 1))


async def test_seat_events_resume_from_a_given_sequence(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table_id, _admin, alice, bob = await seated(client)
        await play_out([alice, bob], limit=6)
        first: list[int] = []
        async for event in alice.events():
            first.append(event.seq)
            assert event.state.tablic.seat == 0 and len(event.state.tablic.hand) >= 0
            if event.seq == 5:
                break
        rest = [e.seq async for e in _take(alice.events(after_seq=first[-1]), 3)]
        assert first == [1, 2, 3, 4, 5] and rest == [6, 7, 8]
        assert table_id


async def _take(stream: Any, count: int) -> Any:
    taken = 0
    async for item in stream:
        yield item
        taken += 1
        if taken == count:
            return


async def test_a_stream_gives_up_when_the_server_stays_away(server: LiveServer) -> None:
    options = ConnectOptions(server.target, retry=Retry(stream_attempts=3, backoff=0.01))
    async with AsyncClient(options) as client:
        table_id, _admin, _alice, _bob = await seated(client)
        seen: list[int] = []
        with pytest.raises(UnavailableError):
            async for event in client.watch(table_id):
                seen.append(event.seq)
                if event.seq == 2:
                    await asyncio.to_thread(server.stop)
        assert seen == [1, 2]


async def test_heartbeats_keep_a_quiet_feed_open_and_are_never_told(redis_url: str) -> None:
    live = LiveServer(redis_url, heartbeat_s=0.25)  # 0.1: a loaded CI run went 0.3 s silent
    streams = CountStreams()
    try:
        channel = grpc.aio.insecure_channel(live.target, interceptors=[streams])
        async with AsyncClient(ConnectOptions(live.target), channel) as client:
            assert (await client.server_info()).limits.heartbeat_millis == 250
            table = await client.create_table(table_config(seed=SEED))
            await client.join(table.table_id, name="alone")  # the match never starts
            told: list[int] = []

            async def watch() -> None:
                async for event in client.watch(table.table_id):
                    told.append(event.seq)

            watching = asyncio.create_task(watch())
            await asyncio.sleep(2.0)  # eight heartbeat periods with nothing to tell
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
    finally:
        await asyncio.to_thread(live.close)
    assert told == [1]  # the seat taken; no heartbeat passed on as an event
    assert streams.after == [0]  # alive all along: never reopened


async def test_a_slim_seat_feed_carries_what_changed(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        _table_id, _admin, alice, bob = await seated(client)
        await play_out([alice, bob], limit=1)
        events = [e async for e in _take(alice.events(with_state=False), 3)]
    started, moved = events[1], events[2]
    assert not any(e.HasField("state") for e in events)  # nothing but what changed
    expected = tablic.new_match(tablic.Rules.preset("serbian", target=1), seed=SEED)
    assert started.match_started and started.current_seat == 0
    assert sorted(started.deal.hand) == sorted(c.text for c in expected.hand(0))  # alice's own
    assert sorted(started.deal.table) == sorted(c.text for c in expected.table)
    assert moved.kind == events_pb2.EVENT_KIND_MOVE and moved.current_seat == 1
    assert moved.reason == state_pb2.EVENT_REASON_PLAYED and alice.last_seq >= 3


async def test_analyze_live_for_the_seat_and_as_a_review_without_a_token(
    server: LiveServer,
) -> None:
    async with AsyncClient.connect(server.target) as client:
        config = table_config(seed=SEED, target=1)
        config.hints = True
        table = await client.create_table(config)
        alice = await client.join(table.table_id, name="alice")
        bob = await client.join(table.table_id, name="bob")
        legal = await alice.legal_moves()
        advice = await alice.analyze(budget_ms=50)  # the seat's token goes with the call
        assert advice.seat == 0 and advice.seq == legal.seq
        assert sorted(m.move.text for m in advice.moves) == sorted(legal.texts())
        assert advice.best.text in legal.texts()
        with pytest.raises(NotYourTurnRpcError):
            await bob.analyze(budget_ms=50)
        first = await alice.play(advice.best.text)
        await play_out([alice, bob])
        review = await client.analyze(  # no token: a finished match's review
            table.table_id, budget_ms=50, at_seq=legal.seq, seat=0
        )
        assert review.played.text == advice.best.text == first.event.move.text
        assert [m.cost for m in review.moves if m.move.text == review.best.text] == [0.0]
