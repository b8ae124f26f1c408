"""The event feeds as Server-Sent Events (`GET /sse/...`): a plain HTTP client follows a game,
resumes with Last-Event-ID, sees no hidden card as a spectator, and gets errors as events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2
from kit import Service, running, seat_md, seated_table

FEED = "/sse/kafana.v1.KafanaService/WatchEvents"


@pytest.fixture
async def site(redis_store: RedisStore) -> AsyncIterator[tuple[Service, str]]:
    """An in-process server with HTTP on."""
    async with running(redis_store, http_port=0) as svc:
        assert svc.server.http is not None
        yield svc, svc.server.http.url


async def _events(
    client: httpx.AsyncClient, url: str, count: int, **headers: str
) -> list[dict[str, Any]]:
    """The first `count` SSE events of a feed (each: event, id, data parsed)."""
    found: list[dict[str, Any]] = []
    async with client.stream("GET", url, headers=headers, timeout=20) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        current: dict[str, Any] = {}
        async for line in answer.aiter_lines():
            if not line:
                if current:
                    found.append(current)
                    current = {}
                    if len(found) >= count or found[-1].get("event") in ("error", "end"):
                        break
                continue
            key, _, value = line.partition(": ")
            current[key] = json.loads(value) if key == "data" else value
    return found


async def _table(svc: Service) -> tuple[str, list[str]]:
    config = rules_pb2.TableConfig(rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC), seed=3)
    return await seated_table(svc, config)


async def test_a_plain_http_client_follows_and_resumes_a_game(
    site: tuple[Service, str],
) -> None:
    svc, url = site
    table_id, tokens = await _table(svc)
    state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
    token = tokens[state.current_seat]
    legal = await svc.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
    )
    await svc.stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=table_id, move=legal.moves[0], client_move_id="m1", last_seq=legal.seq
        ),
        metadata=seat_md(token),
    )
    async with httpx.AsyncClient(base_url=url) as client:
        events = await _events(client, f"{FEED}?table_id={table_id}&after_seq=0", 3)
        assert [e["id"] for e in events] == ["1", "2", "3"]
        assert [e["data"]["event"]["seq"] for e in events] == ["1", "2", "3"]
        assert events[2]["data"]["event"]["move"]["text"] == legal.moves[0].text
        resumed = await _events(client, f"{FEED}?table_id={table_id}", 1, **{"Last-Event-ID": "2"})
        assert resumed[0]["id"] == "3"


async def test_a_spectator_feed_shows_no_hand_and_a_seat_feed_its_own(
    site: tuple[Service, str],
) -> None:
    svc, url = site
    table_id, tokens = await _table(svc)
    query = f"{FEED}?table_id={table_id}&after_seq=1&with_state=true"
    async with httpx.AsyncClient(base_url=url) as client:
        (watched,) = await _events(client, query, 1)
        (seated,) = await _events(client, query, 1, **{"kafana-seat-token": tokens[0]})
    spectator = watched["data"]["event"]["state"]["tablic"]
    own = seated["data"]["event"]["state"]["tablic"]
    assert not spectator.get("hand") and len(own["hand"]) == 6
    text = json.dumps(watched)
    assert all(card not in text for card in own["hand"])


async def test_errors_come_as_an_error_event_and_unknown_feeds_as_404(
    site: tuple[Service, str],
) -> None:
    _svc, url = site
    async with httpx.AsyncClient(base_url=url) as client:
        (bad,) = await _events(client, f"{FEED}?table_id=x&colour=red", 1)
        assert bad["event"] == "error" and bad["data"]["code"] == "invalid_argument"
        assert "colour" in bad["data"]["message"]
        # a value that does not fit names its parameter (a review, 7 Dec: it named none)
        (unfit,) = await _events(client, f"{FEED}?table_id=x&after_seq=abc", 1)
        assert unfit["event"] == "error" and unfit["data"]["code"] == "invalid_argument"
        assert "after_seq" in unfit["data"]["message"], unfit
        (missing,) = await _events(client, f"{FEED}?table_id=nope", 1)
        assert missing["event"] == "error" and missing["data"]["code"] == "not_found"
        answer = await client.get("/sse/kafana.v1.KafanaService/GetState")
        assert answer.status_code == 404


async def test_a_closed_feed_frees_its_stream_for_the_next(redis_store: RedisStore) -> None:
    async with running(redis_store, http_port=0, rate_limit=RateLimit(max_streams=1)) as svc:
        assert svc.server.http is not None
        table_id, _ = await _table(svc)
        async with httpx.AsyncClient(base_url=svc.server.http.url) as client:
            for _ in range(3):  # each one closed before the next: the one stream allowed
                (first,) = await _events(client, f"{FEED}?table_id={table_id}&after_seq=0", 1)
                assert first["id"] == "1"
