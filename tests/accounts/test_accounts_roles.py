"""Organisers run events in required mode; in open mode anyone still may (organiser tokens)."""

from __future__ import annotations

import grpc
from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.service.auth import OPEN, REQUIRED, AuthPolicy
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2, competitions_pb2_grpc, rules_pb2
from kit import running

from .accounts_support import bearer, code_of, make_account

EVENT = competitions_pb2.CreateEventRequest(
    name="friday",
    format=competitions_pb2.EVENT_FORMAT_ROUND_ROBIN,
    preset=rules_pb2.TABLIC_PRESET_SERBIAN,
)


async def test_only_organisers_create_events_in_required_mode(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        for mode in (REQUIRED, OPEN):
            host = CompetitionsHost(events_for(store))
            async with running(store, auth=AuthPolicy(mode=mode), plugins=[host]) as svc:
                stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
                player = bearer(await make_account(accounts, f"ana-{mode}", "player"))
                organiser = bearer(await make_account(accounts, f"org-{mode}", "organiser"))
                made = await stub.CreateEvent(EVENT, metadata=organiser)
                assert made.event_id
                by_player = await code_of(stub.CreateEvent(EVENT, metadata=player))
                anonymous = await code_of(stub.CreateEvent(EVENT))
                if mode == REQUIRED:
                    assert by_player == grpc.StatusCode.PERMISSION_DENIED
                    assert anonymous == grpc.StatusCode.UNAUTHENTICATED
                else:
                    assert by_player == anonymous == grpc.StatusCode.OK
    finally:
        await store.close()
