"""A table's and an account's keys live at least their time to live after the last write,
refreshed once a slack (not on every append); the log grows by APPEND and is written back at
its exact size when the status changes (a match's end)."""

from __future__ import annotations

import uuid

from kafana.store.base import Append, Outcome
from kafana.store.keys import notice_keys, table_keys
from kafana.store.notices import Mark
from kafana.store.redis_notices import RedisNotices
from kafana.store.redis_store import (
    APPEND_ARGS,
    APPEND_COUNT,
    APPEND_KEYS,
    RedisStore,
    append_args,
    ttl_slack,
)

DAY = 86_400_000
SLACK = ttl_slack(DAY)


async def pttls(store: RedisStore, keys: list[str]) -> list[int]:
    """The time to live of each of `keys` there is (-2: none), each asserted to have one."""
    out = []
    for key in keys:
        left = await store.client.call(key, "PTTL", key)
        assert isinstance(left, int) and left != -1, (key, left)
        if left != -2:
            out.append(left)
    return out


async def test_a_long_time_to_live_is_refreshed_once_a_slack(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        table_id = uuid.uuid4().hex[:12]
        keys = list(table_keys(table_id))
        assert await store.create(table_id, b"record", DAY, 1)
        first = await store.append(table_id, Append(b"e1", DAY, expected_seq=0))
        assert first.outcome is Outcome.APPLIED
        seat = Append(b"j", DAY, expected_seq=1, take_seat=0, seat_data=b"s")
        assert (await store.append(table_id, seat)).outcome is Outcome.APPLIED
        assert len(await pttls(store, keys)) == 4  # the seats made now have it too
        # The log made now and every other key: the time to live and its slack.
        for left in await pttls(store, keys):
            assert DAY + SLACK - 2_000 < left <= DAY + SLACK
        # Within the window: left as it is (no PEXPIRE a move).
        for key in keys:
            await store.client.call(key, "PEXPIRE", key, DAY + 5_000)
        await store.append(table_id, Append(b"e2", DAY, expected_seq=2))
        for left in await pttls(store, keys):
            assert DAY < left <= DAY + 5_000
        # Below it (the slack spent): every key has ttl + slack again.
        for key in keys:
            await store.client.call(key, "PEXPIRE", key, DAY - 1)
        await store.append(table_id, Append(b"e3", DAY, expected_seq=3))
        for left in await pttls(store, keys):
            assert DAY + SLACK - 2_000 < left <= DAY + SLACK
        # A shorter one (a finished table's): never more than it and its slack.
        short = 3_600_000
        await store.append(table_id, Append(b"e4", short, expected_seq=4))
        for left in await pttls(store, keys):
            assert short < left <= short + ttl_slack(short)
        # Keep (0): untouched.
        await store.append(table_id, Append(b"e5", 0, expected_seq=5))
        for left in await pttls(store, keys):
            assert short < left <= short + ttl_slack(short)
    finally:
        await store.close()


async def test_a_short_time_to_live_is_set_on_every_append(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        assert ttl_slack(60_000) == 0
        table_id = uuid.uuid4().hex[:12]
        keys = list(table_keys(table_id))
        assert await store.create(table_id, b"record", 60_000, 1)
        await store.append(table_id, Append(b"e1", 60_000, expected_seq=0))
        for key in keys:
            await store.client.call(key, "PEXPIRE", key, 59_000)
        await store.append(table_id, Append(b"e2", 60_000, expected_seq=1))
        for left in await pttls(store, keys):
            assert 59_000 < left <= 60_000
    finally:
        await store.close()


async def test_the_log_is_exact_whichever_way_it_grew(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        table_id = uuid.uuid4().hex[:12]
        log = table_keys(table_id).log
        assert await store.create(table_id, b"record", DAY, 1)
        records = [b"move %d " % i * 3 for i in range(40)]
        for seq, record in enumerate(records[:-1]):
            applied = await store.append(table_id, Append(record, DAY, expected_seq=seq))
            assert applied.outcome is Outcome.APPLIED
        grown = await store.client.call(log, "MEMORY", "USAGE", log, "SAMPLES", "0")
        over = Append(records[-1], DAY, expected_seq=39, new_status="finished")
        assert (await store.append(table_id, over)).status == "finished"
        loaded = await store.load(table_id)
        assert loaded is not None and [e.data for e in loaded.events] == records
        assert [e.seq for e in loaded.events] == list(range(1, 41))
        exact = await store.client.call(log, "MEMORY", "USAGE", log, "SAMPLES", "0")
        size = await store.client.call(log, "STRLEN", log)
        assert isinstance(grown, int) and isinstance(exact, int) and isinstance(size, int)
        assert exact < grown  # APPEND kept spare room; written back at its size, none
        assert exact < size + 160  # the size class, the key and the object only
        for left in await pttls(store, [log]):
            assert DAY < left <= DAY + SLACK  # KEEPTTL
    finally:
        await store.close()


async def test_an_accounts_keys_are_refreshed_once_a_slack(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        notices = RedisNotices(store.client, store.notifier, ttl_ms=DAY)
        account = f"ttl{uuid.uuid4().hex[:6]}"
        keys = notice_keys("kafana", account)
        both = [keys.stream, keys.marks]
        assert await notices.publish(account, b"plain") is not None  # no mark: no order yet
        for left in await pttls(store, both):
            assert DAY + SLACK - 2_000 < left <= DAY + SLACK
        for key in both:
            await store.client.call(key, "PEXPIRE", key, DAY + 5_000)
        # The order is made now: it gets the time to live, the others are refreshed with it.
        assert await notices.publish(account, b"marked", Mark("t:0", "h", 1)) is not None
        for left in await pttls(store, [*both, keys.order]):
            assert DAY + SLACK - 2_000 < left <= DAY + SLACK
        for key in (*both, keys.order):
            await store.client.call(key, "PEXPIRE", key, DAY + 5_000)
        assert await notices.publish(account, b"again", Mark("t:0", "h", 2)) is not None
        for left in await pttls(store, [*both, keys.order]):
            assert DAY < left <= DAY + 5_000  # within the window: left as it is
        for key in (*both, keys.order):
            await store.client.call(key, "PEXPIRE", key, DAY - 1)
        assert await notices.publish(account, b"later", Mark("t:0", "h", 3)) is not None
        for left in await pttls(store, [*both, keys.order]):
            assert DAY + SLACK - 2_000 < left <= DAY + SLACK
        page = await notices.read(account, "0-0", 10)
        assert [n.data for n in page.notices] == [b"plain", b"marked", b"again", b"later"]
    finally:
        await store.close()


def test_the_append_command_counts_its_arguments() -> None:
    """The packed EVALSHA's length (`APPEND_COUNT`, the riders' count) follows `append_args`."""
    args = append_args(Append(b"e", 60_000, expected_seq=0), b"live")
    assert len(args) == APPEND_ARGS
    assert b"*%d\r\n" % (3 + APPEND_KEYS + len(args)) == APPEND_COUNT
