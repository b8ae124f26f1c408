"""A league is changed only by its organiser or an operator; an account makes few leagues."""

from __future__ import annotations

import asyncio

import grpc
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.spec import dump, league_spec
from kafana.competitions.quota import DAY_MS, LEAGUES_PER_DAY
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb
from kit import info_metadata, reason_of, refusal
from redis.asyncio import Redis

from .league_helpers import create_league, site


async def test_only_its_organiser_or_an_operator_starts_a_new_season(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org, rival = await s.account("org", "organiser"), await s.account("rival", "organiser")
        root = await s.account("root", "operator")
        await create_league(node, org, "spring")
        season = pb.NewSeasonRequest(league="spring")
        # Before: any organiser could start a new season of another organiser's league.
        denied = await refusal(node.leagues.NewSeason(season, metadata=rival))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "'org'" in (denied.details() or "")
        info = await node.leagues.GetLeague(pb.GetLeagueRequest(league="spring"), metadata=org)
        assert info.season == 1  # nothing changed
        assert (await node.leagues.NewSeason(season, metadata=org)).season == 2
        assert (await node.leagues.NewSeason(season, metadata=root)).season == 3


async def test_an_account_creates_a_bounded_number_of_leagues_a_day(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        for i in range(LEAGUES_PER_DAY):
            await create_league(node, org, f"l{i}")
        refused = await refusal(create_league(node, org, "one-more"))
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(refused) == "QUOTA_EXCEEDED"
        assert info_metadata(refused)["quota"] == "leagues_created"
        missing = await refusal(
            node.leagues.GetLeague(pb.GetLeagueRequest(league="one-more"), metadata=org)
        )
        assert missing.code() == grpc.StatusCode.NOT_FOUND  # nothing was made
        taken = await refusal(create_league(node, org, "l0"))  # a name in use costs nothing
        assert taken.code() == grpc.StatusCode.ALREADY_EXISTS
        await create_league(node, await s.account("other", "organiser"), "theirs")


async def test_every_key_of_a_league_carries_its_retention(redis_url: str, redis: Redis) -> None:
    # Before: leagues never expired (1,500 of them kept Redis at 35,000 commands/s for ever).
    async with site(redis_url) as s:
        node = s.nodes[0]
        org, ana = await s.account("org", "organiser"), await s.account("ana")
        await create_league(node, org, "brief", retention_days=2)
        await node.leagues.JoinQueue(pb.JoinQueueRequest(league="brief"), metadata=ana)
        await node.leagues.NewSeason(pb.NewSeasonRequest(league="brief"), metadata=org)
        keys = [k.decode() async for k in redis.scan_iter(match="{lg:brief}:*")]
        assert len(keys) >= 4, keys
        for key in keys:
            ttl = await redis.pttl(key)
            assert 0 < ttl <= 2 * DAY_MS, (key, ttl)


async def test_a_league_nobody_uses_for_its_retention_is_gone(redis_store: RedisStore) -> None:
    store = RedisLeagues(redis_store.client)
    spec = dump(league_spec(pb.LeagueSpec()))
    assert await store.create("idle", {"spec": spec})
    await store.keep("idle", 1, 50)
    assert await store.leagues() == ["idle"]
    await asyncio.sleep(0.1)
    assert await store.meta("idle") == {}  # expired: the referee forgets it from the list
    await store.forget("idle")
    assert await store.leagues() == []
    assert await store.create("idle", {"spec": spec})  # the name is free again
