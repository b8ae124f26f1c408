"""Transport attacks on a real server: HTTP/2 rapid reset on the gRPC port, slow requests and
too many connections on the HTTP port.

Issue "A server strangers cannot stall": two connections sent 80,000 HEADERS+RST_STREAM with
no key; 6-17 of 14-31 legitimate calls a run were answered CANCELLED, and the attacking
connections were never closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import resource
import socket
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from kafana.service.resets import ENHANCE_YOUR_CALM
from kafana.service.web.listener import MAX_PER_ADDRESS
from kafana.service.web.pages import STATIC
from kafana.service.web.serve import FLOOD_LINES
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import Served, Service, healthy, http_service, running, serving

from .reset_attack import Attack

ATTACK_S = 20.0  # how long one attacking connection keeps resetting unless the server closes it


async def attacker(port: int) -> Attack:
    """One attacking connection, from a process of its own (reset_attack.py)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("reset_attack.py")),
        str(port),
        str(ATTACK_S),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), ATTACK_S + 30)
    assert process.returncode == 0, out
    return Attack(**json.loads(out))


async def test_rapid_reset_closes_the_connection_and_others_are_served(
    service: Service,
) -> None:
    answers: list[str] = []
    done = asyncio.Event()

    async def legitimate() -> None:
        while not done.is_set():
            try:
                await service.stub.GetServerInfo(service_pb2.GetServerInfoRequest(), timeout=10)
                answers.append("OK")
            except grpc.aio.AioRpcError as error:
                answers.append(error.code().name)
            await asyncio.sleep(0.02)

    callers = [asyncio.create_task(legitimate()) for _ in range(3)]
    await asyncio.sleep(0.2)
    attacks = await asyncio.gather(*(attacker(service.port) for _ in range(2)))
    await asyncio.sleep(0.5)
    done.set()
    await asyncio.gather(*callers)
    print(f"rapid reset: {attacks}; legitimate calls: {len(answers)}")
    for attack in attacks:
        # closed by the server, before the attack gave up, after a few of its half-second looks
        # (on a busy machine: seconds)
        assert attack.closed in (
            f"goaway {ENHANCE_YOUR_CALM}",
            "eof",
            "ConnectionResetError",
            "BrokenPipeError",
        ), attack
        assert attack.seconds < 15, attack
    assert service.server.resets.closed == 2
    assert len(answers) >= 3 and set(answers) == {"OK"}, answers  # none refused, none lost


# --http: bodies and headers that never end, and more connections than the process can hold.
# Issue "A server strangers cannot stall": 1,100 requests whose body never finished used every
# file descriptor (1,024), the gRPC port stopped answering, the log wrote ~137,000 lines in 4 s.

SLOW_BODY = (
    b"POST /kafana.v1.KafanaService/GetServerInfo HTTP/1.1\r\nHost: kafana\r\n"
    b"Content-Type: application/json\r\nConnect-Protocol-Version: 1\r\n"
    b"Content-Length: 1000\r\n\r\n{"
)


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """Everything the server sent until it closed the connection (fails after `seconds`)."""
    return await asyncio.wait_for(reader.read(), seconds)


@pytest.fixture
async def web(redis_url: str) -> AsyncIterator[Service]:
    """The service with its HTTP port, a short body timeout (1 s)."""
    async with http_service(redis_url) as svc:
        assert svc.server.http is not None
        svc.server.http.app.body_timeout = 1.0
        yield svc


async def test_a_body_that_never_ends_is_refused_and_closed(web: Service) -> None:
    assert web.server.http is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", web.server.http.port)
    writer.write(SLOW_BODY)
    started = time.monotonic()
    answer = await closed_within(reader, 10)
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"did not arrive within 1 s" in answer
    assert 0.9 < time.monotonic() - started < 5
    writer.close()


async def test_a_flood_of_listener_errors_writes_a_few_lines(
    web: Service, caplog: pytest.LogCaptureFixture
) -> None:
    """What asyncio and hypercorn log per connection (an accept failing for want of files, a
    broken handshake) is bounded while the HTTP port serves: 1,000 errors, 10 lines."""
    with caplog.at_level(logging.ERROR):
        for number in range(1000):
            logging.getLogger("asyncio").error("socket.accept() out of system resource %d", number)
    written = [r for r in caplog.records if r.name == "asyncio"]
    assert len(written) == FLOOD_LINES


async def test_connections_past_the_bound_are_closed_at_once(web: Service) -> None:
    assert web.server.http is not None
    # the held ones stay open (a loaded CI machine took over the fixture's 1 s body timeout
    # to open them all, so the first were gone before the last came: none past the bound)
    web.server.http.app.body_timeout = 60.0
    port = web.server.http.port
    held = []
    for _ in range(MAX_PER_ADDRESS + 40):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(SLOW_BODY)
        held.append((reader, writer))

    async def closed(reader: asyncio.StreamReader) -> bool:
        """Closed unanswered within 10 s (the others stay open)."""
        try:
            return await asyncio.wait_for(reader.read(), 10) == b""
        except TimeoutError:
            return False

    # all at once (one by one, 0.05 s each after a 0.3 s pause, a loaded run counted 10)
    assert sum(await asyncio.gather(*(closed(r) for r, _ in held))) == 40
    info = await web.stub.GetServerInfo(service_pb2.GetServerInfoRequest(), timeout=5)
    assert info.version
    for _, writer in held:
        writer.close()


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


async def test_a_connection_no_byte_moves_on_is_closed(web: Service) -> None:
    """The 24 bytes that begin HTTP/2, then nothing: hypercorn's own timer stops there, and
    such a connection held its place for good (a review: 8 addresses x 128 of them took the
    whole port, browsers refused, for as long as the attacker liked)."""
    assert web.server.http is not None
    web.server.http.app.idle_timeout = 2.0
    reader, writer = await asyncio.open_connection("127.0.0.1", web.server.http.port)
    writer.write(H2_PREFACE)
    started = time.monotonic()
    await closed_within(reader, 10)  # the server's SETTINGS, then the end
    assert 1.5 < time.monotonic() - started < 5
    writer.close()


async def test_answers_a_client_never_reads_are_let_go(web: Service) -> None:
    """Pipelined requests for the app's biggest file, never read: once nothing moves the
    connection is closed and what was queued for it let go (it was held for good)."""
    assert web.server.http is not None
    web.server.http.app.idle_timeout = 2.0
    assets = STATIC / "assets"
    biggest = max(assets.iterdir(), key=lambda f: f.stat().st_size)
    asked = 100
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # little room on our side
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", web.server.http.port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
    writer.write(f"GET /assets/{biggest.name} HTTP/1.1\r\nHost: k\r\n\r\n".encode() * asked)
    await asyncio.sleep(4.0)  # nothing read: the server's writes stop
    taken = await closed_within(reader, 10)
    assert len(taken) < asked * biggest.stat().st_size / 4, len(taken)  # cut off, not all sent
    writer.close()


async def test_http2_answers_a_client_gives_no_window_for_are_let_go(web: Service) -> None:
    """HTTP/2 without TLS, the flow-control window 0, the app's biggest file asked for on many
    streams: nothing can be sent. The connection is closed once nothing moves and its place
    given back (a review: 20 such connections held 940 MB of answers for good; closing the
    socket alone left hypercorn waiting on the stuck answers, the place never given back)."""
    import h2.config
    import h2.connection
    import h2.settings

    http = web.server.http
    assert http is not None
    http.app.idle_timeout = 2.0
    biggest = max((STATIC / "assets").iterdir(), key=lambda f: f.stat().st_size)
    _reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    for _ in range(10):
        path = f"/assets/{biggest.name}"
        headers = [(":method", "GET"), (":path", path), (":scheme", "http"), (":authority", "k")]
        client.send_headers(client.get_next_available_stream_id(), headers, end_stream=True)
    writer.write(client.data_to_send())
    await writer.drain()
    while http.counts.open == 0:  # accepted by the server (on this loop) once it runs
        await asyncio.sleep(0.01)
    deadline = time.monotonic() + 10
    while http.counts.open and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert http.counts.open == 0  # closed for good: its place given back
    writer.close()


async def test_a_header_that_is_not_utf8_is_refused_by_name(web: Service) -> None:
    assert web.server.http is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", web.server.http.port)
    writer.write(
        b"POST /kafana.v1.KafanaService/GetServerInfo HTTP/1.1\r\nHost: k\r\n"
        b"Content-Type: application/json\r\nkafana-seat-token: \xff\xfe\r\n"
        b"Content-Length: 2\r\n\r\n{}"
    )
    answer = await asyncio.wait_for(reader.read(4096), 5)  # (was: 500, the decoder's words)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert b"request header 'kafana-seat-token' is not UTF-8" in answer, answer
    writer.close()


async def test_an_asset_name_too_long_for_the_file_system_is_not_found(web: Service) -> None:
    assert web.server.http is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", web.server.http.port)
    writer.write(b"GET /assets/" + b"a" * 300 + b".js HTTP/1.1\r\nHost: k\r\n\r\n")
    answer = await asyncio.wait_for(reader.read(4096), 5)  # (was: 500, ENAMETOOLONG logged)
    assert answer.startswith(b"HTTP/1.1 404"), answer
    writer.close()


@contextlib.contextmanager
def files_limited(count: int) -> Iterator[None]:
    """Processes started in the block may open `count` files (as on many hosts by default)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def started(tmp_path: Path, redis_url: str) -> contextlib.AbstractContextManager[list[Served]]:
    """A real `kafana serve` with an HTTP port, allowed 1,024 files."""
    with files_limited(1024):
        return serving(tmp_path, "--redis", redis_url, "--http", "0", "--auth", "open")


async def test_slow_bodies_leave_the_grpc_port_serving(redis_url: str, tmp_path: Path) -> None:
    """A real `kafana serve` allowed 1,024 files, 1,100 connections that never finish a body."""
    with started(tmp_path, redis_url) as (server,):
        server.wait_started()
        await healthy(server.target)
        http = int(re.findall(r"on http://127.0.0.1:(\d+)", server.output())[0])
        lines = len(server.output().splitlines())
        held = []
        for _ in range(1100):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", http)
            except OSError:
                break
            writer.write(SLOW_BODY)
            held.append(writer)
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = KafanaServiceStub(channel)
            for _ in range(3):
                await stub.GetServerInfo(service_pb2.GetServerInfoRequest(), timeout=5)
                await asyncio.sleep(1)
        assert len(server.output().splitlines()) - lines < 20, server.output()[-3000:]
        for writer in held:
            writer.close()


async def test_idle_grpc_connections_leave_the_other_ports_serving(
    redis_url: str, tmp_path: Path
) -> None:
    """1,100 connections to the gRPC port that do nothing after the HTTP/2 preface, on a
    process allowed 1,024 files: half of them are kept, the rest closed at once, and an open
    channel, the HTTP port and the log are unharmed."""
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")
    with started(tmp_path, redis_url) as (server,):
        server.wait_started()
        await healthy(server.target)
        http = int(re.findall(r"on http://127.0.0.1:(\d+)", server.output())[0])
        lines = len(server.output().splitlines())
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = KafanaServiceStub(channel)
            await stub.GetServerInfo(service_pb2.GetServerInfoRequest(), timeout=5)
            held = []
            for _ in range(1100):
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", server.port)
                except OSError:
                    break
                writer.write(preface)
                held.append(writer)
            await asyncio.sleep(1)
            for _ in range(3):
                await stub.GetServerInfo(service_pb2.GetServerInfoRequest(), timeout=5)
                reader, writer = await asyncio.open_connection("127.0.0.1", http)
                writer.write(b"GET / HTTP/1.1\r\nHost: kafana\r\nConnection: close\r\n\r\n")
                assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 200")
                writer.close()
                await asyncio.sleep(0.5)
        assert len(server.output().splitlines()) - lines < 20, server.output()[-3000:]
        for writer in held:
            writer.close()


async def test_stopping_with_connections_held_writes_a_few_lines(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A review: stopping a server while 50 connections held the HTTP port (each with 24 bytes
    of HTTP/2 preface) wrote about 1,800 lines, 70 tracebacks: the log's bound was lifted
    before hypercorn ended them. It stays on until the listener is done."""
    store = RedisStore.from_url(redis_url)
    try:
        with caplog.at_level(logging.DEBUG):
            async with running(store, http_port=0) as svc:
                assert svc.server.http is not None
                held = []
                for _ in range(50):
                    _reader, writer = await asyncio.open_connection(
                        "127.0.0.1", svc.server.http.port
                    )
                    writer.write(H2_PREFACE)
                    held.append(writer)
                while svc.server.http.counts.open < 50:
                    await asyncio.sleep(0.05)
            written = [r for r in caplog.records if r.name in ("kafana.http", "asyncio")]
    finally:
        await store.close()
        for writer in held:
            writer.close()
    assert len(written) <= 2 * (FLOOD_LINES + 1), [r.getMessage() for r in written][:20]
