"""GetEvent on a large finished Swiss: built once per change, off the event loop."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from kafana.competitions.hosted.event import Hosted, config_from_meta, with_entrants
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.keys import EventKeys
from kafana.competitions.tournament import Tournament
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments
from kit import healthy
from redis.asyncio import Redis

from .hosted_helpers import Served

ENTRANTS = 512
CALLS = 30


async def test_many_get_event_calls_on_a_large_swiss_share_one_build(
    hosted: Served, events: RedisEvents, redis: Redis
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        sdk = Tournaments(client)
        made = await sdk.create("big", "swiss", target=11)
        meta = await events.meta(made.event_id)
        names = [f"p{i}" for i in range(ENTRANTS)]
        t = Tournament(with_entrants(config_from_meta(meta), names))
        while not t.finished:  # a finished Swiss of 512, as a director leaves it
            for g in t.next_round():
                t.adjudicate(g.game_id, 1)
        keys = EventKeys(made.event_id)
        await redis.set(keys.state, Hosted(t).dumps())
        await redis.hset(keys.meta, "phase", "finished")

        # Before: every GetEvent parsed the snapshot and looked each game up by a scan of all
        # games, on the event loop: seconds a call, one after the other, health unanswered.
        started = time.monotonic()
        answers = await asyncio.gather(
            *(sdk.get(made.event_id) for _ in range(CALLS)), healthy(hosted.target, timeout=15)
        )
        took = time.monotonic() - started
    infos = answers[:CALLS]
    assert all(isinstance(i, pb.EventInfo) and len(i.standings) == ENTRANTS for i in infos)
    assert all(i == infos[0] for i in infos) and len(infos[0].rounds) == t.total_rounds
    # measured: 0.44 s for 20 (load 16 on 2 cores); before, ~0.95 s each, one after another
    assert took < 10, took


async def test_get_event_with_and_without_records_is_built_once_each(
    hosted: Served, events: RedisEvents, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caller alternating `records` made every GetEvent a rebuild (one answer kept an event):
    375 ms of CPU a call on a finished 512-entrant Swiss, against 9 ms from the cache."""
    from kafana.competitions.hosted import servicer as wire

    async with AsyncClient.connect(hosted.target) as client:
        made = await Tournaments(client).create("both", "swiss", target=11)
    built: list[bool] = []
    build = wire._event_info

    def counted(*args: Any, **options: Any) -> pb.EventInfo:
        built.append(options["records"])
        return build(*args, **options)

    monkeypatch.setattr(wire, "_event_info", counted)
    servicer = wire.CompetitionsServiceServicer(events, wake=lambda: None)
    answers = [await servicer._info(made.event_id, records=n % 2 == 1) for n in range(10)]
    assert built == [False, True]  # each kind once, then from the cache
    assert all(a == answers[n % 2] for n, a in enumerate(answers))
