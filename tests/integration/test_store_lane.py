"""The store's Redis client: pipelined lanes whose replies go to the calls in order."""

from __future__ import annotations

import asyncio
import shutil
import socket
import time
from pathlib import Path

import pytest
from kafana.store.base import OPEN, Append, Outcome
from kafana.store.client import RedisClient, parse_url
from kafana.store.errors import NoScriptError, StoreError, StoreUnavailable
from kafana.store.lane import CLOSE_WAIT_S, Address, Lane, _Protocol
from kafana.store.redis_store import RedisStore
from kafana.store.resp import pack, parse
from kit import free_port, redis_server
from reliability.reliability_support import make_certs

TTL = 60_000


def test_pack_is_resp_arrays_of_bulk_strings() -> None:
    assert pack("SET", "k", 12, b"\x00\xff") == (
        b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n12\r\n$2\r\n\x00\xff\r\n"
    )


def test_parse_waits_for_a_whole_reply() -> None:
    reply = b"*3\r\n$7\r\napplied\r\n:12\r\n$-1\r\n"
    assert parse(reply, 0) == ([b"applied", 12, None], len(reply))
    for cut in range(len(reply)):
        assert parse(reply[:cut], 0) is None, cut
    assert parse(b"+OK\r\n:5\r\n", 5) == (5, 9)


def test_error_replies_are_the_stores_errors() -> None:
    found = parse(b"-NOSCRIPT No matching script.\r\n", 0)
    assert found is not None and isinstance(found[0], NoScriptError)
    found = parse(b"-LOADING Redis is loading the dataset in memory\r\n", 0)
    assert found is not None and isinstance(found[0], StoreUnavailable)
    found = parse(b"-ERR wrong number of arguments\r\n", 0)
    assert found is not None and type(found[0]) is StoreError
    assert "wrong number" in str(found[0])


async def test_replies_split_and_joined_anyhow_reach_their_calls_in_order() -> None:
    protocol = _Protocol()
    loop = asyncio.get_running_loop()
    futures = [loop.create_future() for _ in range(4)]
    protocol.pending.extend(futures)
    stream = b":1\r\n$5\r\nhello\r\n*2\r\n:3\r\n$0\r\n\r\n-ERR no\r\n"
    for i in range(len(stream)):  # a byte at a time
        protocol.data_received(stream[i : i + 1])
    assert [f.result() for f in futures[:3]] == [1, b"hello", [3, b""]]
    assert isinstance(futures[3].result(), StoreError)
    assert not protocol.pending and not protocol.buffer


async def test_many_concurrent_calls_each_get_their_own_reply(redis_url: str) -> None:
    lane = Lane(parse_url(redis_url)[1])
    try:
        replies = await asyncio.gather(*(lane.call(pack("ECHO", f"m{i}")) for i in range(300)))
        assert replies == [f"m{i}".encode() for i in range(300)]
    finally:
        await lane.close()


async def test_a_lost_connection_fails_waiting_calls_and_the_next_call_reconnects(
    redis_url: str,
) -> None:
    lane = Lane(parse_url(redis_url)[1])
    admin = RedisClient.from_url(redis_url)
    try:
        key = f"lane-nothing-{id(lane)}"
        waiting = asyncio.create_task(lane.call(pack("BLPOP", key, 10)))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await admin.call("", "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(waiting, 5)
        assert await lane.call(pack("PING")) == b"PONG"
    finally:
        await lane.close()
        await admin.close()


async def test_a_lane_selects_the_database_of_the_url(redis_url: str) -> None:
    url = redis_url.rsplit("/", 1)[0] + "/3"
    store = RedisStore.from_url(url)
    other = RedisClient.from_url(url)
    first = RedisClient.from_url(redis_url)
    try:
        assert await store.create("lane-db", b"table", TTL, 1)
        assert await other.call("", "EXISTS", "{t:lane-db}:state") == 1
        assert await first.call("", "EXISTS", "{t:lane-db}:state") == 0
    finally:
        await first.close()
        await other.close()
        await store.close()


async def test_scripts_flushed_from_redis_are_loaded_again(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        assert await store.create("lane-flush", b"table", TTL, 1)
        await store.client.call("", "SCRIPT", "FLUSH")
        result = await store.append("lane-flush", Append(b"e1", TTL, expected_seq=0))
        assert result.outcome is Outcome.APPLIED and result.seq == 1
        await store.client.call("", "SCRIPT", "FLUSH")
        indexed = Append(b"e2", TTL, expected_seq=1, deadline_ms=5_000)
        assert (await store.append("lane-flush", indexed)).seq == 2
        assert await store.due(5_000, 10) == ["lane-flush"]
        await store.client.call("", "SCRIPT", "FLUSH")
        snapshot = await store.load("lane-flush")
        assert snapshot is not None and [e.data for e in snapshot.events] == [b"e1", b"e2"]
    finally:
        await store.close()


async def test_every_outcome_of_the_append_through_the_client(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    table = "lane-same"
    try:
        assert await store.create(table, b"table", TTL, 1)
        assert not await store.create(table, b"table", TTL, 1)
        take = Append(b"j0", TTL, require_status=OPEN, take_seat=0, seat_data=b"s0")
        assert (await store.append(table, take)).outcome is Outcome.APPLIED
        assert (await store.append(table, take)).outcome is Outcome.SEAT_TAKEN
        move = Append(b"m1", TTL, expected_seq=1, dedupe="abc", dedupe_slot=0)
        applied = await store.append(table, move)
        assert (applied.outcome, applied.seq, applied.status) == (Outcome.APPLIED, 2, OPEN)
        retry = await store.append(table, move)
        assert (retry.outcome, retry.seq) == (Outcome.DUPLICATE, 2)
        stale = await store.append(table, Append(b"m2", TTL, expected_seq=0))
        assert (stale.outcome, stale.seq) == (Outcome.STALE, 2)
        missing = await store.append("lane-no-such-table", Append(b"x", TTL))
        assert missing.outcome is Outcome.MISSING
        snapshot = await store.load(table, 1)
        assert snapshot is not None and [e.data for e in snapshot.events] == [b"m1"]
        assert snapshot.marks == {0: (2, "abc")} and snapshot.seats == {0: b"s0"}
        assert await store.load("lane-no-such-table") is None
    finally:
        await store.close()


async def test_closing_a_lane_to_a_server_that_stopped_reading_ends_in_time() -> None:
    # A peer that accepts and never reads: the lane's write buffer never drains, so a polite
    # close would wait forever; it gives up after CLOSE_WAIT_S and fails the waiting call.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        lane = Lane(Address("127.0.0.1", listener.getsockname()[1]))
        flood = pack("PING") * 2_000_000  # 28 MB: more than the socket buffers hold
        waiting = asyncio.create_task(lane.calls([flood]))
        await asyncio.sleep(0.3)
        peer, _ = listener.accept()
        with peer:
            start = time.monotonic()
            await asyncio.wait_for(lane.close(), CLOSE_WAIT_S + 5)
            assert time.monotonic() - start < CLOSE_WAIT_S + 1
            with pytest.raises(StoreUnavailable):
                await asyncio.wait_for(waiting, 5)


async def test_a_unix_socket_url_reaches_the_server(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    with redis_server(tmp_path / "redis", "--unixsocket", str(sock)):
        store = RedisStore.from_url(f"unix://{sock}?db=2")
        try:
            assert await store.create("over-unix", b"table", TTL, 1)
            assert (await store.append("over-unix", Append(b"e1", TTL))).seq == 1
            listed = await store.client.call("", "CLIENT", "INFO")
            assert isinstance(listed, bytes) and b"db=2" in listed
        finally:
            await store.close()


async def test_a_rediss_url_speaks_tls_and_checks_the_certificate(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl")
    (tmp_path / "certs").mkdir()
    certs = make_certs(tmp_path / "certs")
    tls_port = free_port()
    tls = ["--tls-port", str(tls_port), "--tls-auth-clients", "no"]
    tls += [
        "--tls-cert-file",
        str(certs / "server.pem"),
        "--tls-key-file",
        str(certs / "server.key"),
    ]
    tls += ["--tls-ca-cert-file", str(certs / "ca.pem")]
    with redis_server(tmp_path / "redis", *tls):
        url = f"rediss://127.0.0.1:{tls_port}/0"
        store = RedisStore.from_url(f"{url}?ssl_ca_certs={certs / 'ca.pem'}")
        untrusted = RedisStore.from_url(url)  # the test CA is not among the system's
        try:
            assert await store.create("over-tls", b"table", TTL, 1)
            assert (await store.append("over-tls", Append(b"e1", TTL))).seq == 1
            with pytest.raises(StoreUnavailable):
                await untrusted.load("over-tls")
        finally:
            await store.close()
            await untrusted.close()
