"""A director that cannot advance an event: an unexpected failure is tried a few times, then
the event ends with the reason; the store's failures are tried for ever; the organiser ends an
event whatever state its schedule is in.

The fault is injected into the pairing function the tournament calls (a bug in pairing or
scheduling); everything else is the real server, director and Redis.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import types
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from kafana.competitions import pairing, tournament
from kafana.competitions.hosted import director
from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.hosted.store import EventStore
from kafana.store.errors import StoreUnavailable
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc
from kit import running

from .hosted_helpers import until

Stub = competitions_pb2_grpc.CompetitionsServiceStub


def _broken(monkeypatch: pytest.MonkeyPatch, name: str) -> list[float]:
    """Pairing's `name`, as the tournament calls it, raising RuntimeError: when each call was
    made (`time.monotonic()`). (Only the tournament's: the event's checks, e.g.
    `pairing.max_rounds`, still work.)"""
    calls: list[float] = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        raise RuntimeError("a pairing bug")

    faulty = types.ModuleType(pairing.__name__)
    faulty.__dict__.update(vars(pairing))
    setattr(faulty, name, broken)
    monkeypatch.setattr(tournament, "pairing", faulty)
    return calls


@asynccontextmanager
async def _serving(redis_url: str, events: EventStore | None = None) -> AsyncIterator[Stub]:
    """A server with the Competitions service and its director (a scan every 0.1 s)."""
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events or events_for(store), scan=0.1)
        async with running(store, plugins=[host]) as svc:
            yield Stub(svc.channel)
    finally:
        await store.close()


async def _started(stub: Stub, kind: pb.EventFormat.ValueType) -> tuple[str, Any]:
    """An event of two built-in bots, started: its id and the organiser's metadata."""
    made = await stub.CreateEvent(pb.CreateEventRequest(name="cup", format=kind, target=11))
    organiser = (("kafana-organiser-token", made.organiser_token),)
    for name in ("ana", "bo"):
        await stub.EnterEvent(pb.EnterEventRequest(event_id=made.event_id, name=name, bot="greedy"))
    await stub.StartEvent(pb.StartEventRequest(event_id=made.event_id), metadata=organiser)
    return made.event_id, organiser


def _getter(stub: Stub, event_id: str) -> Callable[[], Any]:
    return lambda: stub.GetEvent(pb.GetEventRequest(event_id=event_id))


BROKEN = [
    (pb.EVENT_FORMAT_SWISS, "swiss_tables"),  # round 1's pairing: the event begun, no round
    (pb.EVENT_FORMAT_ROUND_ROBIN, "round_robin_tables"),  # the schedule: it cannot begin
]


@pytest.mark.parametrize(("kind", "schedule"), BROKEN, ids=["swiss", "round-robin"])
async def test_an_event_whose_pairing_fails_ends_with_the_reason_instead_of_retrying(
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    kind: pb.EventFormat.ValueType,
    schedule: str,
) -> None:
    # Before: the director logged a traceback and tried again every scan, for ever; the event
    # sat STARTED with no rounds.
    caplog.set_level(logging.INFO, logger=director.__name__)
    calls = _broken(monkeypatch, schedule)
    async with _serving(redis_url) as stub:
        event_id, _ = await _started(stub, kind)
        get = _getter(stub, event_id)
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=8)
        await asyncio.sleep(0.5)  # five scans: nobody tries it again
        assert len(calls) == director.ATTEMPTS
        assert (await get()).phase == pb.EVENT_PHASE_FINISHED
    assert info.end_reason == pb.EVENT_END_REASON_UNPLAYABLE
    assert "failed 3 times in a row: RuntimeError: a pairing bug" in info.end_detail
    assert not info.rounds
    if kind == pb.EVENT_FORMAT_SWISS:  # begun: its tournament ended too
        assert info.status == pb.EVENT_STATUS_ENDED
    logged = [r for r in caplog.records if r.name == director.__name__]
    assert len([r for r in logged if r.exc_info]) == 1  # the traceback, once
    assert any("ended: the director failed 3 times" in r.getMessage() for r in logged)


@pytest.mark.parametrize(
    "error",
    [StoreUnavailable("Redis did not answer within 1 s"), ConnectionError("reset by peer")],
    ids=["unavailable", "connection"],
)
async def test_the_stores_failures_are_tried_again_without_ending_the_event(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    # Redis blinks: more failures in a row than end an event for a bug, and it is played to
    # its end.
    blinks = director.ATTEMPTS + 2
    failed: list[str] = []
    store = RedisStore.from_url(redis_url)
    try:
        events = events_for(store)
        save = events.save

        async def blinking(event_id: str, owner: str, text: str) -> bool:
            if len(failed) < blinks:
                failed.append(event_id)
                raise error
            return await save(event_id, owner, text)

        monkeypatch.setattr(events, "save", blinking)
        async with _serving(redis_url, events) as stub:
            event_id, _ = await _started(stub, pb.EVENT_FORMAT_SWISS)  # one round, one game
            get = _getter(stub, event_id)
            info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=8)
            assert len(failed) == blinks
    finally:
        await store.close()
    assert not info.end_reason and info.status == pb.EVENT_STATUS_RUNNING
    assert [g.status for r in info.rounds for g in r.games] == [pb.GAME_STATUS_DONE]


async def test_the_organiser_ends_an_event_that_cannot_begin(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its schedule cannot be made, and the director keeps trying (a failure that might pass).
    # Before: EndEvent stored the organiser's end, which the director only reads once the
    # event has begun: the event stayed STARTED for ever.
    calls = _broken(monkeypatch, "round_robin_tables")
    monkeypatch.setattr(director, "ATTEMPTS", 1_000, raising=False)
    async with _serving(redis_url) as stub:
        event_id, organiser = await _started(stub, pb.EVENT_FORMAT_ROUND_ROBIN)
        get = _getter(stub, event_id)
        await until(get, lambda _: len(calls) >= 2, timeout=5)  # it failed, and tried again
        end = pb.EndEventRequest(event_id=event_id, note="the schedule is broken")
        await stub.EndEvent(end, metadata=organiser)
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=5)
        tried = len(calls)
        await asyncio.sleep(0.5)
        assert len(calls) == tried  # not tried again
    assert info.status == pb.EVENT_STATUS_ENDED and info.note == "the schedule is broken"
    assert info.end_reason == pb.EVENT_END_REASON_ORGANISER
    assert not info.rounds and not info.end_detail


async def test_a_failing_event_is_tried_again_ever_later_then_ended(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Before: tried again every scan or two (every ~2 s in production), however often it had
    # failed. Now the wait doubles: a scan's 2, 4, 8 times (0.1 s scans here).
    caplog.set_level(logging.INFO, logger=director.__name__)
    calls = _broken(monkeypatch, "round_robin_tables")
    monkeypatch.setattr(director, "ATTEMPTS", 4)
    async with _serving(redis_url) as stub:
        event_id, _ = await _started(stub, pb.EVENT_FORMAT_ROUND_ROBIN)
        get = _getter(stub, event_id)
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=10)
    waits = [later - earlier for earlier, later in itertools.pairwise(calls)]
    assert len(calls) == 4 and all(w >= 0.1 * 2**k for k, w in enumerate(waits, 1)), waits
    assert info.end_reason == pb.EVENT_END_REASON_UNPLAYABLE
    assert "failed 4 times in a row: RuntimeError: a pairing bug" in info.end_detail
    logged = [r for r in caplog.records if r.name == director.__name__]
    assert len([r for r in logged if r.exc_info]) == 1  # the traceback, once
    again = [r.getMessage() for r in logged if "trying again" in r.getMessage()]
    assert len(again) == 3 and "trying again in 0.8 s" in again[-1], again


async def test_the_organisers_end_does_not_wait_for_the_next_try(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An event that failed waits 20 s (a scan times 200) for its next try; EndEvent ends it
    # at the next scan all the same.
    calls = _broken(monkeypatch, "round_robin_tables")
    monkeypatch.setattr(director, "ATTEMPTS", 1_000)
    monkeypatch.setattr(director, "BACKOFF", 200.0, raising=False)
    async with _serving(redis_url) as stub:
        event_id, organiser = await _started(stub, pb.EVENT_FORMAT_ROUND_ROBIN)
        get = _getter(stub, event_id)
        await until(get, lambda _: len(calls) >= 1, timeout=5)
        await asyncio.sleep(0.6)  # six scans
        assert len(calls) == 1  # not tried again yet
        end = pb.EndEventRequest(event_id=event_id, note="no schedule")
        await stub.EndEvent(end, metadata=organiser)
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=3)
    assert info.status == pb.EVENT_STATUS_ENDED and info.note == "no schedule"
    assert info.end_reason == pb.EVENT_END_REASON_ORGANISER
