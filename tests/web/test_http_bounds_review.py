"""Bounds of the `--http` listener a security review found missing, on a real server (in this
process, its HTTP port on loopback, the session's private redis-server).

(A) an HTTP/2 connection that opens no stream and sends a PING now and then held its place
for good (8 addresses x 128 of them took all 1,024); (B) a body in tiny parts cost CPU far
beyond its bytes (300,000 one-byte chunks: 3.57 s; 150,000 empty HTTP/2 DATA frames: 1.98 s);
(C) a WebSocket upgrade was answered 500 with a traceback logged, and asyncio's errors used up
the budget of lines that shows the listener's own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator

import h2.config
import h2.connection
import h2.events
import httpx
import pytest
from kafana.service.web.serve import FLOOD_LINES, HttpServer
from kit import Service, http_service

INFO = "/kafana.v1.KafanaService/GetServerInfo"


@pytest.fixture
async def web(redis_url: str) -> AsyncIterator[Service]:
    """The service with its HTTP port."""
    async with http_service(redis_url) as svc:
        yield svc


@pytest.fixture
def http(web: Service) -> HttpServer:
    """The service's HTTP listener."""
    assert web.server.http is not None
    return web.server.http


def h2_client() -> h2.connection.H2Connection:
    """An HTTP/2 client connection (without TLS: prior knowledge), its preface to send."""
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    return client


def data_frame(stream: int, data: bytes, end: bool = False) -> bytes:
    """One HTTP/2 DATA frame, written out by hand (the h2 library sends no empty ones)."""
    flags = b"\x01" if end else b"\x00"
    return len(data).to_bytes(3, "big") + b"\x00" + flags + stream.to_bytes(4, "big") + data


# (A) an HTTP/2 connection with no request in flight


async def test_an_http2_connection_with_no_request_is_closed_whatever_it_pings(
    http: HttpServer,
) -> None:
    """PINGs move bytes both ways, and kept such a connection open past every bound."""
    http.app.idle_timeout = 2.0
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    client = h2_client()
    writer.write(client.data_to_send())
    started = time.monotonic()
    closed_after = None
    while time.monotonic() - started < 8:
        client.ping(b"kafana!!")
        writer.write(client.data_to_send())
        try:
            got = await asyncio.wait_for(reader.read(65536), 0.5)
        except TimeoutError:
            continue
        except ConnectionError:
            got = b""
        if not got:
            closed_after = time.monotonic() - started
            break
        client.receive_data(got)
    writer.close()
    assert closed_after is not None, "still open after 8 s of PINGs (idle bound 2 s)"
    assert 1.5 < closed_after < 6, closed_after
    deadline = time.monotonic() + 5
    while http.counts.open and time.monotonic() < deadline:  # hypercorn lets go of it
        await asyncio.sleep(0.05)
    assert http.counts.open == 0  # its place given back


async def test_a_request_in_flight_keeps_its_connection(http: HttpServer) -> None:
    """Requests one after another on one HTTP/2 connection, for longer than the idle bound:
    none is cut (the bound counts from the end of the last one)."""
    http.app.idle_timeout = 2.0
    used = set()
    async with httpx.AsyncClient(base_url=http.url, http1=False, http2=True) as client:
        started = time.monotonic()
        while time.monotonic() - started < 3:
            answer = await client.post(INFO, json={}, timeout=5)
            assert answer.status_code == 200, answer.text
            assert answer.http_version == "HTTP/2"
            used |= http.counts.connections
            await asyncio.sleep(0.5)
    assert len(used) == 1  # one connection throughout


# (B) a body in tiny parts


async def test_a_body_in_one_byte_chunks_is_refused(http: HttpServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    head = (
        f"POST {INFO} HTTP/1.1\r\nHost: k\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    writer.write(head + b"1\r\n{\r\n" + b"1\r\n \r\n" * 20_000 + b"1\r\n}\r\n0\r\n\r\n")
    answer = await asyncio.wait_for(reader.read(), 5)  # answered, then closed
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"connection: close" in answer.lower(), answer[:200]
    writer.close()


async def test_empty_http2_data_frames_are_refused(http: HttpServer) -> None:
    """Empty DATA frames use no flow-control window and no byte of the body's bound."""
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    client = h2_client()
    stream = client.get_next_available_stream_id()
    headers = [(":method", "POST"), (":path", INFO), (":scheme", "http"), (":authority", "k")]
    client.send_headers(stream, [*headers, ("content-type", "application/json")])
    frames = data_frame(stream, b"{") + data_frame(stream, b"") * 20_000
    writer.write(client.data_to_send() + frames + data_frame(stream, b"}", end=True))
    status = None
    deadline = time.monotonic() + 5
    while status is None and time.monotonic() < deadline:
        got = await asyncio.wait_for(reader.read(65536), 5)
        assert got, "closed unanswered"
        for event in client.receive_data(got):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                status = dict(event.headers)[b":status"]
    assert status == b"413"
    writer.close()


async def test_a_body_in_many_fair_parts_is_served(http: HttpServer) -> None:
    """A real client's body in many parts of a kilobyte (chunked, each its own write)."""

    async def parts() -> AsyncIterator[bytes]:
        yield b"{"
        for _ in range(300):
            yield b" " * 1024
        yield b"}"

    async with httpx.AsyncClient(base_url=http.url) as client:
        answer = await client.post(
            INFO, content=parts(), headers={"content-type": "application/json"}, timeout=10
        )
    assert answer.status_code == 200, answer.text


# (C) WebSockets, and the loggers' budgets


@pytest.fixture
def errors(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The ERROR lines logged."""
    with caplog.at_level(logging.ERROR):
        yield caplog


async def test_a_websocket_upgrade_is_refused_quietly(
    http: HttpServer, errors: pytest.LogCaptureFixture
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    writer.write(
        f"GET {INFO} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = await asyncio.wait_for(reader.read(4096), 5)  # (was: 500, a traceback logged)
    assert answer.startswith(b"HTTP/1.1 403"), answer
    writer.close()
    await asyncio.sleep(0.1)
    assert [r.getMessage() for r in errors.records if r.levelno >= logging.ERROR] == []


async def test_asyncios_errors_do_not_use_up_the_listeners_lines(
    http: HttpServer, errors: pytest.LogCaptureFixture
) -> None:
    for number in range(FLOOD_LINES * 10):
        logging.getLogger("asyncio").error("socket.accept() out of system resource %d", number)
    logging.getLogger("kafana.http").error("a genuine error")
    assert [r.getMessage() for r in errors.records if r.name == "kafana.http"] == [
        "a genuine error"
    ]
    assert len([r for r in errors.records if r.name == "asyncio"]) == FLOOD_LINES
