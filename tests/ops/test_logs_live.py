"""The JSON logs of real `kafana serve` processes through a whole match, a Redis outage and a
rate-limited client: every line parses, none holds a token, a seed or a hand, and a 5 s outage
writes a bounded number of lines."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import grpc
from kafana.v1 import service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_client import AsyncClient
from kit import Served, healthy, reason_of, seat_md, serve
from reliability.reliability_support import Redis

from .ops_support import BotMatch, bot_matches, connect, open_match, play_match

OUTAGE_S = 5.0
MOST_OUTAGE_LINES = 30
PLAIN = ("auth: ", "store: ", "tls: ", "kafana: serving on port", "kafana: shutting down")
"""The lines `kafana serve` prints itself (not log records): at start and at stop."""
CARD = r"(?:10|[2-9AJQK])[CDHS]"
DECKISH = re.compile(rf"(?:\b{CARD}\b[\s,'\"]+){{7,}}\b{CARD}\b")
"""Eight cards in a row: a hand, or a deck."""


def log_lines(served: Served) -> list[str]:
    """The lines a process wrote so far."""
    return served.output().splitlines()


def parse(lines: list[str]) -> list[dict[str, object]]:
    """Every log record (JSON, with time, level, logger and message); the few lines the
    command prints itself are allowed, anything else fails."""
    records = []
    for line in lines:
        if line.startswith("{"):
            record = json.loads(line)
            assert {"time", "level", "logger", "message"} <= set(record), line
            records.append(record)
        else:
            assert line.startswith(PLAIN), line
    return records


def hand_shapes(hand: tuple[str, ...]) -> list[str]:
    """How a hand could be written into a line."""
    return [" ".join(hand), ",".join(hand), ", ".join(hand), str(list(hand)), json.dumps(hand)]


def leaks(lines: list[str], matches: list[BotMatch]) -> list[str]:
    """Lines holding a token, a seed, a hand seen by a seat, or a deck."""
    secrets = [s for m in matches for s in m.secrets]
    hands = [
        shape for m in matches for seat in m.seats for h in seat.hands for shape in hand_shapes(h)
    ]
    assert secrets and hands
    return [
        line
        for line in lines
        if any(s in line for s in secrets) or any(h in line for h in hands) or DECKISH.search(line)
    ]


async def test_logs_hold_no_secret_and_an_outage_writes_few_lines(tmp_path: Path) -> None:
    redis = Redis(tmp_path / "redis")
    common = ("--grace", "2", "--redis", redis.url, "--auth", "open", "--log-format", "json")
    server = serve(tmp_path / "a", *common)
    limited = serve(tmp_path / "b", *common, "--rate-limit", "5", "--rate-burst", "5")
    try:
        await asyncio.gather(healthy(server.target), healthy(limited.target))
        matches = await bot_matches(server.target, [1])  # a whole match

        async with connect(server.target) as client:
            match = await open_match(client, 2)
            playing = asyncio.create_task(play_match(match, 2, reconnects=200, delay=0.02))
            while len(match.told) < 10:
                await asyncio.sleep(0.02)
            written = len(log_lines(server))
            redis.kill()
            await asyncio.sleep(OUTAGE_S)
            await asyncio.to_thread(redis.start)
            matches.append(await asyncio.wait_for(playing, 120))
            await asyncio.sleep(1.0)  # the loops notice the store is back
            outage = log_lines(server)[written:]

        async with AsyncClient.connect(limited.target) as client:
            refused = await open_match(client, 3)
            stub = KafanaServiceStub(client.channel)
            request = service_pb2.GetLegalMovesRequest(table_id=refused.table_id)
            reasons = []
            for seat in refused.seats * 10:
                try:
                    await stub.GetLegalMoves(request, metadata=seat_md(seat.token))
                except grpc.aio.AioRpcError as error:
                    reasons.append(reason_of(error))
            assert reasons.count("RATE_LIMITED") >= 10
            await asyncio.sleep(1.5)  # the bucket refills
            await refused.seats[0].leave()  # forfeits: the record is published
            refused.record = await client.record(refused.table_id)
            matches.append(refused)
    finally:
        for process in (server, limited):
            process.stop()
            process.end()
        redis.close()

    lines = log_lines(server) + log_lines(limited)
    records = parse(lines)
    messages = [str(r["message"]) for r in records]
    for m in matches[:2]:  # one line when a table is made, one when its match ends
        assert sum(m.table_id in text for text in messages) == 2, (m.table_id, messages)
    assert any("health says NOT_SERVING" in text for text in outage)
    assert any("health says SERVING" in text for text in outage)
    assert not leaks(lines, matches), leaks(lines, matches)
    assert match.told == match.recorded  # the outage lost no acknowledged move
    assert 0 < len(outage) < MOST_OUTAGE_LINES, "\n".join(outage)
    print(f"{len(lines)} lines; a {OUTAGE_S:g} s Redis outage wrote {len(outage)}")
