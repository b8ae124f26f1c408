"""Every INVALID_ARGUMENT names its field (ErrorInfo metadata `field`), in words of its own.

Issue "A server strangers cannot stall": seat 7, a 25-hour move time, Captures with card `ZZ`,
an empty card, a card twice on the table or the played card on it, and over Connect a body
that is not JSON were refused with no `field`; a bad page token's message quoted Python's
decoder ("'utf-8' codec can't decode byte 0xb7 ...").
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from base64 import b64decode
from typing import Any

import grpc
import pytest
from google.rpc.error_details_pb2 import ErrorInfo
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2
from kit import Service, info_metadata, refusal, running

CAPTURES = {
    "ZZ": (service_pb2.CapturesRequest(card="ZZ", table=["2C"]), "card"),
    "empty card": (service_pb2.CapturesRequest(card="", table=["2C"]), "card"),
    "empty table card": (service_pb2.CapturesRequest(card="5C", table=["2C", ""]), "table[1]"),
    "twice": (service_pb2.CapturesRequest(card="5C", table=["2C", "2C"]), "table"),
    "played": (service_pb2.CapturesRequest(card="5C", table=["5C", "2C"]), "table"),
}


def refused_with(error: grpc.aio.AioRpcError, field: str) -> None:
    """INVALID_ARGUMENT naming `field`, with a message of the server's own words."""
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    assert info_metadata(error).get("field") == field, (error.details(), info_metadata(error))
    for internal in ("codec", "Traceback", "Error:", "Expecting"):
        assert internal not in (error.details() or "")


@pytest.mark.parametrize("case", sorted(CAPTURES))
async def test_captures_refusals_name_the_field(service: Service, case: str) -> None:
    request, field = CAPTURES[case]
    refused_with(await refusal(service.stub.Captures(request)), field)


async def test_a_seat_that_does_not_exist_names_the_seat(service: Service) -> None:
    table = await service.stub.CreateTable(service_pb2.CreateTableRequest())
    join = service_pb2.JoinTableRequest(table_id=table.table_id, seat=7, name="ana")
    refused_with(await refusal(service.stub.JoinTable(join)), "seat")


async def test_a_move_time_over_a_day_names_the_clock_field(service: Service) -> None:
    clock = rules_pb2.ClockSpec(move_millis=25 * 3600 * 1000)
    create = service_pb2.CreateTableRequest(config=rules_pb2.TableConfig(clock=clock))
    refused_with(await refusal(service.stub.CreateTable(create)), "config.clock.move_millis")


async def test_a_bad_page_token_says_so_in_plain_words(service: Service) -> None:
    listing = service_pb2.ListTablesRequest(page_token="abc")
    error = await refusal(service.stub.ListTables(listing))
    refused_with(error, "page_token")
    assert "handed out" in (error.details() or "")


def post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """POST `body` as JSON; the status and the JSON answer."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_a_connect_body_that_is_not_json_names_the_request(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, http_port=0) as svc:
            assert svc.server.http is not None
            url = f"{svc.server.http.url}/kafana.v1.KafanaService/Captures"
            status, answer = await asyncio.to_thread(post, url, b"{not json")
            assert status == 400 and answer["code"] == "invalid_argument", answer
            assert "not JSON (line 1, column 2)" in answer["message"]
            assert "Expecting" not in answer["message"]
            assert answer["details"][0]["type"] == "google.rpc.ErrorInfo"
            value = answer["details"][0]["value"]
            decoded = ErrorInfo.FromString(b64decode(value + "=" * (-len(value) % 4)))
            assert decoded.metadata["field"] == "request"
            status, answer = await asyncio.to_thread(post, url, b'{"table": 5}')
            assert status == 400 and "field table" in answer["message"], answer
            for depth in (5000, 100):  # past Python's stack; past records.MAX_DEPTH
                deep = b'{"table": ' + b"[" * depth + b"]" * depth + b"}"
                status, answer = await asyncio.to_thread(post, url, deep)
                assert status == 400 and answer["code"] == "invalid_argument", answer
                assert "nested too deeply" in answer["message"], answer
                value = answer["details"][0]["value"]
                decoded = ErrorInfo.FromString(b64decode(value + "=" * (-len(value) % 4)))
                assert decoded.metadata["field"] == "request"
    finally:
        await store.close()
