"""Every competitions option of the wire from the SDK and the CLI (issue 32): an event's
`rules` / `clock` and `set_registration`; a league's `rules`, `clock`, `rematch_limit`,
`illegal_limit` and `disconnect_grace_ms` (`kafana league create --rule`, `--rematch-limit`);
`tournament disqualify` / `withdraw` of a started entrant through the SDK's `remove`."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from kafana.v1 import competitions_pb2 as cpb
from kafana.v1 import leagues_pb2, leagues_pb2_grpc, rules_pb2
from kafana_client import AsyncClient, FailedPreconditionError, InvalidArgumentError
from kafana_client.convert import rules_spec
from kafana_client.errors import UnauthenticatedError
from kafana_client.leagues import Leagues
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served
from .test_hosted_cli import kafana


def clock() -> rules_pb2.ClockSpec:
    """Four seconds a move, forfeited at the 2nd timeout, 5 s of grace, 4 illegal moves."""
    return rules_pb2.ClockSpec(
        move_millis=4_000,
        policy=rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
        forfeit_after_timeouts=2,
        disconnect_grace_millis=5_000,
        illegal_limit=4,
    )


async def test_an_event_takes_a_table_spec_and_its_registration_from_the_sdk(
    hosted: Served,
) -> None:
    rules = rules_spec("tablic", players=3, preset="serbian", target=21, must_capture=True)
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("specced", "round_robin", rules=rules, clock=clock())
        shown = made.info
        assert shown.rules.tablic.must_capture and shown.rules.players == 3
        assert shown.seats_per_game == 3 and shown.target == 21
        assert shown.clock.move_millis == 4_000 and shown.clock.forfeit_after_timeouts == 2
        assert shown.entries_open

        with pytest.raises(InvalidArgumentError, match="not both"):
            await events.create("both", rules=rules, preset="tabinet")
        assert [e.name for e in await events.list()] == ["specced"]

        closed = await events.set_registration(made.event_id, False, made.organiser_token)
        assert not closed.entries_open
        with pytest.raises(FailedPreconditionError):
            await events.enter(made.event_id, "late", bot="greedy")
        assert not (await events.get(made.event_id)).entrants
        with pytest.raises(UnauthenticatedError):  # no token, no operator key
            await events.set_registration(made.event_id, True)
        assert not (await events.get(made.event_id)).entries_open
        opened = await events.set_registration(made.event_id, True, made.organiser_token)
        assert opened.entries_open
        await events.enter(made.event_id, "ana", bot="greedy")
        assert [e.name for e in (await events.get(made.event_id)).entrants] == ["ana"]


async def test_a_league_takes_a_table_spec_and_its_limits_from_the_sdk(hosted: Served) -> None:
    rules = rules_spec("tablic", preset="serbian", target=31, rank_priority=True)
    async with AsyncClient.connect(hosted.target) as client:
        leagues = Leagues(client)
        made = await leagues.create("specced", rules=rules, clock=clock(), rematch_limit=5)
        assert made.spec.rules.tablic.rank_priority and made.spec.target == 31
        assert made.spec.move_ms == 4_000 and made.spec.timeouts_to_forfeit == 2
        assert made.spec.illegal_limit == 4 and made.spec.rematch_limit == 5
        plain = await leagues.create(
            "plain", move_ms=3_000, illegal_limit=6, disconnect_grace_ms=7_000
        )
        assert (plain.spec.illegal_limit, plain.spec.disconnect_grace_ms) == (6, 7_000)
        assert plain.spec.move_ms == 3_000 and plain.spec.rematch_limit == 2

        with pytest.raises(InvalidArgumentError, match="not both"):
            await leagues.create("both", rules=rules, players=2)
        with pytest.raises(InvalidArgumentError, match="rematch_limit"):
            await leagues.create("many", rematch_limit=9)
        assert [i.league for i in await leagues.list()] == ["plain", "specced"]


def test_league_create_takes_rule_switches_and_a_rematch_limit(hosted: Served) -> None:
    at = ("--server", hosted.target)
    code, out = kafana(
        "league", "create", "switched", *at, "--target", "31", "--rule", "rank_priority=true",
        "--rematch-limit", "4", "--illegal-limit", "5", "--disconnect-grace-ms", "8000",
    )  # fmt: skip
    assert code == 0, out
    assert "rules target=31 rank_priority=true" in out and "within 4 matches" in out, out
    with grpc.insecure_channel(hosted.target) as channel:
        stub = leagues_pb2_grpc.LeaguesServiceStub(channel)
        spec = stub.GetLeague(leagues_pb2.GetLeagueRequest(league="switched")).spec
    assert spec.rules.tablic.rank_priority and spec.target == 31
    assert (spec.rematch_limit, spec.illegal_limit, spec.disconnect_grace_ms) == (4, 5, 8_000)

    for bad, said in (
        (("--rule", "wild=yes"), "rank_priority"),
        (("--rule", "jack_value=eleven"), "whole number"),
        (("--rematch-limit", "9"), "--rematch-limit"),
    ):
        code, out = kafana("league", "create", "bad", *at, *bad)
        assert code == 2 and said in out and "Traceback" not in out, out
    code, out = kafana("league", "create", "tac", *at, "--game", "tac", "--rule", "must_capture=1")
    assert code == 2 and "tac" in out, out
    with grpc.insecure_channel(hosted.target) as channel:
        stub = leagues_pb2_grpc.LeaguesServiceStub(channel)
        names = [i.league for i in stub.ListLeagues(leagues_pb2.ListLeaguesRequest()).leagues]
    assert names == ["switched"]


def test_disqualify_and_withdraw_a_started_entrant_from_the_command_line(hosted: Served) -> None:
    async def setup() -> tuple[str, str, str]:
        async with AsyncClient.connect(hosted.target) as client:
            events = Tournaments(client)
            made = await events.create("started", "round_robin")
            for name in ("ana", "bob"):
                await events.enter(made.event_id, name, bot="greedy")
            await events.enter(made.event_id, "dee")
            eve = await events.enter(made.event_id, "eve")
            await events.start(made.event_id, made.organiser_token)
            await events.pause(made.event_id, made.organiser_token)  # nothing ends meanwhile
            return made.event_id, made.organiser_token, eve.token

    async def states(event_id: str) -> dict[str, tuple[int, str]]:
        async with AsyncClient.connect(hosted.target) as client:
            info = await Tournaments(client).get(event_id)
            return {e.name: (e.state, e.state_note) for e in info.entrants}

    event_id, token, eve = asyncio.run(setup())
    at = ("--server", hosted.target)
    code, out = kafana("tournament", "disqualify", event_id, "dee", *at, "--token", "wrong")
    assert code == 1 and "Traceback" not in out, out
    assert asyncio.run(states(event_id))["dee"][0] == cpb.ENTRANT_STATE_ACTIVE
    code, out = kafana(
        "tournament", "disqualify", event_id, "dee", *at, "--token", token, "--note", "engine"
    )
    assert code == 0, out
    code, out = kafana("tournament", "withdraw", event_id, "eve", *at, "--entry-token", eve)
    assert code == 0, out
    shown = asyncio.run(states(event_id))
    assert shown["dee"] == (cpb.ENTRANT_STATE_DISQUALIFIED, "engine")
    assert shown["eve"][0] == cpb.ENTRANT_STATE_WITHDRAWN
    assert shown["ana"][0] == shown["bob"][0] == cpb.ENTRANT_STATE_ACTIVE
