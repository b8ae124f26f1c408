"""Hosted events for organisers: retention, moves kept when a game is decided off the board,
Swiss round 1 by the service's ratings, impossible pairings refused or ended cleanly."""

from __future__ import annotations

import asyncio
import json

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment, new_secret
from kafana.competitions.hosted.event import Hosted, config_from_meta, with_entrants
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.keys import EventKeys, rating_book
from kafana.competitions.model import GameResult, GameSpec
from kafana.competitions.tournament import Tournament
from kafana.games.tablic import MatchRecord
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient, FailedPreconditionError, InvalidArgumentError
from kafana_client.tournaments import Tournaments, play_entry
from redis.asyncio import Redis

from .hosted_helpers import (
    Served,
    bot_player,
    first_assignment,
    games,
    play_moves,
    served,
    until,
)

DAY_MS = 86_400_000


async def test_every_key_of_an_event_expires_after_the_retention(
    redis_url: str, redis: Redis
) -> None:
    with served(redis_url, "--retention-days", "2") as hosted:
        async with AsyncClient.connect(hosted.target) as client:
            events = Tournaments(client)
            made = await events.create("brief", "round_robin", target=11)
            for name in ("ana", "bob"):
                await events.enter(made.event_id, name, bot="greedy")
            await events.start(made.event_id, made.organiser_token)
            await events.pause(made.event_id, made.organiser_token)
            await events.resume(made.event_id, made.organiser_token)
            info = await until(
                lambda: events.get(made.event_id), lambda i: i.phase == pb.EVENT_PHASE_FINISHED
            )
    assert info.standings[0].played == 1
    keys = [k.decode() async for k in redis.scan_iter(match="{ev:" + made.event_id + "}:*")]
    assert {k.rsplit(":", 1)[1] for k in keys} >= {"meta", "entrants", "state", "control"}
    for key in keys:
        assert 0 < await redis.pttl(key) <= 2 * DAY_MS, key


async def test_an_adjudicated_game_keeps_the_moves_played(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("decided", "round_robin", target=101)
        entries = [await events.enter(made.event_id, n) for n in ("ann", "ben")]
        await events.start(made.event_id, made.organiser_token)
        held = [await first_assignment(client, made.event_id, e.token) for e in entries]
        await play_moves([seat for seat, _ in held], 5)
        game_id = held[0][1].game_id
        with pytest.raises(InvalidArgumentError, match="winner side 2: 0 to 1"):
            await events.adjudicate(made.event_id, made.organiser_token, game_id, 2)
        await events.adjudicate(made.event_id, made.organiser_token, game_id, 0, note="rain")

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    (game,) = games(info)
    assert game.ending == pb.GAME_ENDING_ADJUDICATED and game.winner == 0
    fair = FairRecord.from_text(game.record)
    assert fair.get("ending") == "adjudicated rain" and fair.revealed == game.secret
    assert len(MatchRecord.from_text(fair.record).moves) == 5


async def test_swiss_round_one_pairs_by_the_services_ratings(hosted: Served, redis: Redis) -> None:
    # top half against bottom half: in entry order a-c, b-d; by rating (a, c, b, d) a-b, c-d
    ratings = {"a": 40.0, "b": 20.0, "c": 30.0, "d": 10.0}
    book = {n: json.dumps({"mu": mu, "sigma": 2.0, "games": 20}) for n, mu in ratings.items()}
    await redis.hset(rating_book("tablic/serbian-2"), mapping=book)
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("seeded", "swiss", rounds=1, target=11)
        for name in ratings:
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id), lambda i: i.phase == pb.EVENT_PHASE_FINISHED
        )
    assert sorted(sorted(g.seats) for g in games(info)) == [["a", "b"], ["c", "d"]]
    after = await redis.hgetall(rating_book("tablic/serbian-2"))
    assert {k.decode() for k in after} == set(ratings)
    assert all(json.loads(after[n.encode()])["games"] == 21 for n in ratings)  # rated once more


async def test_a_swiss_with_more_rounds_than_pairings_is_refused(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("cramped", "swiss", rounds=5, target=11)
        for name in ("ana", "bob", "cid", "dan"):
            await events.enter(made.event_id, name, bot="greedy")
        with pytest.raises(FailedPreconditionError, match="at most 3 rounds"):
            await events.start(made.event_id, made.organiser_token)
        assert (await events.get(made.event_id)).phase == pb.EVENT_PHASE_OPEN  # nothing changed


async def test_a_swiss_out_of_pairings_ends_with_the_reason_and_standings(
    hosted: Served, events: RedisEvents, redis: Redis
) -> None:
    x, y = ("ana", "bob", "cid"), ("dan", "eve", "fay")  # 3 rounds: every x against every y
    async with AsyncClient.connect(hosted.target) as client:
        sdk = Tournaments(client)
        made = await sdk.create("stuck", "swiss", rounds=5, target=11)  # 5 is the most of 6
        for name in x + y[:2]:
            await sdk.enter(made.event_id, name, bot="greedy")
        remote = await sdk.enter(made.event_id, "fay")
        meta = await events.meta(made.event_id)
        t = Tournament(with_entrants(config_from_meta(meta), [*x, *y]))
        played = [[(a, y[(i + r) % 3]) for i, a in enumerate(x)] for r in range(3)]
        t.restore_secrets({f"r{r}-g{i}": new_secret() for r in (1, 2, 3) for i in (1, 2, 3)})
        for r, pairs in enumerate(played, start=1):  # a snapshot as a director left it
            t.rounds.append([])
            for i, seats in enumerate(pairs, start=1):
                game_id = f"r{r}-g{i}"
                t.rounds[-1].append(GameSpec(game_id, r, seats, commitment(t.secret_of(game_id))))
                t.record(GameResult(game_id, (11, 5), 0))
        await redis.set(EventKeys(made.event_id).state, Hosted(t).dumps())
        await sdk.start(made.event_id, made.organiser_token)  # round 4 could only pair x with x
        last = await asyncio.wait_for(
            play_entry(client, made.event_id, remote.token, bot_player(client)), 60
        )
        info = await sdk.get(made.event_id)
    assert last.event_over and len(last.standings) == 6  # the entrant's watch ended
    assert (
        info.phase == pb.EVENT_PHASE_FINISHED
        and info.status == pb.EVENT_STATUS_ENDED
        and len(info.rounds) == 3
    )
    assert info.end_reason == pb.EVENT_END_REASON_NO_PAIRING_LEFT
    assert "no Swiss round 4" in info.end_detail and "after 3 of 5 rounds" in info.end_detail
    assert [s.played for s in info.standings] == [3] * 6
    assert [s.entrant for s in info.standings[:3]] == list(x)  # every game won by seat 0
