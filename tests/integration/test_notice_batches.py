"""Account notices are told in batches: every table with news within `FLUSH_S` (2 ms) goes in
one store write, in order, and a script the server forgot is loaded again."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from kafana.service.notices import notices_of
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.errors import StoreUnavailable
from kafana.store.keys import seat_accounts_key
from kafana.store.notices import Mark, Publish
from kafana.store.redis_notices import RedisNotices
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kafana_play import config
from kit import running

YOUR_TURN = service_pb2.NOTICE_KIND_YOUR_TURN


async def test_a_batch_is_one_write_in_order_and_survives_a_forgotten_script(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        notices = RedisNotices(store.client, store.notifier)
        ana, bo = f"ana{uuid.uuid4().hex[:6]}", f"bo{uuid.uuid4().hex[:6]}"
        await store.client.call("", "SCRIPT", "FLUSH")  # the test's own Redis: it forgets
        ids = await notices.publish_many(
            [
                Publish(ana, b"1", Mark("t:0", "h", 2)),
                Publish(bo, b"2", Mark("t:1", "h", 2), keep_table="t"),
                Publish(ana, b"3", Mark("t:0", "h", 2)),  # the same news: kept once
                Publish(ana, b"4", Mark("t:0", "h", 6)),
            ]
        )
        assert ids[0] and ids[1] and ids[3] and ids[2] is None
        page = await notices.read(ana, "0-0", 10)
        assert [(n.id, n.data) for n in page.notices] == [(ids[0], b"1"), (ids[3], b"4")]
        assert await notices.publish_many([]) == []
        # keep_table kept the table's bindings alive in the same write.
        await notices.bind("t", "h", bo)
        await store.client.call(seat_accounts_key("t"), "PEXPIRE", seat_accounts_key("t"), 1000)
        await notices.publish_many([Publish(bo, b"5", None, keep_table="t")])
        ttl = await store.client.call(seat_accounts_key("t"), "PTTL", seat_accounts_key("t"))
        assert isinstance(ttl, int) and ttl > notices.ttl_ms - 60_000
    finally:
        await store.close()


async def test_the_news_of_one_turn_goes_in_one_write(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, heartbeat_s=0.3) as svc:
            accounts = RedisAccounts(store.client)
            keys = []
            for name in ("ann", "ben"):
                key = new_key()
                assert await accounts.create(Account(name, "player", now_ms()), key_hash(key))
                keys.append(key)
            tables = []
            for number in range(3):
                created = await svc.stub.CreateTable(
                    service_pb2.CreateTableRequest(config=config(seed=70 + number, target=1))
                )
                for seat in (0, 1):
                    await svc.stub.JoinTable(
                        service_pb2.JoinTableRequest(
                            table_id=created.table_id, seat=seat, name="p"
                        ),
                        metadata=(("authorization", f"Bearer {keys[seat]}"),),
                    )
                tables.append(created.table_id)
            notices = notices_of(svc.server.servicer.tables)
            assert notices is not None
            batches: list[list[Publish]] = []
            publish_many = notices.store.publish_many

            async def recorded(batch: Sequence[Publish]) -> list[str | None]:
                batches.append(list(batch))
                return await publish_many(batch)

            notices.store.publish_many = recorded  # type: ignore[method-assign,assignment]
            await asyncio.sleep(0.3)
            batches.clear()
            # Three tables with news at once (as one event-loop turn has it): one flush.
            tables_api = svc.server.servicer.tables
            for table_id in tables:
                session = tables_api.cached(table_id)
                assert session is not None
                notices._seen[table_id].seq = session.seq - 1
            for table_id in tables:
                session = tables_api.cached(table_id)
                assert session is not None
                notices.notify(table_id, session.seq)
            await asyncio.sleep(0.3)
            assert len(batches) == 1, batches
            told = batches[0]
            assert [p.mark.field.split(":")[0] for p in told if p.mark] == tables
            assert {p.account for p in told} <= {"ann", "ben"}
            assert len(told) == 3
            # A write that fails tells nothing: the table's next news tells it again.
            failing = True

            async def flaky(batch: Sequence[Publish]) -> list[str | None]:
                if failing:
                    raise StoreUnavailable("the test's Redis is away")
                return await recorded(batch)

            notices.store.publish_many = flaky  # type: ignore[method-assign,assignment]
            batches.clear()
            table_id = tables[0]
            session = tables_api.cached(table_id)
            assert session is not None
            notices._seen[table_id].seq = session.seq - 1
            notices.notify(table_id, session.seq)
            await asyncio.sleep(0.3)
            assert notices._seen[table_id].seq == session.seq - 1, "not told: not marked told"
            failing = False
            notices.notify(table_id, session.seq)
            await asyncio.sleep(0.3)
            assert [len(b) for b in batches] == [1] and batches[0][0].mark is not None
            assert batches[0][0].mark.field == f"{table_id}:{session.match.current_seat}"
            assert notices._seen[table_id].seq == session.seq
    finally:
        await store.close()
