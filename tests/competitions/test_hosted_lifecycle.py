"""An organiser's event from schedule to standings: a scheduled start the director honours,
check-in (absent entrants dropped before round 1), sensible defaults, operators' controls,
removing entrants, public standings (issue 32)."""

from __future__ import annotations

import asyncio
import csv
import io
from typing import Any

import grpc
import pytest
from accounts.accounts_support import bearer, make_account
from kafana.competitions.hosted.convert import published_of
from kafana.competitions.hosted.director import EventRun
from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.hosted.store import now_ms
from kafana.competitions.model import GameResult, GameSpec
from kafana.competitions.tournament import TIEBREAKS, EventConfig, Kind, Tournament
from kafana.competitions.verify import VerificationError
from kafana.competitions.verify_export import verify_export
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc
from kafana_client import AsyncClient
from kafana_client.tournaments import play_entry
from kit import reason_of, refusal, running

from .hosted_helpers import bot_player, games, hosting, until


def _event(name: str, **options: int) -> pb.CreateEventRequest:
    return pb.CreateEventRequest(
        name=name, format=pb.EVENT_FORMAT_ROUND_ROBIN, target=11, **options
    )


async def test_a_scheduled_event_starts_itself_and_drops_who_did_not_check_in(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            # check-in opens a minute before a start ten minutes away: not yet
            later = await stub.CreateEvent(
                _event("later", start_at_ms=now_ms() + 600_000, check_in_ms=60_000)
            )
            entry = await stub.EnterEvent(pb.EnterEventRequest(event_id=later.event_id, name="x"))
            token = (("kafana-entry-token", entry.entry_token),)
            early = pb.CheckInRequest(event_id=later.event_id, name="x")
            refused = await refusal(stub.CheckIn(early, metadata=token))
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "opens at" in (refused.details() or "")
            past = _event("past", start_at_ms=now_ms() - 60_000)
            refused = await refusal(stub.CreateEvent(past))
            assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT

            start_at = now_ms() + 2_500
            made = await stub.CreateEvent(_event("cup", start_at_ms=start_at, check_in_ms=60_000))
            event_id = made.event_id
            for bot in ("b1", "b2", "b3"):
                await stub.EnterEvent(
                    pb.EnterEventRequest(event_id=event_id, name=bot, bot="greedy")
                )
            on_time = await stub.EnterEvent(pb.EnterEventRequest(event_id=event_id, name="ana"))
            await stub.EnterEvent(pb.EnterEventRequest(event_id=event_id, name="late"))
            # a stranger cannot check someone in; the entrant can, with its token
            check = pb.CheckInRequest(event_id=event_id, name="ana")
            assert reason_of(await refusal(stub.CheckIn(check))) == "TOKEN_INVALID"
            ana = (("kafana-entry-token", on_time.entry_token),)
            info = await stub.CheckIn(check, metadata=ana)
            present = {e.name: e.checked_in for e in info.entrants}
            assert present == {"b1": True, "b2": True, "b3": True, "ana": True, "late": False}
            assert info.start_at_ms == start_at and info.check_in_ms == 60_000
            assert info.phase == pb.EVENT_PHASE_OPEN

            ana_task = asyncio.create_task(_play(svc.target, event_id, on_time.entry_token))
            # nobody calls StartEvent: the director starts it at its time, without "late"
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
                lambda i: i.phase != pb.EVENT_PHASE_OPEN,
                timeout=30,
            )
            assert now_ms() >= start_at
            refused = await refusal(stub.CheckIn(check, metadata=ana))
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
            states = {e.name: e.state for e in info.entrants}
            assert states["late"] == pb.ENTRANT_STATE_ABSENT
            assert states["ana"] == states["b1"] == pb.ENTRANT_STATE_ACTIVE
            assert not any("late" in g.seats for g in games(info))
            assert {s.entrant for s in info.standings} == {"b1", "b2", "b3", "ana"}
            # ana plays her games; the bots theirs; nobody forfeits for "late"
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
                lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
                timeout=120,
            )
            await ana_task
            played = games(info)
            assert len(played) == 6  # 4 entrants: 3 rounds of 2 games
            assert all(g.ending == pb.GAME_ENDING_SCORE for g in played)
            assert not any(g.faults for g in played)
    finally:
        await store.close()


async def test_a_started_event_shows_who_was_dropped_before_its_first_snapshot(
    redis_url: str,
) -> None:
    """Between the start (the phase) and the director's first snapshot, GetEvent showed every
    entrant ACTIVE (a CI run read "late" as active): who plays is known from the check-ins."""
    store = RedisStore.from_url(redis_url)
    try:
        events = events_for(store)
        host = CompetitionsHost(events, scan=3600)  # no director step during the test
        async with running(store, plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            start_at = now_ms() + 600_000
            made = await stub.CreateEvent(_event("cup", start_at_ms=start_at, check_in_ms=600_000))
            for bot in ("b1", "b2"):
                await stub.EnterEvent(
                    pb.EnterEventRequest(event_id=made.event_id, name=bot, bot="greedy")
                )
            await stub.EnterEvent(pb.EnterEventRequest(event_id=made.event_id, name="late"))
            assert await events.start(made.event_id) == "ok"  # the director's first write
            info = await stub.GetEvent(pb.GetEventRequest(event_id=made.event_id))
            assert info.phase == pb.EVENT_PHASE_STARTED
            states = {e.name: e.state for e in info.entrants}
            active, absent = pb.ENTRANT_STATE_ACTIVE, pb.ENTRANT_STATE_ABSENT
            assert states == {"b1": active, "b2": active, "late": absent}
    finally:
        await store.close()


async def _play(target: str, event_id: str, token: str) -> None:
    async with AsyncClient.connect(target) as client:
        await play_entry(client, event_id, token, bot_player(client))


async def test_every_event_has_a_clock_and_operators_act_on_any_event(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, auth=AuthPolicy(mode=REQUIRED), plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            org = bearer(await make_account(accounts, "org", "organiser"))
            operator = bearer(await make_account(accounts, "op", "operator"))
            other = bearer(await make_account(accounts, "other", "organiser"))
            # no policy sent: a clock and a forfeit limit (before: no clock, a hung bot stalled
            # an event for minutes)
            made = await stub.CreateEvent(_event("cup", entries_per_account=4), metadata=org)
            policy = made.event.policy
            assert (policy.move_ms, policy.timeouts_to_forfeit) == (10_000, 3)
            # a policy sent is taken as it is: move_ms 0 is no clock
            bare = _event("untimed")
            bare.policy.CopyFrom(pb.FaultPolicySpec(move_ms=0))
            untimed = await stub.CreateEvent(bare, metadata=org)
            assert untimed.event.policy.move_ms == 0

            event_id = made.event_id
            for bot in ("b1", "b2", "b3", "b4"):
                enter = pb.EnterEventRequest(event_id=event_id, name=bot, bot="greedy")
                await stub.EnterEvent(enter, metadata=operator)
            start = pb.StartEventRequest(event_id=event_id)
            # another organiser without the token: refused; an operator: no token needed
            assert reason_of(await refusal(stub.StartEvent(start, metadata=other))) == (
                "TOKEN_INVALID"
            )
            await stub.StartEvent(start, metadata=operator)
            pause = pb.PauseEventRequest(event_id=event_id, note="operator pause")
            await stub.PauseEvent(pause, metadata=operator)
            await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
                lambda i: i.status == pb.EVENT_STATUS_PAUSED,
            )
            end = pb.EndEventRequest(event_id=event_id, note="operator end")
            refused = await refusal(stub.EndEvent(end, metadata=other))
            assert reason_of(refused) == "TOKEN_INVALID"
            info = await stub.EndEvent(end, metadata=operator)
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
                lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
            )
            assert info.end_reason == pb.EVENT_END_REASON_ORGANISER
            # standings are public: an anonymous caller reads the event and the list
            anonymous = await stub.GetEvent(pb.GetEventRequest(event_id=event_id))
            assert len(anonymous.standings) == 4
            assert event_id in [
                e.event_id for e in (await stub.ListEvents(pb.ListEventsRequest())).events
            ]
    finally:
        await store.close()


def test_a_round_robin_breaks_ties_by_sonneborn_berger_then_head_to_head() -> None:
    # a beats b, but b has the better point difference; both 1.5 points, SB 1.75
    won = {("a", "b"): 1.0, ("a", "c"): 0.0, ("a", "d"): 0.5,
           ("b", "c"): 0.5, ("b", "d"): 1.0, ("c", "d"): 1.0}  # fmt: skip
    t = Tournament(EventConfig("rr", Kind.ROUND_ROBIN, ("a", "b", "c", "d")))
    for _ in range(t.total_rounds):
        for g in t.next_round():
            x, y = g.seats
            first = won[(x, y)] if (x, y) in won else 1.0 - won[(y, x)]
            winner = 0 if first == 1.0 else 1 if first == 0.0 else None
            big = 20 if winner is not None and g.seats[winner] == "b" else 1  # b wins big
            scores = (
                (10, 10) if winner is None else (10 + big, 10) if winner == 0 else (10, 10 + big)
            )
            t.record(GameResult(g.game_id, scores, winner))
    rows = {r.entrant: r for r in t.standings()}
    assert (rows["a"].points, rows["a"].sonneborn_berger) == (
        rows["b"].points,
        rows["b"].sonneborn_berger,
    )
    assert rows["b"].diff > rows["a"].diff
    assert rows["a"].head_to_head == 1.0 and rows["b"].head_to_head == 0.0
    assert [r.entrant for r in t.standings()] == ["c", "a", "b", "d"]  # before: c, b, a, d
    swiss = Tournament(EventConfig("sw", Kind.SWISS, ("a", "b", "c", "d")))
    assert TIEBREAKS[swiss.config.kind.value][0] == "buchholz"


async def bot_event(
    stub: competitions_pb2_grpc.CompetitionsServiceStub, name: str, entrants: tuple[str, ...]
) -> tuple[str, tuple[tuple[str, str]]]:
    """An event `name` with `entrants` entered as greedy bots: its id and the organiser's
    metadata."""
    made = await stub.CreateEvent(_event(name))
    for entrant in entrants:
        await stub.EnterEvent(
            pb.EnterEventRequest(event_id=made.event_id, name=entrant, bot="greedy")
        )
    return made.event_id, (("kafana-organiser-token", made.organiser_token),)


async def test_withdrawn_and_disqualified_entrants_in_standings_and_exports(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            names = ("ana", "bo", "cy", "dee", "eve", "fay")
            event_id, organiser = await bot_event(stub, "cup", names)
            remove = pb.RemoveEntrantRequest(event_id=event_id, name="dee", disqualify=True)
            refused = await refusal(stub.RemoveEntrant(remove, metadata=organiser))
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION  # not started yet
            await stub.StartEvent(pb.StartEventRequest(event_id=event_id), metadata=organiser)
            await stub.PauseEvent(pb.PauseEventRequest(event_id=event_id), metadata=organiser)
            # a stranger cannot disqualify anyone
            assert reason_of(await refusal(stub.RemoveEntrant(remove))) == "TOKEN_INVALID"
            remove.note = "engine assistance"
            await stub.RemoveEntrant(remove, metadata=organiser)
            quit_ = pb.RemoveEntrantRequest(event_id=event_id, name="eve", note="ill")
            info = await stub.RemoveEntrant(quit_, metadata=organiser)
            again = await refusal(stub.RemoveEntrant(quit_, metadata=organiser))
            assert "already withdrawn" in (again.details() or "")
            states = {e.name: (e.state, e.state_note) for e in info.entrants}
            assert states["dee"] == (pb.ENTRANT_STATE_DISQUALIFIED, "engine assistance")
            assert states["eve"] == (pb.ENTRANT_STATE_WITHDRAWN, "ill")
            await stub.ResumeEvent(pb.ResumeEventRequest(event_id=event_id), metadata=organiser)
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id, records=True)),
                lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
                timeout=120,
            )
            later = [g for g in games(info) if g.round > 1]
            out = [g for g in later if {"dee", "eve"} & set(g.seats)]
            assert out and all(g.ending != pb.GAME_ENDING_SCORE for g in out)
            for g in out:
                if {"dee", "eve"} >= set(g.seats):
                    assert g.ending == pb.GAME_ENDING_NOT_PLAYED
                    continue
                assert g.ending == pb.GAME_ENDING_ADJUDICATED and not g.table_id
                winner = next(i for i, s in enumerate(g.seats) if s not in ("dee", "eve"))
                assert g.winner == winner
            rows = {s.entrant: s for s in info.standings}
            assert rows["dee"].state == pb.ENTRANT_STATE_DISQUALIFIED
            assert rows["eve"].state == pb.ENTRANT_STATE_WITHDRAWN
            assert rows["ana"].state == pb.ENTRANT_STATE_ACTIVE
            csv_rows = {
                r["entrant"]: r for r in csv.DictReader(io.StringIO(info.exports["standings.csv"]))
            }
            assert csv_rows["dee"]["state"] == "disqualified"
            assert csv_rows["eve"]["state"] == "withdrawn"
            assert "DISQUALIFIED" in info.report
            # the export still checks, against what the server published
            checked = verify_export(info.records_jsonl, published_of(info))
            assert not [c for c in checked if isinstance(c, VerificationError)], checked
    finally:
        await store.close()


async def test_a_game_ended_on_its_table_keeps_its_result_when_an_entrant_is_removed(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game over on its table whose result the director had not taken yet (a CI run: the
    machine loaded) was adjudicated by a removal, and the export said 'adjudicated' of moves
    that play the game to its end, which verify refuses. The board's result stands."""
    ended, go_on = asyncio.Event(), asyncio.Event()
    play_table = EventRun._play_table

    async def slow_to_take(run: EventRun, spec: GameSpec, seats: Any) -> GameResult:
        result = await play_table(run, spec, seats)
        ended.set()
        await go_on.wait()  # the table is over; its result not taken yet
        return result

    monkeypatch.setattr(EventRun, "_play_table", slow_to_take)
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            event_id, organiser = await bot_event(stub, "late", ("ana", "bo"))
            await stub.StartEvent(pb.StartEventRequest(event_id=event_id), metadata=organiser)
            await asyncio.wait_for(ended.wait(), 60)
            quit_ = pb.RemoveEntrantRequest(event_id=event_id, name="bo", note="left")
            await stub.RemoveEntrant(quit_, metadata=organiser)
            await asyncio.sleep(1.0)  # the director applies the removal meanwhile
            go_on.set()
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id, records=True)),
                lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
                timeout=60,
            )
            (game,) = [g for g in games(info) if g.round == 1]
            assert game.ending == pb.GAME_ENDING_SCORE
            checked = verify_export(info.records_jsonl, published_of(info))
            assert not [c for c in checked if isinstance(c, VerificationError)], checked
    finally:
        await store.close()


async def test_a_round_whose_every_game_is_forfeited_does_not_end_the_event(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            made = await stub.CreateEvent(_event("four"))
            event_id = made.event_id
            organiser = (("kafana-organiser-token", made.organiser_token),)
            for name in ("ana", "bo", "cy", "dee"):
                enter = pb.EnterEventRequest(event_id=event_id, name=name, bot="greedy")
                await stub.EnterEvent(enter)
            await stub.StartEvent(pb.StartEventRequest(event_id=event_id), metadata=organiser)
            await stub.PauseEvent(pb.PauseEventRequest(event_id=event_id), metadata=organiser)
            for name in ("cy", "dee"):
                remove = pb.RemoveEntrantRequest(event_id=event_id, name=name, disqualify=True)
                await stub.RemoveEntrant(remove, metadata=organiser)
            await stub.ResumeEvent(pb.ResumeEventRequest(event_id=event_id), metadata=organiser)
            info = await until(
                lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
                lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
                timeout=120,
            )
            # a round of (ana or bo) against (cy or dee) only: every game decided off the
            # board; the event goes on to its last round and ana meets bo
            assert len(info.rounds) == 3 and not info.end_reason
            met = [g for g in games(info) if set(g.seats) == {"ana", "bo"}]
            assert len(met) == 1 and met[0].status == pb.GAME_STATUS_DONE
    finally:
        await store.close()


async def test_an_event_takes_at_most_its_organisers_number_of_entrants(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, plugins=[CompetitionsHost(events_for(store))]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            refused = await refusal(stub.CreateEvent(_event("huge", max_entrants=2000)))
            assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
            made = await stub.CreateEvent(_event("small", max_entrants=2))
            assert made.event.max_entrants == 2
            for name in ("ana", "bo"):
                await stub.EnterEvent(pb.EnterEventRequest(event_id=made.event_id, name=name))
            third = pb.EnterEventRequest(event_id=made.event_id, name="cy")
            refused = await refusal(stub.EnterEvent(third))
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "is full" in (refused.details() or "")
    finally:
        await store.close()


async def test_a_round_robin_too_large_to_keep_is_refused_at_its_start(redis_url: str) -> None:
    # 129 entrants: 8,256 games, more than a snapshot keeps (`MAX_SCHEDULED_GAMES`); before,
    # the start was taken and a 1,024-entrant one played 523,776 games (~150 MB of snapshot).
    async with hosting(redis_url) as (stub, _host):
        names = tuple(f"bot{i:03d}" for i in range(129))
        event_id, organiser = await bot_event(stub, "huge", names)
        start = pb.StartEventRequest(event_id=event_id)
        refused = await refusal(stub.StartEvent(start, metadata=organiser))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "8,256 games, more than 8,192: choose a Swiss" in str(refused.details())
        event = await stub.GetEvent(pb.GetEventRequest(event_id=event_id))
        assert event.phase == pb.EVENT_PHASE_OPEN  # changed nothing


async def test_pause_and_resume_answer_the_status_asked_for(redis_url: str) -> None:
    # The answer was built from the director's last snapshot: PauseEvent answered "running"
    # and ResumeEvent "paused" (a review's `kafana tournament pause` printed the old state).
    async with hosting(redis_url) as (stub, host):
        event_id, organiser = await bot_event(stub, "lunch", ("ana", "bo", "cy", "dee"))
        await stub.StartEvent(pb.StartEventRequest(event_id=event_id), metadata=organiser)
        await until(
            lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id)),
            lambda i: len(i.rounds) >= 1,  # the director's snapshot is written
            timeout=30,
        )
        await host.worker.stop()  # the director applies nothing more: the answers say it
        pause = pb.PauseEventRequest(event_id=event_id, note="lunch")
        paused = await stub.PauseEvent(pause, metadata=organiser)
        assert (paused.status, paused.note) == (pb.EVENT_STATUS_PAUSED, "lunch")
        resume = pb.ResumeEventRequest(event_id=event_id)
        resumed = await stub.ResumeEvent(resume, metadata=organiser)
        assert resumed.status == pb.EVENT_STATUS_RUNNING
