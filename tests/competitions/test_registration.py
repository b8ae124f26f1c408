"""A registration window (issue 32): entries open and close at given times, or when the
organiser says; an entry outside it is refused with a clear error and changes nothing."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient, FailedPreconditionError, InvalidArgumentError
from kafana_client.aio import token_metadata
from kafana_client.errors import UnauthenticatedError
from kafana_client.tournaments import ORGANISER_TOKEN, Tournaments

from .hosted_helpers import Served
from .test_hosted_cli import kafana


def now_ms() -> int:
    return int(time.time() * 1000)


async def set_registration(
    client: AsyncClient, events: Tournaments, event_id: str, token: str, open_: bool
) -> pb.EventInfo:
    request = pb.SetRegistrationRequest(event_id=event_id, open=open_)
    info: pb.EventInfo = await client._call(
        "SetRegistration",
        request,
        None,
        stub=events._stub,
        metadata=token_metadata(ORGANISER_TOKEN, token),
    )
    return info


async def names(events: Tournaments, event_id: str) -> list[str]:
    return [e.name for e in (await events.get(event_id)).entrants]


async def test_entries_are_taken_inside_the_window_only(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        opens, closes = now_ms() + 2_000, now_ms() + 6_000
        made = await events.create(
            "windowed", "round_robin", entries_open_at_ms=opens, entries_close_at_ms=closes
        )
        event_id, token = made.event_id, made.organiser_token
        info = made.info
        assert (info.entries_open_at_ms, info.entries_close_at_ms) == (opens, closes)
        assert not info.entries_open

        with pytest.raises(FailedPreconditionError, match="registration opens at"):
            await events.enter(event_id, "early", bot="greedy")
        assert await names(events, event_id) == []
        await asyncio.sleep(max(0, opens - now_ms()) / 1000 + 0.1)
        assert (await events.get(event_id)).entries_open
        await events.enter(event_id, "ana", bot="greedy")

        # the organiser closes it: refused, until opened again
        with pytest.raises(UnauthenticatedError, match="organiser"):
            await set_registration(client, events, event_id, "not-the-token", False)
        closed = await set_registration(client, events, event_id, token, False)
        assert not closed.entries_open
        with pytest.raises(FailedPreconditionError, match="organiser has closed registration"):
            await events.enter(event_id, "bob", bot="greedy")
        assert await names(events, event_id) == ["ana"]
        assert (await set_registration(client, events, event_id, token, True)).entries_open
        await events.enter(event_id, "bob", bot="greedy")

        await asyncio.sleep(max(0, closes - now_ms()) / 1000 + 0.1)
        assert not (await events.get(event_id)).entries_open
        with pytest.raises(FailedPreconditionError, match="registration closed at"):
            await events.enter(event_id, "late", bot="greedy")
        assert await names(events, event_id) == ["ana", "bob"]
        # opening again after the closing time clears it
        assert (await set_registration(client, events, event_id, token, True)).entries_open
        await events.enter(event_id, "cid", bot="greedy")

        await events.start(event_id, token)
        with pytest.raises(FailedPreconditionError, match="registration closed at its start"):
            await set_registration(client, events, event_id, token, True)


async def test_a_bad_window_is_refused_and_nothing_is_made(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        now = now_ms()
        for fields, said in (
            (dict(entries_open_at_ms=now + 9_000, entries_close_at_ms=now + 5_000), "not after"),
            (dict(entries_close_at_ms=now - 1_000), "has passed"),
            (dict(start_at_ms=now + 60_000, entries_close_at_ms=now + 120_000), "after the start"),
            (dict(entries_open_at_ms=now + 40 * 86_400_000), "30 days"),
        ):
            with pytest.raises(InvalidArgumentError, match=said):
                await events.create("bad", "swiss", **fields)  # type: ignore[arg-type]
        assert await events.list() == []


def test_the_command_line_sets_and_changes_the_window(hosted: Served) -> None:
    at = ("--server", hosted.target)
    code, out = kafana(
        "tournament", "create", "later", *at, "--entries-open", "+1h", "--entries-close", "+2h"
    )  # fmt: skip
    assert code == 0 and "registration opens" in out and "closes" in out, out
    event_id = re.findall(r"event (ev-\w+)", out)[0]
    token = re.findall(r"organiser token (\S+)", out)[0]
    code, out = kafana("tournament", "enter", event_id, "ana", "--bot", "greedy", *at)
    assert code == 1 and "registration opens at" in out, out
    code, out = kafana("tournament", "registration", event_id, "open", *at, "--token", token)
    assert code == 0 and "registration open" in out, out
    code, out = kafana("tournament", "enter", event_id, "ana", "--bot", "greedy", *at)
    assert code == 0, out
    code, out = kafana("tournament", "registration", event_id, "close", *at, "--token", token)
    assert code == 0 and "registration closed" in out, out
    code, out = kafana("tournament", "create", "bad", *at, "--entries-close", "soon")
    assert code == 2 and "--entries-close" in out, out
