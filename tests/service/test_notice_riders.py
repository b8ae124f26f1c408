"""A move's YOUR_TURN notice rides on the move's own append (one write, no flush after it),
and is told only when that append applies; where it cannot ride it is told as before."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from kafana.service.notices import Notices
from kafana.service.tables import Tables
from kafana.store.base import Append, Outcome, Rider
from kafana.store.client import RedisClient
from kafana.store.keys import notice_keys
from kafana.store.lane import Address
from kafana.store.notices import MAX_LEN, MAX_MARKS, TTL_MS, Mark, Publish
from kafana.store.notify import Notifier
from kafana.store.redis_notices import RedisNotices
from kafana.store.redis_store import RedisStore, ttl_slack
from kafana.store.resp import bulks
from kafana.v1 import rules_pb2, service_pb2

YOUR_TURN = service_pb2.NOTICE_KIND_YOUR_TURN
RULES = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)


async def your_turns(notices: RedisNotices, account: str) -> list[tuple[str, int, int]]:
    """(table, seat, seq) of every YOUR_TURN notice the account holds, oldest first."""
    page = await notices.read(account, "0-0", 256)
    told = [service_pb2.AccountNotice.FromString(n.data) for n in page.notices]
    return [(n.table_id, n.seat, n.seq) for n in told if n.kind == YOUR_TURN]


@asynccontextmanager
async def table_and_account(
    redis_url: str, prefix: str
) -> AsyncIterator[tuple[RedisStore, RedisNotices, str, str]]:
    """A store, its notices, a new account's name and a new table (at seq 0), closed after."""
    store = RedisStore.from_url(redis_url)
    try:
        table_id = uuid.uuid4().hex[:12]
        assert await store.create(table_id, b"record", 60_000, 1)
        notices = RedisNotices(store.client, store.notifier)
        yield store, notices, f"{prefix}{uuid.uuid4().hex[:6]}", table_id
    finally:
        await store.close()


async def test_moves_tell_your_turn_in_their_own_write(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        tables = Tables(store)
        notices = Notices(tables)
        flushed: list[list[Publish]] = []
        publish_many = notices.store.publish_many

        async def recorded(batch: Sequence[Publish]) -> list[str | None]:
            flushed.append(list(batch))
            return await publish_many(batch)

        notices.store.publish_many = recorded  # type: ignore[method-assign,assignment]
        ann, ben = f"ann{uuid.uuid4().hex[:6]}", f"ben{uuid.uuid4().hex[:6]}"
        table_id, _admin, _session = await tables.create(
            rules_pb2.TableConfig(rules=RULES, seed=11)
        )
        tokens = {}
        for seat, account in enumerate((ann, ben)):
            _, tokens[seat], _ = await tables.join(table_id, seat, account, account)
        await asyncio.sleep(0.05)  # the seats' news is flushed (SEATED, the first YOUR_TURN)
        flushed.clear()
        rng = random.Random(3)
        stream = notices.store
        assert isinstance(stream, RedisNotices)
        played: list[tuple[int, int]] = []
        for _ in range(6):
            session = await tables.session(table_id)
            mover = session.match.current_seat
            assert mover is not None
            move = rng.choice(tables.legal(session, mover))
            answer = await tables.play(
                table_id, tokens[mover], str(move), uuid.uuid4().hex, session.seq
            )
            to_move = answer.session.match.current_seat
            assert to_move is not None
            played.append((answer.seq, to_move))
            # Told by the time the move is answered: it went in the append's own write.
            told = await your_turns(stream, (ann, ben)[to_move])
            assert (table_id, to_move, answer.seq) in told
        await asyncio.sleep(0.05)
        assert flushed == [], "every move's news rode on its append: no flush wrote again"
        told = await your_turns(stream, ann) + await your_turns(stream, ben)
        for seq, seat in played:
            assert told.count((table_id, seat, seq)) == 1  # once each
    finally:
        await store.close()


async def test_a_rider_tells_only_when_its_append_applies(redis_url: str) -> None:
    async with table_and_account(redis_url, "cy") as (store, notices, account, table_id):

        def rider(seq: int, tag: str, data: bytes, who: str = account) -> Append:
            notice = Publish(who, data, Mark(f"{table_id}:1", "h", seq * 4 + 2))
            ride = notices.rider(notice)
            assert ride is not None
            return Append(
                event=b"e%d" % seq,
                ttl_ms=60_000,
                expected_seq=seq - 1,
                dedupe=tag,
                dedupe_slot=0,
                riders=(ride,),
            )

        applied = await store.append(table_id, rider(1, "aa", b"first"))
        assert applied.outcome is Outcome.APPLIED and applied.riders_run
        # Another writer's append at the same seq is refused: its rider tells nothing.
        stale = await store.append(table_id, rider(1, "bb", b"lost"))
        assert stale.outcome is Outcome.STALE
        # A retry of the applied one: the same answer, its news not told twice.
        again = await store.append(table_id, rider(1, "aa", b"first again"))
        assert again.outcome is Outcome.DUPLICATE and again.seq == 1
        page = await notices.read(account, "0-0", 10)
        assert [n.data for n in page.notices] == [b"first"]
        # A script the server forgot is loaded again: the append and its rider, one script.
        await store.client.call("", "SCRIPT", "FLUSH")
        forgot = await store.append(table_id, rider(2, "cc", b"second"))
        assert forgot.outcome is Outcome.APPLIED and forgot.riders_run
        page = await notices.read(account, "0-0", 10)
        assert [n.data for n in page.notices] == [b"first", b"second"]
        # A notice that fails (its account's keys are not what they should be): the append
        # applied all the same, and says its rider did not run (the caller tells the news).
        broken = f"cz{uuid.uuid4().hex[:6]}"
        marks = notice_keys("kafana", broken).marks
        await store.client.call(marks, "SET", marks, "not a hash")
        failed = await store.append(table_id, rider(3, "dd", b"third", broken))
        assert failed.outcome is Outcome.APPLIED and failed.seq == 3 and not failed.riders_run
        loaded = await store.load(table_id)
        assert loaded is not None and [e.data for e in loaded.events] == [b"e1", b"e2", b"e3"]


async def test_a_move_and_its_notice_are_one_script_call(redis_url: str) -> None:
    async with table_and_account(redis_url, "da") as (store, notices, account, table_id):
        await store.client.call("", "CONFIG", "RESETSTAT")
        for seq in (1, 2, 3):
            ride = notices.rider(Publish(account, b"n%d" % seq, Mark("t:0", "h", seq)))
            assert ride is not None
            append = Append(b"e", 60_000, expected_seq=seq - 1, dedupe=f"t{seq}", riders=(ride,))
            assert (await store.append(table_id, append)).riders_run
        info = await store.client.call("", "INFO", "commandstats")
        assert isinstance(info, bytes)
        calls = {
            line.split(":")[0].removeprefix("cmdstat_"): int(line.split("calls=")[1].split(",")[0])
            for line in info.decode().splitlines()
            if line.startswith("cmdstat_")
        }
        assert calls["evalsha"] == 3 and calls["xadd"] == 3 and "hmget" in calls
        assert calls.get("zcard", 0) == 1  # the bound on marks checked for a new mark only
        page = await notices.read(account, "0-0", 10)
        assert [n.data for n in page.notices] == [b"n1", b"n2", b"n3"]


def test_no_rider_on_a_cluster() -> None:
    client = RedisClient(Address(), cluster=True)
    notices = RedisNotices(client, Notifier(client))
    notice = Publish("ann", b"n", Mark("t:0", "h", 6))
    assert notices.rider(notice) is None


def test_a_rider_is_the_notice_scripts_keys_and_arguments() -> None:
    client = RedisClient(Address())
    notices = RedisNotices(client, Notifier(client))
    keys = notice_keys("kafana", "ann")
    for seq, data in ((1, b"one"), (2, b"two")):  # the second from the parts kept packed
        ride = notices.rider(Publish("ann", data, Mark("t:0", "h", seq * 4 + 2)))
        assert ride == Rider(
            keys.stream,
            bulks([key.encode() for key in (keys.stream, keys.marks, keys.order)]),
            bulks(
                [
                    b"t:0",
                    b"h",
                    b"%d" % (seq * 4 + 2),
                    data,
                    b"%d" % MAX_LEN,
                    b"%d" % TTL_MS,
                    b"%d" % MAX_MARKS,
                    keys.live.encode(),
                    b"%d" % ttl_slack(TTL_MS),
                ]
            ),
        )


def test_a_your_turn_from_a_seats_parts_is_the_notice_made_whole() -> None:
    """`your_turn` (the move path's) parses to the notice `_notice` makes, whatever the
    values, the per-move message reused: a zero time left or seat is the default."""
    from kafana.service.notices import YOUR_TURN, _Seat, your_turn
    from kafana.v1 import service_pb2

    for table_id, seat, now, seq, left in (
        ("t1", 0, 1_765_000_000_123, 7, 30_000),
        ("t2", 3, 1_765_000_000_999, 1 << 40, 0),
        ("t1", 1, 5, 2, (1 << 32) - 1),
    ):
        turn = service_pb2.AccountNotice(kind=YOUR_TURN, table_id=table_id, seat=seat)
        held = _Seat("ann", "h", f"{table_id}:{seat}", turn.SerializeToString())
        whole = service_pb2.AccountNotice(
            kind=YOUR_TURN,
            time_ms=now,
            table_id=table_id,
            seat=seat,
            seq=seq,
            remaining_millis=left,
        )
        assert service_pb2.AccountNotice.FromString(your_turn(held, now, seq, left)) == whole
