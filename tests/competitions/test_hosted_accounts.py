"""With keys, an entrant's rating in the service's book is its account's: names cannot take it."""

from __future__ import annotations

import asyncio

from accounts.accounts_support import bearer, make_account
from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.keys import rating_book
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc
from kit import running
from redis.asyncio import Redis


async def test_ratings_of_entrants_with_keys_are_kept_by_account(
    redis_url: str, redis: Redis
) -> None:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, auth=AuthPolicy(mode=REQUIRED), plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            org = bearer(await make_account(accounts, "org", "organiser"))
            request = pb.CreateEventRequest(
                name="keyed", format=pb.EVENT_FORMAT_ROUND_ROBIN, target=11
            )
            made = await stub.CreateEvent(request, metadata=org)
            for account, name in (("ana", "x"), ("bob", "y")):
                key = bearer(await make_account(accounts, account, "player"))
                entry = pb.EnterEventRequest(event_id=made.event_id, name=name, bot="greedy")
                await stub.EnterEvent(entry, metadata=key)
            start = pb.StartEventRequest(event_id=made.event_id)
            organiser = (("kafana-organiser-token", made.organiser_token),)
            await stub.StartEvent(start, metadata=org + organiser)
            for _ in range(300):
                info = await stub.GetEvent(pb.GetEventRequest(event_id=made.event_id), metadata=org)
                if info.phase == pb.EVENT_PHASE_FINISHED:
                    break
                await asyncio.sleep(0.1)
    finally:
        await store.close()
    assert info.phase == pb.EVENT_PHASE_FINISHED
    book = await redis.hgetall(rating_book("tablic/serbian-2"))
    assert sorted(k.decode() for k in book) == ["ana x", "bob y"]  # not "x" or "y"
