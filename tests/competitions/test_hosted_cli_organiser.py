"""An organiser's commands: every fault-policy field, a scheduled start and check-in from
`kafana tournament create`; `tournament list`, `check-in`; `kafana league list` (issue 32)."""

from __future__ import annotations

import re

import grpc
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc

from .hosted_helpers import Served
from .test_hosted_cli import kafana


def _event(target: str, event_id: str) -> pb.EventInfo:
    with grpc.insecure_channel(target) as channel:
        stub = competitions_pb2_grpc.CompetitionsServiceStub(channel)
        info: pb.EventInfo = stub.GetEvent(pb.GetEventRequest(event_id=event_id))
        return info


def test_an_organiser_sets_everything_from_the_command_line(hosted: Served) -> None:
    at = ("--server", hosted.target)
    code, out = kafana("tournament", "create", "plain", *at, "--format", "round_robin")
    assert code == 0, out
    plain = re.findall(r"event (ev-\w+)", out)[0]
    policy = _event(hosted.target, plain).policy
    assert (policy.move_ms, policy.timeouts_to_forfeit) == (10_000, 3)  # before: no clock

    code, out = kafana(
        "tournament", "create", "full", *at, "--format", "round_robin", "--move-ms", "4000",
        "--on-timeout", "forfeit_hand", "--timeouts-to-forfeit", "5", "--disconnect-grace-ms",
        "7000", "--on-disconnect", "default_move", "--illegal-limit", "2", "--no-show-ms",
        "60000", "--entries-per-account", "2", "--start-at", "+10m", "--check-in", "15m",
        "--game", "tac", "--players", "4", "--max-entrants", "8",
    )  # fmt: skip
    assert code == 0 and "starts by itself at" in out, out
    full = re.findall(r"event (ev-\w+)", out)[0]
    info = _event(hosted.target, full)
    p = info.policy
    assert (p.move_ms, p.on_timeout, p.timeouts_to_forfeit) == (
        4000, pb.FAULT_ACTION_FORFEIT_HAND, 5,
    )  # fmt: skip
    assert (p.disconnect_grace_ms, p.on_disconnect) == (7000, pb.FAULT_ACTION_DEFAULT_MOVE)
    assert (p.illegal_limit, p.no_show_ms) == (2, 60_000)
    assert info.check_in_ms == 900_000 and info.start_at_ms > 0
    assert info.seats_per_game == 4 and info.max_entrants == 8

    code, out = kafana("tournament", "create", "bad", *at, "--start-at", "yesterday")
    assert code == 2 and "--start-at" in out, out
    code, out = kafana("tournament", "create", "bad", *at, "--check-in", "ten")
    assert code == 2 and "--check-in" in out, out

    code, out = kafana("tournament", "start", plain, *at)
    assert code == 2 and "--token" in out, out  # nor an operator's --key
    code, out = kafana("tournament", "list", *at)
    assert code == 0 and plain in out and full in out and "open" in out, out

    code, out = kafana("tournament", "enter", plain, "ana", *at)
    token = re.findall(r"entry token (\S+)", out)[0]
    code, out = kafana("tournament", "check-in", plain, "ana", *at, "--token", token)
    assert code == 0 and "ana checked in" in out, out
    assert [e.checked_in for e in _event(hosted.target, plain).entrants] == [True]
    code, out = kafana("tournament", "check-in", plain, "ana", *at, "--token", "wrong")
    assert code == 1 and "entry token" in out, out
    code, out = kafana("tournament", "withdraw", plain, "ana", *at, "--entry-token", token)
    assert code == 0 and "0 entrants" in out, out

    code, out = kafana("league", "list", *at)
    assert code == 0 and out.strip() == "no leagues", out
    code, out = kafana("league", "create", "spring", *at, "--target", "11")
    assert code == 0, out
    code, out = kafana("league", "list", *at)
    assert code == 0 and "league spring" in out, out
