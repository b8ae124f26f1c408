"""Hosted events: duplicate boards, bad input, organiser controls, the fault policy."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment, deal_seed
from kafana.competitions.verify import verify
from kafana.games.tablic import MatchRecord, shuffled_deck
from kafana.v1 import competitions_pb2 as pb
from kafana_client import (
    AsyncClient,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundRpcError,
    UnauthenticatedError,
)
from kafana_client.errors import AlreadyExistsRpcError
from kafana_client.tournaments import Tournaments
from kit import reason_of, refusal

from .hosted_helpers import Served, games, until


async def test_hosted_duplicate_plays_identical_decks_at_both_tables(
    hosted: Served,
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            "dup", "duplicate", rounds=1, boards=2, hands_per_board=3, target=31
        )
        for name, bot in (("ana", "greedy"), ("bob", "heuristic"), ("cid", "random")):
            await events.enter(made.event_id, name, bot=bot)
        await events.enter(made.event_id, "dan", bot="greedy")
        await events.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    played = games(info)
    assert len(info.rounds) == 1 and len(played) == 4  # 2 boards x 2 tables
    by_board: dict[int, list[pb.GameInfo]] = {}
    for g in played:
        assert g.ending == pb.GAME_ENDING_SCORE and check_commitment(g.secret, g.commitment)
        assert verify(FairRecord.from_text(g.record)).finished
        by_board.setdefault(g.board, []).append(g)
    decks = {}
    for board, (one, two) in sorted(by_board.items()):
        assert set(two.seats).isdisjoint(one.seats) and one.secret == two.secret
        a, b = (MatchRecord.from_text(FairRecord.from_text(g.record).record) for g in (one, two))
        assert a.decks == b.decks  # the same cards, as the server dealt them
        assert a.decks == tuple(shuffled_deck(deal_seed(one.secret), k) for k in range(3))
        decks[board] = a.decks
    assert decks[1] != decks[2]
    assert sum(s.points for s in info.standings) == 4  # a point per compared pair, 2 a board


async def test_bad_input_is_refused_and_changes_nothing(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        with pytest.raises(ValueError, match="unknown event_format 'knockout'"):
            await events.create("x", "knockout")  # the SDK knows the formats
        for bad, said in (
            (pb.CreateEventRequest(name="x"), "unknown event format 0"),  # no format
            (pb.CreateEventRequest(name="x", format=99), "format = 99"),  # type: ignore[arg-type]
        ):
            refused = await refusal(events._stub.CreateEvent(bad))
            assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(refused) == "INVALID_ARGUMENT" and said in str(refused.details())
        with pytest.raises(InvalidArgumentError, match="2, 3 or 4"):
            await events.create("x", "swiss", seats_per_game=5)
        with pytest.raises(InvalidArgumentError, match="set chosen_seed"):
            await events.create("x", "swiss", seed=7)
        with pytest.raises(ValueError, match="unknown fault_action 'shrug'"):
            await events.create("x", "swiss", on_timeout="shrug")
        with pytest.raises(ValueError, match="unknown tablic_preset 'nope'"):
            await events.create("x", "swiss", preset="nope")
        assert await events.list() == []  # nothing was created
        made = await events.create("open", "round_robin", target=11)
        event_id, token = made.event_id, made.organiser_token

        with pytest.raises(InvalidArgumentError, match="unknown bot 'deep-blue'"):
            await events.enter(event_id, "x", bot="deep-blue")
        with pytest.raises(InvalidArgumentError, match="no spaces"):
            await events.enter(event_id, "two words")
        with pytest.raises(NotFoundRpcError, match="no event"):
            await events.enter("ev-missing", "x")
        await events.enter(event_id, "ana", bot="greedy")
        with pytest.raises(AlreadyExistsRpcError, match="already has an entrant named 'ana'"):
            await events.enter(event_id, "ana")
        with pytest.raises(FailedPreconditionError, match="two entrants"):
            await events.start(event_id, token)
        assert [e.name for e in (await events.get(event_id)).entrants] == ["ana"]

        await events.enter(event_id, "bob", bot="random")
        with pytest.raises(UnauthenticatedError, match="organiser"):
            await events.start(event_id, "not-the-token")
        with pytest.raises(UnauthenticatedError):
            await events.pause(event_id, "")
        assert (await events.get(event_id)).phase == pb.EVENT_PHASE_OPEN
        with pytest.raises(FailedPreconditionError, match="not running"):
            await events.pause(event_id, token)
        await events.start(event_id, token)
        with pytest.raises(FailedPreconditionError, match="has started: entries are closed"):
            await events.enter(event_id, "cid", bot="greedy")
        with pytest.raises(FailedPreconditionError, match="already started"):
            await events.start(event_id, token)
        info = await events.get(event_id)
        assert [e.name for e in info.entrants] == ["ana", "bob"]
        with pytest.raises(UnauthenticatedError, match="entry token"):
            async for _ in events.watch_entry(event_id, "nope"):
                pass


async def test_organiser_pauses_adjudicates_and_ends(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("ctl", "round_robin", target=11)
        event_id, token = made.event_id, made.organiser_token
        idle = [await events.enter(event_id, n) for n in ("ann", "ben")]  # enter, never play
        for name in ("cat", "dan"):
            await events.enter(event_id, name, bot="greedy")
        assert all(e.token for e in idle)
        await events.start(event_id, token)

        async def get() -> pb.EventInfo:
            return await events.get(event_id)

        info = await until(get, lambda i: len(i.rounds) == 1 and all(g.table_id for g in games(i)))
        stuck = [g for g in games(info) if {"ann", "ben"} & set(g.seats)]
        assert stuck and all(g.status == pb.GAME_STATUS_PLAYING for g in stuck)
        paused = await events.pause(event_id, token, note="lunch")
        assert paused.note == "lunch"
        info = await until(get, lambda i: i.status == pb.EVENT_STATUS_PAUSED)
        with pytest.raises(UnauthenticatedError):
            await events.resume(event_id, "x")
        await events.adjudicate(event_id, token, stuck[0].game_id, 1, note="no show")
        with pytest.raises(NotFoundRpcError, match="no game 'r9-g9'"):
            await events.adjudicate(event_id, token, "r9-g9", 0)
        info = await until(
            get, lambda i: games(i)[0].status != pb.GAME_STATUS_WAITING and _done(i, stuck[0])
        )
        decided = next(g for g in games(info) if g.game_id == stuck[0].game_id)
        assert decided.ending == pb.GAME_ENDING_ADJUDICATED and decided.winner == 1
        assert [f.code for f in decided.faults] == ["seat0:adjudicated->forfeit_match@0"]
        table = await client.get_table(decided.table_id)
        assert table.status == 3  # TABLE_STATUS_FINISHED: the organiser's decision closed it
        await events.resume(event_id, token)
        with pytest.raises(FailedPreconditionError, match="running"):
            await events.resume(event_id, token)
        await events.end(event_id, token, note="venue closes")
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    assert info.status == pb.EVENT_STATUS_ENDED and len(info.rounds) == 1
    for g in games(info):
        if g.game_id != decided.game_id and {"ann", "ben"} & set(g.seats):
            assert g.ending == pb.GAME_ENDING_NOT_PLAYED and "event_ended" in g.faults[0].code
    assert "ctl" in info.report


def _done(info: pb.EventInfo, game: pb.GameInfo) -> bool:
    return any(g.game_id == game.game_id and g.status == pb.GAME_STATUS_DONE for g in games(info))


POLICIES = [("forfeit_hand", "score"), ("forfeit_match", "forfeit")]


@pytest.mark.parametrize(("policy", "ending"), POLICIES)
async def test_a_timing_out_entrant_gets_the_events_policy(
    hosted: Served, policy: str, ending: str
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            f"slow-{policy}",
            "round_robin",
            target=21,
            seed=3,
            chosen_seed=True,
            move_ms=1500,
            on_timeout=policy,
        )
        await events.enter(made.event_id, "fast", bot="greedy")
        await events.enter(made.event_id, "sleeper")  # a person who never moves
        await events.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    (game,) = games(info)
    sleeper = list(game.seats).index("sleeper")
    # (a busy machine may make the bot time out too: only the sleeper's faults are counted)
    faults = [f.code for f in game.faults if f.seat == sleeper]
    assert game.ending == pb.GameEnding.Value("GAME_ENDING_" + ending.upper()) and faults
    assert all(f.startswith(f"seat{sleeper}:timeout->{policy}@") for f in faults)
    fair = FairRecord.from_text(game.record)
    assert [v for k, v in fair.meta if k == "fault"] == [f.code for f in game.faults]
    checked = verify(fair)
    if policy == "forfeit_hand":
        # one timeout per hand at most: the referee played the rest of each hand
        assert checked.finished and len(faults) <= checked.deals
        assert game.winner == 1 - sleeper
        moves = MatchRecord.from_text(fair.record).moves
        assert len(moves) > 20 * len(faults)  # not a timeout on every move of the sleeper
    else:
        assert len(faults) == 1 and game.winner == 1 - sleeper


async def test_tokens_travel_in_metadata_and_an_idle_entry_stream_sends_heartbeats(
    hosted: Served,
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("quiet", "round_robin", target=11)
        entry = await events.enter(made.event_id, "ana")
        stub = events._stub
        start = pb.StartEventRequest(event_id=made.event_id)
        for metadata in ((), (("kafana-organiser-token", "not-it"),)):
            refused = await refusal(stub.StartEvent(start, metadata=metadata))
            assert refused.code() == grpc.StatusCode.UNAUTHENTICATED
            assert reason_of(refused) == "TOKEN_INVALID"
        request = pb.WatchEntryRequest(event_id=made.event_id)
        refused = await refusal(stub.WatchEntry(request).read())
        assert reason_of(refused) == "TOKEN_INVALID"  # no entry token, no stream
        call = stub.WatchEntry(request, metadata=(("kafana-entry-token", entry.token),))
        try:
            first = await asyncio.wait_for(call.read(), 10)
            assert first.phase == pb.EVENT_PHASE_OPEN and not first.HasField("heartbeat")
            beat = await asyncio.wait_for(call.read(), 10)  # nothing changes: a heartbeat
            assert beat.HasField("heartbeat") and beat.heartbeat.time_ms > 0
            assert not beat.phase and not beat.HasField("assignment")
        finally:
            call.cancel()


async def test_list_events_pages_by_token(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = [(await events.create(f"e{i}", "swiss")).event_id for i in range(3)]
        first, token = await events.list_page(page_size=2)
        assert len(first) == 2 and token
        rest, last = await events.list_page(page_size=2, page_token=token)
        assert len(rest) == 1 and last == ""
        assert sorted(e.event_id for e in [*first, *rest]) == sorted(made)
        assert [e.event_id for e in await events.list(limit=10)] == [
            e.event_id for e in [*first, *rest]
        ]  # newest first, the same order page by page
        with pytest.raises(InvalidArgumentError) as refused:
            await events.list_page(page_token="made-up")
        assert refused.value.reason == "INVALID_PAGE_TOKEN"
