"""One rule per kind of name: printable, bounded, consistent from entry to the seat."""

from __future__ import annotations

import grpc
import pytest
from kafana.competitions.hosted.event import entrant_value
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.errors import InvalidInputError
from kafana.service import inputs
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import leagues_pb2, leagues_pb2_grpc
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments
from kit import info_metadata, reason_of, refusal

from .hosted_helpers import Served, games, until

HOSTILE = ["\x1b[31m", "\x00", "\x07", "\u202e", "\u200b"]  # ESC, NUL, BEL, RLO, ZWSP
KINDS = [inputs.SEAT, inputs.TABLE, inputs.EVENT, inputs.ENTRANT, inputs.LEAGUE, inputs.ACCOUNT]


@pytest.mark.parametrize("rule", KINDS, ids=lambda r: r.what)
@pytest.mark.parametrize("char", HOSTILE, ids=repr)
def test_every_kind_of_name_refuses_controls_and_format_characters(
    rule: inputs.NameRule, char: str
) -> None:
    with pytest.raises(InvalidInputError, match=rule.what) as refused:
        inputs.check(rule, f"ana{char}x")
    assert refused.value.metadata == {"field": rule.field}
    with pytest.raises(InvalidInputError, match=f"at most {rule.max_length}"):
        inputs.check(rule, "a" * (rule.max_length + 1))
    assert inputs.check(rule, "a" * rule.max_length) == "a" * rule.max_length


def test_an_entrant_name_fits_the_seat_it_is_given() -> None:
    assert inputs.ENTRANT.max_length <= inputs.SEAT.max_length
    for rule in (inputs.EVENT, inputs.ENTRANT):
        with pytest.raises(InvalidInputError, match="no spaces or braces"):
            inputs.check(rule, "{ev}")
    with pytest.raises(InvalidInputError, match="A-Z a-z 0-9"):
        inputs.check(inputs.ACCOUNT, "ana bot")


async def test_hostile_and_overlong_names_are_refused_by_the_server(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        stub = events._stub
        for char in HOSTILE:
            refused = await refusal(
                stub.CreateEvent(
                    pb.CreateEventRequest(name=f"cup{char}", format=pb.EVENT_FORMAT_SWISS)
                )
            )
            assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert info_metadata(refused) == {"field": "name"}
        made = await events.create("names", "swiss", target=11)
        for name in [f"ana{c}" for c in HOSTILE] + ["a" * 41]:
            request = pb.EnterEventRequest(event_id=made.event_id, name=name, bot="greedy")
            refused = await refusal(stub.EnterEvent(request))
            assert reason_of(refused) == "INVALID_ARGUMENT"
            assert info_metadata(refused) == {"field": "name"}
        leagues = leagues_pb2_grpc.LeaguesServiceStub(client.channel)
        refused = await refusal(
            leagues.GetLeague(leagues_pb2.GetLeagueRequest(league="spring\u202e"))
        )
        assert info_metadata(refused) == {"field": "league"}

        # Before, entrant names took 64 characters and seats 40: a 41-character entrant wedged
        # the event. The longest entrant name now plays its games.
        longest = "b" * inputs.ENTRANT.max_length
        await events.enter(made.event_id, longest, bot="greedy")
        await events.enter(made.event_id, "cid", bot="random")
        await events.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    assert [e.name for e in info.entrants] == [longest, "cid"]
    assert all(longest in g.seats for g in games(info)) and games(info)


async def test_an_event_whose_entrant_no_seat_takes_ends_instead_of_retrying(
    hosted: Served, events: RedisEvents
) -> None:
    # An entrant stored before the rule (41 characters): before, the director made a new
    # unjoinable table and logged a traceback every ~2 s until the organiser ended the event.
    async with AsyncClient.connect(hosted.target) as client:
        sdk = Tournaments(client)
        made = await sdk.create("legacy", "round_robin", target=11)
        await sdk.enter(made.event_id, "ana", bot="greedy")
        assert await events.enter(made.event_id, "c" * 41, entrant_value("greedy", "")) == "ok"
        await sdk.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await sdk.get(made.event_id)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=60)
    assert info.end_reason == pb.EVENT_END_REASON_UNPLAYABLE
    assert "a seat name has at most 40 characters" in info.end_detail
    assert info.status == pb.EVENT_STATUS_ENDED
