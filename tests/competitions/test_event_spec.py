"""One table spec on the wire (issue 31): an event takes a table's `RulesSpec` and `ClockSpec`,
so every rule switch a table has can be used in an event; its tables get them, and
`EventInfo` shows them in the same messages. The old fields (preset, target, seats, policy)
are still accepted; both at once are refused."""

from __future__ import annotations

import re

import grpc
import pytest
from kafana.competitions.hosted.event import event_config
from kafana.competitions.verify_export import Checked, verify_export
from kafana.errors import InvalidInputError
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc, rules_pb2
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments
from kit import refusal

from .hosted_helpers import Served, until
from .test_hosted_cli import kafana


def spec() -> rules_pb2.RulesSpec:
    """Tablić to 21 with a forced capture and no ace-high, three players."""
    rules = rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC, players=3)
    rules.tablic.preset = rules_pb2.TABLIC_PRESET_SERBIAN
    rules.tablic.target = 21
    rules.tablic.must_capture = True
    rules.tablic.ace_high = False
    return rules


def test_a_rules_spec_becomes_the_events_rules_with_every_switch() -> None:
    request = pb.CreateEventRequest(name="x", format=pb.EVENT_FORMAT_ROUND_ROBIN, rules=spec())
    config = event_config(request)
    assert (config.game, config.preset, config.players, config.target) == (
        "tablic",
        "serbian",
        3,
        21,
    )
    assert dict(config.switches) == {"must_capture": True, "ace_high": False}
    rules = config.rules
    assert rules.must_capture and not rules.ace_high and rules.target == 21
    assert config.pool.startswith("tablic/serbian-3+")  # a pool of its own
    clock = rules_pb2.ClockSpec(
        move_millis=4_000, policy=rules_pb2.TIMEOUT_POLICY_FORFEIT, forfeit_after_timeouts=2
    )
    timed = event_config(pb.CreateEventRequest(name="x", format=pb.EVENT_FORMAT_SWISS, clock=clock))
    assert (timed.policy.move_ms, timed.policy.on_timeout.value) == (4_000, "forfeit_match")
    for bad, said in (
        (pb.CreateEventRequest(name="x", format=1, rules=spec(), target=11), "not both"),
        (pb.CreateEventRequest(name="x", format=1, rules=spec(), seats_per_game=3), "not both"),
        (
            pb.CreateEventRequest(
                name="x", format=1, clock=clock, policy=pb.FaultPolicySpec(move_ms=1)
            ),
            "not both",
        ),
        (pb.CreateEventRequest(name="x", format=1, rules=rules_pb2.RulesSpec(players=9)), "9"),
    ):
        with pytest.raises(InvalidInputError, match=said):
            event_config(bad)


async def test_an_event_plays_its_tables_with_the_spec_it_was_given(hosted: Served) -> None:
    clock = rules_pb2.ClockSpec(
        move_millis=4_000,
        policy=rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
        forfeit_after_timeouts=3,
        disconnect_grace_millis=5_000,
        on_disconnect=rules_pb2.TIMEOUT_POLICY_FORFEIT,
        illegal_limit=3,
    )
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        request = pb.CreateEventRequest(
            name="switched", format=pb.EVENT_FORMAT_ROUND_ROBIN, rules=spec(), clock=clock
        )
        made = await events._call("CreateEvent", request)
        shown = made.event
        assert shown.rules.tablic.must_capture and not shown.rules.tablic.ace_high
        assert shown.rules.players == 3 and shown.clock.move_millis == 4_000
        assert shown.seats_per_game == 3 and shown.target == 21
        for name in ("ana", "bob", "cid"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
            timeout=180,
        )
        game = info.rounds[0].games[0]
        table = await client.get_table(game.table_id)
    assert table.rules.tablic.must_capture and not table.rules.tablic.ace_high
    assert table.rules.tablic.target == 21 and table.rules.players == 3
    assert table.clock.move_millis == 4_000 and table.clock.forfeit_after_timeouts == 3
    assert all(isinstance(x, Checked) for x in verify_export(info.exports["records.jsonl"]))


async def test_both_spellings_at_once_are_refused_and_nothing_is_made(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        bad = pb.CreateEventRequest(
            name="x",
            format=pb.EVENT_FORMAT_SWISS,
            rules=spec(),
            preset=rules_pb2.TABLIC_PRESET_TABINET,
        )
        refused = await refusal(events._stub.CreateEvent(bad))
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "not both" in str(refused.details())
        assert await events.list() == []


def test_the_command_line_sets_rule_switches(hosted: Served) -> None:
    at = ("--server", hosted.target)
    code, out = kafana(
        "tournament", "create", "switched", *at, "--format", "round_robin", "--target", "21",
        "--rule", "must_capture=true", "--rule", "jack_value=11", "--move-ms", "3000",
    )  # fmt: skip
    assert code == 0, out
    event_id = re.findall(r"event (ev-\w+)", out)[0]
    with grpc.insecure_channel(hosted.target) as channel:
        stub = competitions_pb2_grpc.CompetitionsServiceStub(channel)
        info = stub.GetEvent(pb.GetEventRequest(event_id=event_id))
    assert info.rules.tablic.must_capture and info.rules.tablic.jack_value == 11
    assert info.target == 21 and info.clock.move_millis == 3_000
    code, out = kafana("tournament", "create", "bad", *at, "--rule", "wild=yes")
    assert code == 2 and "--rule" in out and "must_capture" in out, out
    code, out = kafana("tournament", "create", "bad", *at, "--rule", "jack_value=eleven")
    assert code == 2 and "whole number" in out, out
