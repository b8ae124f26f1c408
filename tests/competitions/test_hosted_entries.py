"""Entries are charged to their account: one each unless the organiser allows more; entrants
can be taken out; an account creates a bounded number of events."""

from __future__ import annotations

import grpc
from accounts.accounts_support import bearer, make_account
from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.quota import EVENTS_PER_HOUR
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc
from kit import info_metadata, reason_of, refusal, running


def _swiss(name: str, **options: int) -> pb.CreateEventRequest:
    return pb.CreateEventRequest(name=name, format=pb.EVENT_FORMAT_SWISS, target=11, **options)


async def test_an_account_enters_once_unless_allowed_and_entrants_can_be_taken_out(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, auth=AuthPolicy(mode=REQUIRED), plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            org = bearer(await make_account(accounts, "org", "organiser"))
            ana = bearer(await make_account(accounts, "ana", "player"))
            bob = bearer(await make_account(accounts, "bob", "player"))
            made = await stub.CreateEvent(_swiss("open"), metadata=org)
            event_id = made.event_id
            organiser = (("kafana-organiser-token", made.organiser_token),)

            def enter(name: str, bot: str = "") -> pb.EnterEventRequest:
                return pb.EnterEventRequest(event_id=event_id, name=name, bot=bot)

            # Before: one account entered one event 1,024 times (half of them built-in bots).
            first = await stub.EnterEvent(enter("ana1"), metadata=ana)
            for again in (enter("ana2"), enter("ana-bot", "greedy")):
                refused = await refusal(stub.EnterEvent(again, metadata=ana))
                assert refused.code() == grpc.StatusCode.PERMISSION_DENIED
                assert "1 entrant(s) per account" in (refused.details() or "")
                assert info_metadata(refused)["quota"] == "entries_per_account"
            await stub.EnterEvent(enter("bob-bot", "greedy"), metadata=bob)

            # a stranger cannot take an entrant out; the entrant itself can, by its token
            withdraw = pb.WithdrawEntryRequest(event_id=event_id, name="ana1")
            refused = await refusal(stub.WithdrawEntry(withdraw, metadata=bob))
            assert reason_of(refused) == "TOKEN_INVALID"
            wrong = (*bob, ("kafana-entry-token", "not-it"))
            assert reason_of(await refusal(stub.WithdrawEntry(withdraw, metadata=wrong))) == (
                "TOKEN_INVALID"
            )
            token = (("kafana-entry-token", first.entry_token),)
            info = await stub.WithdrawEntry(withdraw, metadata=bob + token)
            assert [e.name for e in info.entrants] == ["bob-bot"]
            # the account's entry is free again: ana enters a bot, then takes it out herself
            await stub.EnterEvent(enter("ana-bot", "greedy"), metadata=ana)
            own = pb.WithdrawEntryRequest(event_id=event_id, name="ana-bot")
            info = await stub.WithdrawEntry(own, metadata=ana)
            assert [e.name for e in info.entrants] == ["bob-bot"]
            # the organiser takes out anyone
            gone = pb.WithdrawEntryRequest(event_id=event_id, name="bob-bot")
            info = await stub.WithdrawEntry(gone, metadata=org + organiser)
            assert list(info.entrants) == []
            refused = await refusal(stub.WithdrawEntry(gone, metadata=org + organiser))
            assert refused.code() == grpc.StatusCode.NOT_FOUND

            # an organiser may allow more entrants per account; started events take none out
            many = await stub.CreateEvent(_swiss("club", entries_per_account=3), metadata=org)
            for i in range(3):
                await stub.EnterEvent(
                    pb.EnterEventRequest(event_id=many.event_id, name=f"a{i}", bot="greedy"),
                    metadata=ana,
                )
            refused = await refusal(
                stub.EnterEvent(
                    pb.EnterEventRequest(event_id=many.event_id, name="a3", bot="greedy"),
                    metadata=ana,
                )
            )
            assert "3 entrant(s) per account" in (refused.details() or "")
            start = pb.StartEventRequest(event_id=many.event_id)
            await stub.StartEvent(
                start, metadata=(*org, ("kafana-organiser-token", many.organiser_token))
            )
            late = pb.WithdrawEntryRequest(event_id=many.event_id, name="a0")
            refused = await refusal(stub.WithdrawEntry(late, metadata=ana))
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
            refused = await refusal(
                stub.CreateEvent(_swiss("huge", entries_per_account=1025), metadata=org)
            )
            assert info_metadata(refused) == {"field": "entries_per_account"}
    finally:
        await store.close()


async def test_an_account_creates_a_bounded_number_of_events_an_hour(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        host = CompetitionsHost(events_for(store), scan=0.1)
        async with running(store, auth=AuthPolicy(mode=REQUIRED), plugins=[host]) as svc:
            stub = competitions_pb2_grpc.CompetitionsServiceStub(svc.channel)
            org = bearer(await make_account(accounts, "org", "organiser"))
            for i in range(EVENTS_PER_HOUR):
                await stub.CreateEvent(_swiss(f"e{i}"), metadata=org)
            refused = await refusal(stub.CreateEvent(_swiss("one-more"), metadata=org))
            assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(refused) == "QUOTA_EXCEEDED"
            assert info_metadata(refused)["quota"] == "events_created"
            listed = await stub.ListEvents(pb.ListEventsRequest(page_size=100), metadata=org)
            assert len(listed.events) == EVENTS_PER_HOUR  # nothing made by the refused call
            other = bearer(await make_account(accounts, "org2", "organiser"))
            await stub.CreateEvent(_swiss("theirs"), metadata=other)  # charged to its own
            root = bearer(await make_account(accounts, "root", "operator"))
            await stub.CreateEvent(_swiss("operators"), metadata=root)  # not counted
    finally:
        await store.close()
