"""What a stranger can make hosted events cost (a review, 7 Dec): notes, ids and names are
bounded and printable, a forged page token is refused, reading big events is charged for what
it reads, and an event scheduled weeks ahead costs the directors nothing until its time."""

from __future__ import annotations

import grpc
import pytest
from kafana.competitions.hosted import event as ev
from kafana.competitions.hosted.director import Director
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.hosted.store import now_ms
from kafana.errors import InvalidPageToken
from kafana.service.feed import Feed
from kafana.service.inputs import _filters_digest, page_token, read_page_token
from kafana.service.ratelimit import RateLimit
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kit import info_metadata, reason_of, refusal, spy

from .hosted_helpers import hosting
from .test_hosted_lifecycle import _event

ORGANISER = "kafana-organiser-token"


async def _refused_field(call: object) -> tuple[str, str]:
    error = await refusal(call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    assert "Traceback" not in (error.details() or "")
    return reason_of(error), info_metadata(error).get("field", "")


async def test_notes_ids_and_names_are_bounded_and_change_nothing(redis_url: str) -> None:
    # Before: EndEvent took a 1,000,000-character note (ANSI escapes too), which every
    # ListEvents then sent (10 MB: past a client's 4 MB, the first page unreadable); a 900 KB
    # event id or entrant name went to Redis as a key (NOT_FOUND after ~27 ms).
    async with hosting(redis_url) as (stub, _):
        made = await stub.CreateEvent(_event("cup"))
        organiser = ((ORGANISER, made.organiser_token),)
        for note in ("x" * 201, "red \x1b[31m", "line\nbreak", "bidi \u202e"):
            for call, request in (
                (stub.EndEvent, pb.EndEventRequest),
                (stub.PauseEvent, pb.PauseEventRequest),
            ):
                field = await _refused_field(
                    call(request(event_id=made.event_id, note=note), metadata=organiser)
                )
                assert field[1] == "note", (note, field)
        info = await stub.GetEvent(pb.GetEventRequest(event_id=made.event_id))
        assert info.phase == pb.EVENT_PHASE_OPEN  # nothing changed
        assert (await _refused_field(stub.GetEvent(pb.GetEventRequest(event_id="e" * 900))))[
            1
        ] == "event_id"
        name = await _refused_field(
            stub.WithdrawEntry(pb.WithdrawEntryRequest(event_id=made.event_id, name="n" * 900))
        )
        assert name[1] == "name"
        game = await _refused_field(
            stub.AdjudicateGame(
                pb.AdjudicateGameRequest(event_id=made.event_id, game_id="g" * 900),
                metadata=organiser,
            )
        )
        assert game[1] == "game_id"
        ended = await stub.EndEvent(
            pb.EndEventRequest(event_id=made.event_id, note="rain, see you Sunday"),
            metadata=organiser,
        )
        assert ended.phase == pb.EVENT_PHASE_FINISHED


@pytest.mark.parametrize("created", [True, -5, 2**70, 1.5])
def test_a_forged_cursor_in_a_page_token_is_refused(created: object) -> None:
    # Before: [1, true, "a", digest] passed (a bool is an int), and Redis then failed on
    # "True": INTERNAL, with a traceback in the log
    import base64
    import json

    raw = json.dumps([1, created, "a", _filters_digest("events")]).encode()
    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    with pytest.raises(InvalidPageToken):
        read_page_token(token, "events")
    assert read_page_token(page_token((5, "a"), "events"), "events") == (5, "a")


async def test_reading_big_events_is_charged_for_their_entrants(
    redis_url: str, events: RedisEvents
) -> None:
    # Before: one ListEvents over 17 events of 1,024 entrants cost 250-310 ms of server CPU
    # (16,384 entrants, 361 KB), a GetEvent of one 14 ms even when its answer was kept: each
    # charged as one call, anonymous callers kept a core busy.
    from kafana.competitions.hosted.servicer import ENTRANTS_A_TOKEN

    async with hosting(redis_url) as (stub, _):
        made = await stub.CreateEvent(_event("big"))
    entrants = 400
    for i in range(entrants):
        value = ev.entrant_value("greedy", "")
        assert await events.enter(made.event_id, f"b{i}", value, most=entrants) == "ok"
    assert entrants / ENTRANTS_A_TOKEN > 10  # past the burst below
    limited = RateLimit(rate=0.5, burst=10)
    for read in ("list", "get"):
        async with hosting(redis_url, rate_limit=limited) as (stub, _):
            if read == "list":
                page = await stub.ListEvents(pb.ListEventsRequest(page_size=10))
                assert len(page.events[0].entrants) == entrants
            else:
                info = await stub.GetEvent(pb.GetEventRequest(event_id=made.event_id))
                assert len(info.entrants) == entrants
            error = await refusal(stub.GetEvent(pb.GetEventRequest(event_id=made.event_id)))
            assert reason_of(error) == "RATE_LIMITED", read  # the bucket is in debt


async def test_an_event_scheduled_weeks_ahead_costs_the_directors_nothing(
    redis_url: str, events: RedisEvents, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a scheduled event went into the index of started events at once, and every
    # director read its meta every scan (1 s) until its start: 6,000 events scheduled 29 days
    # ahead kept an idle server at 44% of a core and Redis at 2,460 commands a second.
    async with hosting(redis_url) as (stub, _):
        later = await stub.CreateEvent(_event("later", start_at_ms=now_ms() + 86_400_000))
    assert later.event_id not in await events.started()
    store = RedisStore.from_url(redis_url)
    try:
        director = Director(events, Tables(store), Feed(store))
        await director.scan_once()  # its first looks at the newest events, once
        reads = spy(monkeypatch, RedisEvents, "meta")
        await director.scan_once()
        assert not [r for r in reads if later.event_id in r], reads
    finally:
        await store.close()
