"""WatchAccount: one stream per account tells it of every table it sits at (SEATED, YOUR_TURN,
GAME_OVER), resumes by id without repeats, wakes across processes and stays bounded."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from kafana.service import notices as notices_module
from kafana.service.notices import notices_of
from kafana.service.ratelimit import RateLimit
from kafana.store.accounts import Account, AccountStore, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.base import Append, Outcome
from kafana.store.keys import notice_keys
from kafana.store.notices import Mark, NoticeStore, Publish, trim_every
from kafana.store.redis_notices import RedisNotices
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2, service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_play import card_tokens, config, strings
from kit import (
    Service,
    healthy,
    info_metadata,
    reason_of,
    redis_cluster,
    refusal,
    running,
    seat_md,
    serving,
)

Notice = service_pb2.AccountNotice
SEATED = service_pb2.NOTICE_KIND_SEATED
YOUR_TURN = service_pb2.NOTICE_KIND_YOUR_TURN
GAME_OVER = service_pb2.NOTICE_KIND_GAME_OVER
Metadata = tuple[tuple[str, str], ...]


def bearer(key: str) -> Metadata:
    """Call metadata carrying the API key `key`."""
    return (("authorization", f"Bearer {key}"),)


async def account(store: RedisStore | AccountStore, name: str) -> str:
    """A player account made straight in the store (a Redis store's, or this one): its key."""
    accounts = RedisAccounts(store.client) if isinstance(store, RedisStore) else store
    key = new_key()
    assert await accounts.create(Account(name, "player", now_ms()), key_hash(key))
    return key


@dataclass
class Served:
    """A server on the private Redis, and where its accounts are."""

    svc: Service
    accounts: RedisStore | AccountStore


@pytest.fixture
async def served(redis_url: str) -> AsyncIterator[Served]:
    """The service on the private Redis (its accounts and notices there too)."""
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, heartbeat_s=0.3) as svc:
            yield Served(svc, store)
    finally:
        await store.close()


@dataclass
class Player:
    """An account that plays every table it is told of from its one WatchAccount stream."""

    stub: KafanaServiceStub
    key: str
    tokens: dict[str, str] = field(default_factory=dict)  # table -> seat token
    notices: list[Notice] = field(default_factory=list)
    moves: list[tuple[str, int]] = field(default_factory=list)  # (table, seq it answered)

    async def join(self, table_id: str, seat: int) -> None:
        joined = await self.stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=table_id, seat=seat, name="p"),
            metadata=bearer(self.key),
        )
        self.tokens[table_id] = joined.seat_token

    async def play(self, games: int, rng: random.Random) -> None:
        """Follow the stream from the start, answer every YOUR_TURN, until `games` are over."""
        call = self.stub.WatchAccount(
            service_pb2.WatchAccountRequest(after="0-0"), metadata=bearer(self.key)
        )
        over = 0
        async for item in call:
            if not item.HasField("notice"):
                continue
            notice = item.notice
            self.notices.append(notice)
            if notice.kind == GAME_OVER:
                over += 1
                if over == games:
                    call.cancel()
                    return
            if notice.kind == YOUR_TURN:
                await self._move(notice, rng)

    async def _move(self, notice: Notice, rng: random.Random) -> None:
        token = self.tokens[notice.table_id]
        legal = await self.stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=notice.table_id), metadata=seat_md(token)
        )
        assert legal.seq == notice.seq, "a YOUR_TURN names the seq the turn is at"
        await self.stub.PlayMove(
            service_pb2.PlayMoveRequest(
                table_id=notice.table_id,
                move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
                client_move_id=uuid.uuid4().hex,
                last_seq=notice.seq,
            ),
            metadata=seat_md(token),
        )
        self.moves.append((notice.table_id, notice.seq))


async def notices_after(
    stub: KafanaServiceStub, key: str, after: str, count: int
) -> AsyncIterator[Notice]:
    """`count` notices of the account's stream after `after`, then a hang-up."""
    call = stub.WatchAccount(service_pb2.WatchAccountRequest(after=after), metadata=bearer(key))
    seen = 0
    async for item in call:
        if item.HasField("notice"):
            yield item.notice
            seen += 1
            if seen == count:
                call.cancel()
                return


async def test_one_stream_plays_three_tables_and_resumes_without_repeats(served: Served) -> None:
    svc = served.svc
    bot = Player(svc.stub, await account(served.accounts, "bot3"))
    rival = Player(svc.stub, await account(served.accounts, "rival3"))
    tables = []
    for number in range(3):
        cfg = config(seed=40 + number, target=1)
        if number == 2:  # a table that binds its seats to the two accounts
            cfg.seat_accounts.extend(["rival3", "bot3"])
        created = await svc.stub.CreateTable(service_pb2.CreateTableRequest(config=cfg))
        tables.append(created.table_id)
    for number, table_id in enumerate(tables):
        bot_seat = 1 if number == 2 else number % 2
        await bot.join(table_id, bot_seat)
        await rival.join(table_id, 1 - bot_seat)
    rng = random.Random(3)
    await asyncio.wait_for(asyncio.gather(bot.play(3, rng), rival.play(3, rng)), 120)

    for player, name in ((bot, "bot3"), (rival, "rival3")):
        kinds = [n.kind for n in player.notices]
        assert kinds.count(SEATED) == 3 and kinds.count(GAME_OVER) == 3, kinds
        assert {n.table_id for n in player.notices if n.kind == SEATED} == set(tables)
        over = [n for n in player.notices if n.kind == GAME_OVER]
        assert {n.table_id for n in over} == set(tables)
        assert all(n.result.detail and n.HasField("result") for n in over)
        turns = [(n.table_id, n.seq) for n in player.notices if n.kind == YOUR_TURN]
        assert turns == player.moves, f"{name} moved once per YOUR_TURN, in order"
        assert {t for t, _ in turns} == set(tables), "it had to move at every table"
        ids = [n.id for n in player.notices]
        assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))))
        assert len(set(ids)) == len(ids)
        seated = {n.table_id: n.seat for n in player.notices if n.kind == SEATED}
        assert seated[tables[2]] == (1 if player is bot else 0)
        # No token, seed or card in any notice: only ids, seats, seqs and results.
        secrets = set(player.tokens.values())
        for notice in player.notices:
            assert not secrets & set(strings(notice)), notice
            assert not card_tokens(notice), notice
            assert not notice.HasField("ticket")
    # Every match is over; the bot's turns were all told (else it could not finish).
    for table_id in tables:
        state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        assert state.info.status == state_pb2.TABLE_STATUS_FINISHED

    # Resume after the 5th notice: exactly the rest, nothing twice, then only heartbeats.
    told = bot.notices
    again = [n async for n in notices_after(svc.stub, bot.key, told[4].id, len(told) - 5)]
    assert [n.id for n in again] == [n.id for n in told[5:]]
    assert again == told[5:]
    call = svc.stub.WatchAccount(
        service_pb2.WatchAccountRequest(after=told[-1].id), metadata=bearer(bot.key)
    )
    first = await asyncio.wait_for(call.read(), 5)
    assert first.HasField("heartbeat") and first.heartbeat.seq == 0
    call.cancel()
    # a made-up id is refused naming the field: past 64 bits, or of non-ASCII digits, it
    # reached Redis ("ERR Invalid stream ID"): INTERNAL and a traceback (a review, 7 Dec)
    for after in ("99999999999999999999-1", "\u0661\u0667-\u0663", "abc"):
        refused = await refusal(
            anext(
                aiter(
                    svc.stub.WatchAccount(
                        service_pb2.WatchAccountRequest(after=after), metadata=bearer(bot.key)
                    )
                )
            )
        )
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT, after
        assert info_metadata(refused).get("field") == "after", after


async def test_a_move_on_one_process_wakes_the_stream_on_another(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The near stream re-reads only every 60 s (and beats every 30 s): a notice within
    # seconds is the far process's wake-up, whatever the machine's load.
    monkeypatch.setattr(notices_module, "POLL_S", 60.0)
    store = RedisStore.from_url(redis_url)
    try:
        key = await account(store, "cross")
        with serving(tmp_path, "--redis", redis_url, "--auth", "open") as (other,):
            other.wait_started()
            await healthy(other.target)
            async with (
                running(store, heartbeat_s=30) as near,
                grpc.aio.insecure_channel(other.target) as channel,
            ):
                far = KafanaServiceStub(channel)  # the `kafana serve` process
                created = await far.CreateTable(
                    service_pb2.CreateTableRequest(
                        config=config(seed=5, target=1, move_millis=60_000)
                    )
                )
                table_id = created.table_id
                call = near.stub.WatchAccount(
                    service_pb2.WatchAccountRequest(), metadata=bearer(key)
                )
                # The stream is open once the server has read where "now" is: the first
                # JoinTable below comes after it (a heartbeat every 30 s proves nothing).
                await asyncio.sleep(0.5)
                mine = await far.JoinTable(
                    service_pb2.JoinTableRequest(table_id=table_id, seat=1, name="me"),
                    metadata=bearer(key),
                )
                other_seat = await far.JoinTable(
                    service_pb2.JoinTableRequest(table_id=table_id, seat=0, name="them")
                )
                seated = await asyncio.wait_for(call.read(), 5)
                assert seated.notice.kind == SEATED and seated.notice.seat == 1
                # The near process follows the table too (a spectator's feed), so both
                # processes hear every move: each notice must still come once.
                spectator = near.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id))
                await asyncio.sleep(0.3)
                # Seat 0 moves on the far process: the near stream hears the turn at once.
                legal = await far.GetLegalMoves(
                    service_pb2.GetLegalMovesRequest(table_id=table_id),
                    metadata=seat_md(other_seat.seat_token),
                )
                await far.PlayMove(
                    service_pb2.PlayMoveRequest(
                        table_id=table_id,
                        move=state_pb2.Move(text=legal.moves[0].text),
                        client_move_id="m1",
                        last_seq=legal.seq,
                    ),
                    metadata=seat_md(other_seat.seat_token),
                )
                turn = await asyncio.wait_for(call.read(), 5)
                assert turn.notice.kind == YOUR_TURN
                assert (turn.notice.table_id, turn.notice.seat) == (table_id, 1)
                assert turn.notice.seq == legal.seq + 1
                assert 50_000 < turn.notice.remaining_millis <= 60_000, "the clock's time left"
                # Our seat answers, seat 0 again: the next notice is the next turn, no repeat.
                for token, move_id in ((mine.seat_token, "m2"), (other_seat.seat_token, "m3")):
                    legal = await far.GetLegalMoves(
                        service_pb2.GetLegalMovesRequest(table_id=table_id),
                        metadata=seat_md(token),
                    )
                    await far.PlayMove(
                        service_pb2.PlayMoveRequest(
                            table_id=table_id,
                            move=state_pb2.Move(text=legal.moves[0].text),
                            client_move_id=move_id,
                            last_seq=legal.seq,
                        ),
                        metadata=seat_md(token),
                    )
                after = await asyncio.wait_for(call.read(), 5)
                assert after.notice.kind == YOUR_TURN
                assert after.notice.seq == turn.notice.seq + 2, "told once, by one process"
                await asyncio.sleep(0.3)
                told = near.server.servicer.notices._seen[table_id]
                assert told.seq == after.notice.seq, "the near process heard the news too"
                call.cancel()
                spectator.cancel()
    finally:
        await store.close()


async def test_anonymous_callers_are_refused(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store) as svc:
            call = svc.stub.WatchAccount(service_pb2.WatchAccountRequest())
            error = await refusal(call.read())
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            assert reason_of(error) == "API_KEY_MISSING"
            key = await account(store, "badafter")
            call = svc.stub.WatchAccount(
                service_pb2.WatchAccountRequest(after="yesterday"), metadata=bearer(key)
            )
            error = await refusal(call.read())
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "after" in (error.details() or "")
    finally:
        await store.close()


async def test_account_streams_count_against_the_stream_cap(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, rate_limit=RateLimit(max_streams=2), heartbeat_s=0.2) as svc:
            key = await account(store, "capped")
            calls = [
                svc.stub.WatchAccount(service_pb2.WatchAccountRequest(), metadata=bearer(key))
                for _ in range(2)
            ]
            for call in calls:  # each is open: it says so with a heartbeat
                assert (await asyncio.wait_for(call.read(), 5)).HasField("heartbeat")
            extra = svc.stub.WatchAccount(service_pb2.WatchAccountRequest(), metadata=bearer(key))
            error = await refusal(extra.read())
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(error) == "QUOTA_EXCEEDED"
            for call in calls:
                call.cancel()
    finally:
        await store.close()


@pytest.fixture
async def notices(redis_url: str) -> AsyncIterator[NoticeStore]:
    """The notice store on the private Redis, keeping 5 notices and 3 marks per account."""
    store = RedisStore.from_url(redis_url)
    try:
        yield RedisNotices(store.client, store.notifier, max_len=5, max_marks=3)
    finally:
        await store.close()


async def test_the_stream_is_bounded_and_marks_keep_news_once(notices: NoticeStore) -> None:
    name = f"bound{uuid.uuid4().hex[:6]}"
    ids = [await notices.publish(name, b"n%d" % i) for i in range(20)]
    page = await notices.read(name, "0-0", 100)
    assert [n.data for n in page.notices] == [b"n%d" % i for i in range(15, 20)]
    assert [n.id for n in page.notices] == ids[15:]
    assert page.count == 20 and page.last == ids[-1]
    if isinstance(notices, RedisNotices):
        assert await notices._client.call("", "XLEN", notice_keys("kafana", name).stream) == 5
    # Resume after an id: only what came later.
    assert [n.data for n in (await notices.read(name, ids[17] or "", 100)).notices] == [
        b"n18",
        b"n19",
    ]
    # The same news twice (two processes) is kept once; a higher rank or a new holder is news.
    assert await notices.publish(name, b"t", Mark("tab:0", "h1", 6)) is not None
    assert await notices.publish(name, b"t", Mark("tab:0", "h1", 6)) is None
    assert await notices.publish(name, b"t", Mark("tab:0", "h1", 5)) is None
    assert await notices.publish(name, b"t", Mark("tab:0", "h1", 7)) is not None
    assert await notices.publish(name, b"t", Mark("tab:0", "h2", 1)) is not None
    # Marks are bounded too: the oldest go first (and would tell their news again).
    for table in ("a", "b", "c"):
        assert await notices.publish(name, b"m", Mark(f"{table}:0", "h", 1)) is not None
    assert await notices.publish(name, b"t", Mark("tab:0", "h2", 1)) is not None


async def test_marks_go_in_the_order_they_were_first_set(notices: NoticeStore) -> None:
    """Three marks kept: a fourth drops the first set, even when it was told again since."""
    name = f"order{uuid.uuid4().hex[:6]}"
    for table in ("a", "b", "c"):
        assert await notices.publish(name, b"m", Mark(f"{table}:0", "h", 1)) is not None
    assert await notices.publish(name, b"m", Mark("a:0", "h", 2)) is not None  # a again
    assert await notices.publish(name, b"m", Mark("d:0", "h", 1)) is not None  # a goes
    assert await notices.publish(name, b"m", Mark("b:0", "h", 1)) is None  # b is kept
    assert await notices.publish(name, b"m", Mark("a:0", "h", 2)) is not None  # a forgotten


async def test_a_long_stream_is_trimmed_in_batches_never_below_its_bound(redis_url: str) -> None:
    """A bound of 16 trims every 2 notices (`trim_every`), whether a notice is published or
    rides on a move's append: the stream always holds the newest 16, at most 17."""
    store = RedisStore.from_url(redis_url)
    try:
        notices = RedisNotices(store.client, store.notifier, max_len=16)
        assert trim_every(16) == 2
        name = f"trim{uuid.uuid4().hex[:6]}"
        table_id = uuid.uuid4().hex[:12]
        assert await store.create(table_id, b"record", 60_000, 1)
        stream = notice_keys("kafana", name).stream
        lengths = []
        for i in range(40):
            if i % 2:
                rider = notices.rider(Publish(name, b"n%d" % i))
                append = Append(b"e%d" % i, 60_000, expected_seq=i // 2, riders=(rider,))
                result = await store.append(table_id, append)
                assert result.outcome is Outcome.APPLIED and result.riders_run
            else:
                assert await notices.publish(name, b"n%d" % i) is not None
            lengths.append(await store.client.call("", "XLEN", stream))
            page = await notices.read(name, "0-0", 100)
            assert [n.data for n in page.notices][-16:] == [
                b"n%d" % k for k in range(max(0, i - 15), i + 1)
            ]
        assert max(lengths) == 17 and lengths[-1] == 16 and min(lengths[16:]) == 16
    finally:
        await store.close()


async def test_a_waiter_wakes_on_a_notice_from_another_client(redis_url: str) -> None:
    first, second = RedisStore.from_url(redis_url), RedisStore.from_url(redis_url)
    try:
        reader = RedisNotices(first.client, first.notifier)
        writer = RedisNotices(second.client, second.notifier)
        page = await reader.read("waker", "", 10)
        loop = asyncio.get_running_loop()
        started = loop.time()
        waiting = asyncio.create_task(reader.wait("waker", page.count, 5000))
        await asyncio.sleep(0.2)
        await writer.publish("waker", b"hello")
        assert await asyncio.wait_for(waiting, 5) == page.count + 1
        assert loop.time() - started < 2, "woken by the publish, not the 5 s timeout"
        later = await reader.read("waker", page.last, 10)
        assert [n.data for n in later.notices] == [b"hello"]
    finally:
        await first.close()
        await second.close()


async def test_the_sdk_follows_an_account_in_both_faces(redis_url: str) -> None:
    from kafana_client import AsyncClient, Client

    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, heartbeat_s=0.3) as svc:
            key = await account(store, "sdk")
            created = await svc.stub.CreateTable(
                service_pb2.CreateTableRequest(config=config(seed=9, target=1))
            )
            async with AsyncClient.connect(svc.target, key=key) as client:
                stream = client.watch_account(after="0-0")
                seat = await client.join(created.table_id, seat=1, name="sdk")
                await svc.stub.JoinTable(
                    service_pb2.JoinTableRequest(table_id=created.table_id, seat=0, name="x")
                )
                first = await asyncio.wait_for(anext(stream), 5)
                assert (first.kind, first.table_id, first.seat) == (SEATED, seat.table_id, 1)
                await stream.aclose()

            def blocking() -> list[Notice]:
                with Client.connect(svc.target, key=key) as sync:
                    notices = sync.watch_account(after="0-0")
                    return [next(notices)]

            (again,) = await asyncio.to_thread(blocking)
            assert again.id == first.id
    finally:
        await store.close()


async def test_league_tickets_are_told_once_and_keep_no_token(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, heartbeat_s=0.3) as svc:
            key = await account(store, "leaguer")
            notices = notices_of(svc.server.servicer.tables)
            assert notices is svc.server.servicer.notices
            ticket = leagues_pb2.Ticket(
                league="spring", match=7, table_id="t7", seat=1, seat_token="s3cr3t-token"
            )
            update = leagues_pb2.TicketUpdate(ticket=ticket)
            assert await notices.ticket("leaguer", update) is not None
            assert await notices.ticket("leaguer", update) is None  # told once
            settled = leagues_pb2.TicketUpdate(
                settled=leagues_pb2.MatchInfo(league="spring", match=7)
            )
            assert await notices.ticket("leaguer", settled) is not None
            stream = notice_keys("kafana", "leaguer").stream
            kept = await store.client.call(stream, "XRANGE", stream, "-", "+")
            assert b"s3cr3t-token" not in repr(kept).encode(), "no token is stored"

            async def reveal(name: str, held: leagues_pb2.Ticket) -> str:
                return "s3cr3t-token" if (name, held.match) == ("leaguer", 7) else ""

            notices.reveal.append(reveal)
            told = [n async for n in notices_after(svc.stub, key, "0-0", 2)]
            assert [n.kind for n in told] == [service_pb2.NOTICE_KIND_TICKET] * 2
            assert told[0].ticket.ticket.seat_token == "s3cr3t-token"  # the owner's stream only
            assert told[1].ticket.settled.match == 7
    finally:
        await store.close()


async def test_a_stopping_server_ends_the_stream_with_where_to_resume(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, heartbeat_s=30) as svc:
            key = await account(store, "stopper")
            call = svc.stub.WatchAccount(
                service_pb2.WatchAccountRequest(after="0-0"), metadata=bearer(key)
            )
            await asyncio.sleep(0.3)
            svc.server.servicer.stopping.set()  # what KafanaServer.stop does first
            error = await refusal(asyncio.wait_for(call.read(), 5))
            assert error.code() == grpc.StatusCode.UNAVAILABLE
            assert reason_of(error) == "SERVER_STOPPING"
            assert "'0-0'" in (error.details() or "")
    finally:
        await store.close()


async def test_notices_on_a_redis_cluster(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        try:
            notices = RedisNotices(store.client, store.notifier)
            names = [f"acct{i}" for i in range(12)]  # spread over the masters
            slots = {await store.client.node_of(notice_keys("kafana", n).stream) for n in names}
            assert len(slots) > 1
            for name in names:
                waiting = asyncio.create_task(notices.wait(name, 0, 3000))
                await asyncio.sleep(0.05)
                await notices.bind(f"tab{name}", "h1", name)
                found = await notices.publish(
                    name, b"x", Mark("t:0", "h1", 2), keep_table=f"tab{name}"
                )
                assert found is not None
                assert await asyncio.wait_for(waiting, 5) == 1
                page = await notices.read(name, "0-0", 10)
                assert [n.data for n in page.notices] == [b"x"] and page.last == found
                assert await notices.bound(f"tab{name}") == {"h1": name}
        finally:
            await store.close()
