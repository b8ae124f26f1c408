"""`kafana serve --http`: the services over Connect (JSON and binary) and gRPC-Web, as a browser
speaks them, against a real server process on loopback; limits and shutdown shared with gRPC.

The wire is written out here by hand (httpx, the 5-byte envelopes), so the test checks the
protocols themselves, not one client library's reading of them.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import struct
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import httpx
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kit import Served, free_port, running, serve

SERVICE = "/kafana.v1.KafanaService/"
ORIGIN = "https://app.example"
END_STREAM = 0x02  # Connect: the end-of-stream message
TRAILERS = 0x80  # gRPC-Web: the trailers frame


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    """One `kafana serve --memory --http PORT` process for the module, and its HTTP base URL."""
    http = free_port()
    process = serve(
        tmp_path_factory.mktemp("http"),
        "--memory",
        "--http",
        str(http),
        "--http-origins",
        ORIGIN,
    )
    try:
        process.wait_started()
        deadline = time.monotonic() + 30
        while "Connect and gRPC-Web" not in process.output():
            assert time.monotonic() < deadline, process.output()
            time.sleep(0.05)
        url = f"http://127.0.0.1:{http}"
        assert f"Connect and gRPC-Web (browsers) on {url}" in process.output()
        yield process, url
    finally:
        process.end()


@pytest.fixture
def http(served: tuple[Served, str]) -> Iterator[httpx.Client]:
    """An HTTP client of the served process."""
    with httpx.Client(base_url=served[1], timeout=10) as client:
        yield client


def frame(data: bytes, flags: int = 0) -> bytes:
    """One enveloped message (Connect streams and gRPC-Web alike)."""
    return struct.pack(">BI", flags, len(data)) + data


def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The enveloped messages of a response body, as (flags, bytes)."""
    found, at = [], 0
    while at < len(data):
        flags, size = struct.unpack(">BI", data[at : at + 5])
        found.append((flags, data[at + 5 : at + 5 + size]))
        at += 5 + size
    assert at == len(data), "a truncated frame"
    return found


def connect_json(client: httpx.Client, method: str, body: dict[str, Any], **headers: str) -> Any:
    """A Connect unary call in JSON: the answer's JSON (the test fails on an error)."""
    answer = client.post(SERVICE + method, json=body, headers=_headers(headers))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    return answer.json()


def _headers(headers: dict[str, str]) -> dict[str, str]:
    return {key.replace("_", "-"): value for key, value in headers.items()}


def error_info(details: list[dict[str, str]]) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo among Connect error details (base64 values, unpadded)."""
    for detail in details:
        if detail["type"] == "google.rpc.ErrorInfo":
            value = detail["value"]
            return error_details_pb2.ErrorInfo.FromString(
                base64.b64decode(value + "=" * (-len(value) % 4))
            )
    raise AssertionError(f"no ErrorInfo in {details}")


def started_table(client: httpx.Client) -> tuple[str, list[str]]:
    """A two-seat Tablić table made and filled over Connect JSON: (its id, the seat tokens)."""
    made = connect_json(
        client,
        "CreateTable",
        {"config": {"rules": {"game": "GAME_TABLIC", "players": 2}, "seed": "42"}},
    )
    table = made["tableId"]
    assert made["info"]["rules"]["tablic"]["target"] == 101  # the rules in force, filled in
    tokens = []
    for seat in range(2):
        joined = connect_json(client, "JoinTable", {"tableId": table, "name": f"p{seat}"})
        assert joined.get("seat", 0) == seat
        tokens.append(joined["seatToken"])
    return table, tokens


def test_a_move_is_played_over_connect_json(http: httpx.Client) -> None:
    table, tokens = started_table(http)
    state = connect_json(http, "GetState", {"tableId": table}, kafana_seat_token=tokens[0])
    mover = state.get("currentSeat", 0)
    token = tokens[mover]
    legal = connect_json(http, "GetLegalMoves", {"tableId": table}, kafana_seat_token=token)
    move = legal["moves"][0]
    played = connect_json(
        http,
        "PlayMove",
        {"tableId": table, "move": move, "clientMoveId": "m1", "lastSeq": legal["seq"]},
        kafana_seat_token=token,
    )
    assert int(played["event"]["seq"]) == int(legal["seq"]) + 1
    assert played["event"]["kind"] == "EVENT_KIND_MOVE"
    again = connect_json(  # the same id again: the same answer, nothing applied twice
        http,
        "PlayMove",
        {"tableId": table, "move": move, "clientMoveId": "m1", "lastSeq": legal["seq"]},
        kafana_seat_token=token,
    )
    assert again["duplicate"] is True and again["event"]["seq"] == played["event"]["seq"]


def test_binary_connect_answers_protobuf(http: httpx.Client) -> None:
    table, _ = started_table(http)
    request = service_pb2.GetTableRequest(table_id=table).SerializeToString()
    answer = http.post(
        SERVICE + "GetTable", content=request, headers={"content-type": "application/proto"}
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/proto"
    info = state_pb2.TableInfo.FromString(answer.content)
    assert info.table_id == table and info.rules.players == 2


def test_an_illegal_move_gives_its_reason_over_connect(http: httpx.Client) -> None:
    table, tokens = started_table(http)
    state = connect_json(http, "GetState", {"tableId": table}, kafana_seat_token=tokens[0])
    token = tokens[state.get("currentSeat", 0)]
    legal = connect_json(http, "GetLegalMoves", {"tableId": table}, kafana_seat_token=token)
    held = {move["tablic"]["card"] for move in legal["moves"]}  # a trail of each is legal
    card = next(
        f"{r}{s}" for r in ("A", "K", "Q", "J", "10") for s in "CDHS" if f"{r}{s}" not in held
    )
    answer = http.post(
        SERVICE + "PlayMove",
        json={"tableId": table, "move": {"text": card}, "clientMoveId": "x", "lastSeq": "2"},
        headers={"kafana-seat-token": token},
    )
    body = answer.json()
    assert answer.status_code == 400, body  # Connect's HTTP status of INVALID_ARGUMENT
    assert body["code"] == "invalid_argument"
    info = error_info(body["details"])
    assert (info.reason, info.domain) == ("ILLEGAL_MOVE", "kafana")


def test_json_error_details_are_readable_as_json_too(http: httpx.Client) -> None:
    answer = http.post(SERVICE + "GetTable", json={"tableId": "no-such-table"})
    assert answer.status_code == 404, answer.text
    (info,) = [d for d in answer.json()["details"] if d["type"] == "google.rpc.ErrorInfo"]
    assert info["debug"]["reason"] == "TABLE_NOT_FOUND" and info["debug"]["domain"] == "kafana"
    assert error_info([info]).reason == "TABLE_NOT_FOUND"  # the base64 value stays too
    assert int(answer.headers["content-length"]) == len(answer.content)


def test_json_that_is_no_request_is_refused_with_a_reason(http: httpx.Client) -> None:
    answer = http.post(
        SERVICE + "GetTable", content=b'{"tableId": 7', headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400
    body = answer.json()
    assert "kafana.v1.GetTableRequest" in body["message"]
    assert error_info(body["details"]).reason == "INVALID_ARGUMENT"


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,  # past Python's stack
        b'{"tableId": ' + b"[" * 65 + b"]" * 65 + b"}",  # one past the bound
        b'{"a": "[[[", "b": ' * 65 + b"1" + b"}" * 65,  # brackets in strings do not count
        b"[" * 100_000 + b"}",  # and no JSON at all
    ],
)
def test_json_nested_too_deeply_is_refused_naming_the_bound(
    http: httpx.Client, body: bytes
) -> None:
    # Before: "the request body is nested too deeply to be a kafana.v1.GetTableRequest in JSON",
    # found by json.loads running into Python's stack: no bound named.
    answer = http.post(
        SERVICE + "GetTable", content=body, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    refused = answer.json()
    assert refused["message"] == (
        "the request body is nested too deeply (more than 64 levels of [ and {) to be a "
        "kafana.v1.GetTableRequest in JSON"
    ), refused
    assert "recursion" not in answer.text
    info = error_info(refused["details"])
    assert (info.reason, info.metadata["field"]) == ("INVALID_ARGUMENT", "request")


@pytest.mark.parametrize("field", ["bots", "seatAccounts"])
def test_json_with_too_many_values_is_refused_before_it_is_read(
    field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a 680 KB body of 170,000 empty bots took 369 ms of protobuf's ParseDict (pure
    # Python) before CreateTable refused it; a gRPC client's protobuf is read in C
    from connectrpc.code import Code
    from connectrpc.errors import ConnectError
    from kafana.service.web import adapter

    many = {"bots": [{}], "seatAccounts": ["a"]}[field] * 170_000
    body = json.dumps({"config": {field: many}}).encode()
    parse = adapter.json_format.ParseDict

    def never(*_: object) -> None:
        raise AssertionError("read before it was counted")

    monkeypatch.setattr(adapter.json_format, "ParseDict", never)
    with pytest.raises(ConnectError) as refused:
        adapter.JsonCodec().decode(body, service_pb2.CreateTableRequest)
    monkeypatch.setattr(adapter.json_format, "ParseDict", parse)
    assert refused.value.code == Code.INVALID_ARGUMENT
    assert refused.value.message == (
        "the request body has more than 20000 values (array items and object members, counted "
        "by their commas) to be a kafana.v1.CreateTableRequest in JSON"
    )
    # the most a real request holds: 256 explicit decks of 52 cards
    decks = [{"cards": ["AC"] * 52}] * 256
    message = adapter.JsonCodec().decode(
        json.dumps({"config": {"decks": decks}}).encode(), service_pb2.CreateTableRequest
    )
    assert len(service_pb2.CreateTableRequest.FromString(message).config.decks) == 256


def test_a_gzip_body_is_one_member_read_in_linear_time(http: httpx.Client) -> None:
    # A review (7 Dec): a 2 MB body of 104,448 empty gzip members took 6.3 s of server CPU
    # (connectrpc's gzip copied the rest of the body at each member: quadratic), the event
    # loop blocked (a health check 5.3 s), charged to nobody; and a body that is no gzip
    # answered Python's words ("decompress: Error -3 while decompressing data: ...")
    from kafana.service.web.compression import Gzip

    member = gzip.compress(b"", mtime=0)
    with pytest.raises(ConnectError) as refused:  # one member read, the rest refused
        Gzip().decompress(member * 100_000, 2**21)
    assert refused.value.message == "the request body is more than one gzip member"
    for body, said in (
        (b"notgzip", "the request body is not gzip data"),
        (gzip.compress(b"x" * 100)[:-8], "the request body's gzip data ends early"),
    ):
        answer = http.post(
            SERVICE + "GetServerInfo",
            content=body,
            headers={"content-type": "application/proto", "content-encoding": "gzip"},
        )
        assert answer.status_code == 400, answer.text
        refused_json = answer.json()
        assert refused_json["message"] == said, refused_json
        assert error_info(refused_json["details"]).metadata["field"] == "request"
    whole = gzip.compress(service_pb2.GetServerInfoRequest().SerializeToString() or b"")
    answer = http.post(
        SERVICE + "GetServerInfo",
        content=whole,
        headers={"content-type": "application/proto", "content-encoding": "gzip"},
    )
    assert answer.status_code == 200, answer.text
    assert Gzip().decompress(gzip.compress(b"x" * 1000), 2**21) == b"x" * 1000
    with pytest.raises(ConnectError) as large:
        Gzip().decompress(gzip.compress(b"x" * 5000), 4096)
    assert large.value.code == Code.RESOURCE_EXHAUSTED


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"[]", "request"),
        (b'"x"', "request"),
        (b'{"config": []}', "config"),
        (b'{"config": {"rules": []}}', "config.rules"),
        (b'{"config": {"bots": [[]]}}', "config.bots"),
    ],
)
def test_json_that_is_no_object_where_a_message_goes_is_refused(
    http: httpx.Client, body: bytes, field: str
) -> None:
    # A review (7 Dec): protobuf's ParseDict reads an array as an empty message, so these
    # bodies created a default table (200), the very thing strict JSON is there to prevent;
    # '"x"' said "there is no field x"
    before = http.post(SERVICE + "ListTables", json={}).json().get("tables", [])
    answer = http.post(
        SERVICE + "CreateTable", content=body, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    refused = answer.json()
    assert error_info(refused["details"]).metadata["field"] == field, refused
    assert "an object" in refused["message"], refused
    after = http.post(SERVICE + "ListTables", json={}).json().get("tables", [])
    assert len(after) == len(before)  # nothing created


def test_no_recursion_error_text_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: a RecursionError out of the codec became connectrpc's "unmarshal message:
    # maximum recursion depth exceeded...", naming no field.
    from connectrpc.code import Code
    from connectrpc.errors import ConnectError
    from kafana.service.web import adapter

    def recurse(*_: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(adapter.json_format, "ParseDict", recurse)
    with pytest.raises(ConnectError) as refused:
        adapter.JsonCodec().decode(b'{"tableId": "t"}', service_pb2.GetTableRequest)
    assert refused.value.code == Code.INVALID_ARGUMENT
    assert refused.value.message.startswith("the request body is nested too deeply (more than 64")


def test_json_nested_to_the_bound_is_read(http: httpx.Client) -> None:
    body = b'{"tableId": "no-such-table", "x": ' + b"[" * 63 + b"]" * 63 + b"}"
    answer = http.post(
        SERVICE + "GetTable", content=body, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400 and "there is no field x" in answer.json()["message"]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (
            {"config": {"rules": {"tablic": {"mustCaptur": True}}}},
            "config.rules.tablic.mustCaptur",
            "no field",
        ),
        ({"config": {"clockk": {"moveMillis": 1000}}}, "config.clockk", "no field"),
        ({"config": {"rules": {"game": "GAME_CHESS"}}}, "config.rules.game", "GAME_CHESS"),
        ({"config": {"seed": "x"}}, "config.seed", "wrong type"),
    ],
)
def test_connect_json_is_strict_and_names_the_field(
    http: httpx.Client, body: dict[str, Any], field: str, words: str
) -> None:
    before = len(connect_json(http, "ListTables", {}).get("tables", []))
    answer = http.post(SERVICE + "CreateTable", json=body)
    assert answer.status_code == 400, answer.text
    refused = answer.json()
    assert words in refused["message"]
    info = error_info(refused["details"])
    assert (info.reason, info.metadata["field"]) == ("INVALID_ARGUMENT", field)
    assert len(connect_json(http, "ListTables", {}).get("tables", [])) == before  # none made


def test_a_wrong_api_key_is_refused_as_over_grpc(http: httpx.Client) -> None:
    answer = http.post(
        SERVICE + "ListTables", json={}, headers={"authorization": "Bearer kfk_not_a_key"}
    )
    assert answer.status_code == 401, answer.text
    assert error_info(answer.json()["details"]).reason == "API_KEY_INVALID"


def test_every_service_of_the_full_server_is_served(http: httpx.Client) -> None:
    events = http.post("/kafana.v1.CompetitionsService/ListEvents", json={})
    assert events.status_code == 200, events.text
    league = http.post("/kafana.v1.LeaguesService/GetLeague", json={"league": "no-such-league"})
    assert league.status_code == 404, league.text
    assert error_info(league.json()["details"]).domain == "kafana"
    who = http.post("/kafana.v1.AccountsService/WhoAmI", json={})
    assert who.status_code == 401, who.text  # WhoAmI needs an API key
    missing = http.post("/kafana.v1.KafanaService/NoSuchMethod", json={})
    assert missing.status_code == 404


def test_watch_events_streams_over_connect(http: httpx.Client) -> None:
    table, _ = started_table(http)
    body = frame(json.dumps({"tableId": table}).encode())
    kinds: list[str] = []
    with http.stream(
        "POST",
        SERVICE + "WatchEvents",
        content=body,
        headers={"content-type": "application/connect+json"},
    ) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/connect+json"
        data = b""
        for chunk in answer.iter_bytes():
            data += chunk
            complete = _complete(data)
            kinds = [json.loads(m)["event"]["kind"] for f, m in complete if "event" in m.decode()]
            if len(kinds) >= 2:
                break
    assert kinds[:2] == ["EVENT_KIND_SEAT_TAKEN", "EVENT_KIND_SEAT_TAKEN"]


def test_watch_events_streams_over_binary_connect(http: httpx.Client) -> None:
    table, _ = started_table(http)
    request = service_pb2.WatchEventsRequest(table_id=table, with_state=True)
    kinds: list[int] = []
    with http.stream(
        "POST",
        SERVICE + "WatchEvents",
        content=frame(request.SerializeToString()),
        headers={"content-type": "application/connect+proto"},
    ) as answer:
        assert answer.headers["content-type"] == "application/connect+proto"
        data = b""
        for chunk in answer.iter_bytes():
            data += chunk
            items = [service_pb2.WatchEventsResponse.FromString(m) for _, m in _complete(data)]
            events = [item.event for item in items if item.HasField("event")]
            kinds = [event.kind for event in events]
            if len(kinds) >= 2:
                break
    assert kinds[:2] == [events_pb2.EVENT_KIND_SEAT_TAKEN] * 2
    assert events[1].HasField("state")  # with_state: each event carries the table's state


def _complete(data: bytes) -> list[tuple[int, bytes]]:
    """The whole frames at the start of `data`."""
    found, at = [], 0
    while len(data) - at >= 5:
        flags, size = struct.unpack(">BI", data[at : at + 5])
        if len(data) - at - 5 < size:
            break
        found.append((flags, data[at + 5 : at + 5 + size]))
        at += 5 + size
    return found


def grpc_web(client: httpx.Client, method: str, request: Message) -> tuple[list[bytes], str]:
    """A gRPC-Web call (binary): its messages and its trailers frame's text."""
    answer = client.post(
        SERVICE + method,
        content=frame(request.SerializeToString()),
        headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/grpc-web")
    if "grpc-status" in answer.headers:  # trailers-only: the status in the headers
        lines = [f"{k}: {v}" for k, v in answer.headers.items() if k.startswith("grpc-")]
        return [], "\r\n".join(lines)
    parts = frames(answer.content)
    assert parts[-1][0] == TRAILERS
    return [m for f, m in parts if f == 0], parts[-1][1].decode()


def trailer(text: str, name: str) -> str:
    """One trailer's value."""
    for line in text.split("\r\n"):
        key, _, value = line.partition(":")
        if key.strip().lower() == name:
            return value.strip()
    raise AssertionError(f"no {name} in {text!r}")


def test_grpc_web_serves_unary_calls_and_refusals(http: httpx.Client) -> None:
    table, tokens = started_table(http)
    messages, trailers = grpc_web(http, "GetTable", service_pb2.GetTableRequest(table_id=table))
    assert state_pb2.TableInfo.FromString(messages[0]).table_id == table
    assert trailer(trailers, "grpc-status") == "0"

    state = connect_json(http, "GetState", {"tableId": table}, kafana_seat_token=tokens[0])
    waiting = tokens[1 - state.get("currentSeat", 0)]  # the seat that is not to move
    refused = service_pb2.PlayMoveRequest(table_id=table, client_move_id="x", last_seq=2)
    refused.move.text = "KS"
    answer = http.post(
        SERVICE + "PlayMove",
        content=frame(refused.SerializeToString()),
        headers={"content-type": "application/grpc-web+proto", "kafana-seat-token": waiting},
    )
    text = answer.headers.get("grpc-status-details-bin") or trailer(
        frames(answer.content)[-1][1].decode(), "grpc-status-details-bin"
    )
    status = status_pb2.Status.FromString(base64.b64decode(text + "=" * (-len(text) % 4)))
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert status.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert (info.reason, info.domain) == ("NOT_YOUR_TURN", "kafana")


def test_grpc_web_streams_events(http: httpx.Client) -> None:
    table, _ = started_table(http)
    request = service_pb2.WatchEventsRequest(table_id=table).SerializeToString()
    with http.stream(
        "POST",
        SERVICE + "WatchEvents",
        content=frame(request),
        headers={"content-type": "application/grpc-web+proto"},
    ) as answer:
        data = b""
        events: list[service_pb2.WatchEventsResponse] = []
        for chunk in answer.iter_bytes():
            data += chunk
            events = [service_pb2.WatchEventsResponse.FromString(m) for _, m in _complete(data)]
            if len(events) >= 2:
                break
    assert [e.event.seq for e in events[:2]] == [1, 2]


def test_cors_preflight_admits_listed_origins_only(http: httpx.Client) -> None:
    asked = "content-type, connect-protocol-version, authorization, kafana-seat-token"
    preflight = http.options(
        SERVICE + "PlayMove",
        headers={
            "origin": ORIGIN,
            "access-control-request-method": "POST",
            "access-control-request-headers": asked,
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == ORIGIN
    granted = {h.strip() for h in preflight.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "kafana-seat-token", "connect-protocol-version"} <= granted
    assert "POST" in preflight.headers["access-control-allow-methods"]

    call = http.post(SERVICE + "GetServerInfo", json={}, headers={"origin": ORIGIN})
    assert call.status_code == 200
    assert call.headers["access-control-allow-origin"] == ORIGIN
    exposed = call.headers["access-control-expose-headers"]
    assert "grpc-status-details-bin" in exposed and "grpc-status" in exposed

    stranger = {"origin": "https://elsewhere.example", "access-control-request-method": "POST"}
    assert http.options(SERVICE + "PlayMove", headers=stranger).status_code == 403
    refused = http.post(SERVICE + "GetServerInfo", json={}, headers={"origin": stranger["origin"]})
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers


def test_the_servers_own_pages_may_call_but_not_a_rebinding_name(
    http: httpx.Client, served: tuple[Served, str]
) -> None:
    own = served[1]  # http://127.0.0.1:PORT: the page kafana serve serves at /
    page = http.post(SERVICE + "GetServerInfo", json={}, headers={"origin": own})
    assert page.status_code == 200, page.text
    port = own.rsplit(":", 1)[1]
    rebound = f"evil.example:{port}"  # a name an attacker's DNS points at this server
    refused = http.post(
        SERVICE + "GetServerInfo",
        json={},
        headers={"origin": f"http://{rebound}", "host": rebound},
    )
    assert refused.status_code == 403


@pytest.fixture
async def limited(redis_store: RedisStore) -> AsyncIterator[tuple[Any, str]]:
    """An in-process server, HTTP on too, with a tiny rate limit: 4 calls per caller."""
    async with running(redis_store, http_port=0, rate_limit=RateLimit(0.01, 4)) as svc:
        assert svc.server.http is not None
        yield svc, svc.server.http.url


@pytest.fixture
async def one_stream(redis_store: RedisStore) -> AsyncIterator[tuple[Any, str]]:
    """An in-process server, HTTP on too, that allows one event stream per caller."""
    async with running(redis_store, http_port=0, rate_limit=RateLimit(max_streams=1)) as svc:
        assert svc.server.http is not None
        yield svc, svc.server.http.url


async def test_grpc_and_http_calls_share_the_callers_rate_limit(
    limited: tuple[Any, str],
) -> None:
    svc, url = limited
    request = service_pb2.GetServerInfoRequest()
    await svc.stub.GetServerInfo(request)
    await svc.stub.GetServerInfo(request)
    async with httpx.AsyncClient(base_url=url) as client:
        for _ in range(2):
            ok = await client.post(SERVICE + "GetServerInfo", json={})
            assert ok.status_code == 200
        refused = await client.post(SERVICE + "GetServerInfo", json={})
    assert refused.status_code == 429, refused.text  # Connect's status of RESOURCE_EXHAUSTED
    body = refused.json()
    assert error_info(body["details"]).reason == "RATE_LIMITED"
    assert "google.rpc.RetryInfo" in {d["type"] for d in body["details"]}
    assert int(refused.headers["retry-after"]) >= 1  # HTTP's own hint, whole seconds


async def test_a_grpc_stream_counts_against_http_streams_and_stop_ends_them(
    one_stream: tuple[Any, str],
) -> None:
    svc, url = one_stream
    table = (await svc.stub.CreateTable(service_pb2.CreateTableRequest())).table_id
    await svc.stub.JoinTable(service_pb2.JoinTableRequest(table_id=table, name="p0"))
    watched = svc.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table))
    await watched.read()  # the caller's one stream is open, over gRPC
    body = frame(json.dumps({"tableId": table}).encode())
    headers = {"content-type": "application/connect+json"}
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        answer = await client.post(SERVICE + "WatchEvents", content=body, headers=headers)
        flags, last = frames(answer.content)[-1]
        assert flags == END_STREAM
        error = json.loads(last)["error"]
        assert error["code"] == "resource_exhausted"
        assert error_info(error["details"]).reason == "QUOTA_EXCEEDED"
        watched.cancel()
        data = b""
        stopping: asyncio.Task[None] | None = None
        for _ in range(100):  # until the gRPC stream's end is counted
            async with client.stream(
                "POST", SERVICE + "WatchEvents", content=body, headers=headers
            ) as stream:
                data = b""
                async for chunk in stream.aiter_bytes():
                    data += chunk
                    if stopping is None and _complete(data)[0][0] == 0:  # an event came
                        stopping = asyncio.create_task(svc.server.stop(0.5))
            if stopping is not None:
                break
            await asyncio.sleep(0.02)
        assert stopping is not None, data
        await stopping
    last_flags, last = frames(data)[-1]
    assert last_flags == END_STREAM
    error = json.loads(last)["error"]
    assert error["code"] == "unavailable"
    assert error_info(error["details"]).reason == "SERVER_STOPPING"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "0", "--http-origins", "app.example"], "is not scheme://host[:port]"),
        (["--port", "50999", "--http", "50999"], "--http needs a port of its own"),
        (["--port", "0", "--http", "70000"], "70000 is not in the range"),
    ],
)
def test_bad_http_options_are_refused(args: list[str], says: str) -> None:
    from click.testing import CliRunner
    from kafana.cli import main

    result = CliRunner().invoke(main, ["serve", "--memory", *args])
    assert result.exit_code == 2, result.output
    assert says in result.output


async def test_a_dropped_http_stream_frees_the_callers_stream(
    one_stream: tuple[Any, str],
) -> None:
    svc, url = one_stream
    table = (await svc.stub.CreateTable(service_pb2.CreateTableRequest())).table_id
    await svc.stub.JoinTable(service_pb2.JoinTableRequest(table_id=table, name="p0"))
    body = frame(json.dumps({"tableId": table}).encode())
    headers = {"content-type": "application/connect+json"}
    async with (
        httpx.AsyncClient(base_url=url, timeout=10) as client,
        client.stream("POST", SERVICE + "WatchEvents", content=body, headers=headers) as stream,
    ):
        async for chunk in stream.aiter_bytes():
            assert _complete(chunk)[0][0] == 0  # an event: the caller's one stream is open
            break
    for _ in range(100):  # the client went away: its stream ends, and the slot frees up
        watched = svc.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table))
        try:
            first = await watched.read()
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            await asyncio.sleep(0.02)
            continue
        watched.cancel()
        assert first.event.seq == 1
        return
    raise AssertionError("the dropped HTTP stream still counts against its caller")


def test_request_sizes_are_bounded_as_over_grpc(http: httpx.Client) -> None:
    limit = 1024 * 1024  # --max-message-bytes' default
    proto = {"content-type": "application/proto"}
    over = http.post(SERVICE + "GetServerInfo", content=b"x" * (limit + 1), headers=proto)
    assert over.status_code == 400  # read, and refused by the guard with its reason
    body = over.json()
    assert error_info(body["details"]).reason == "INVALID_ARGUMENT"
    assert f"at most {limit}" in body["message"]
    unread = http.post(SERVICE + "GetServerInfo", content=b"x" * (2 * limit + 1), headers=proto)
    assert unread.status_code == 429  # RESOURCE_EXHAUSTED, refused unread
    assert unread.json()["code"] == "resource_exhausted"
    headers = {"kafana-seat-token": "x" * 20_000}  # gRPC's metadata limit is 16 KB
    too_long = http.post(SERVICE + "GetServerInfo", json={}, headers=headers)
    assert too_long.status_code == 431 and "at most 16384" in too_long.text


async def test_http_calls_are_counted_by_the_metrics_interceptor(redis_store: RedisStore) -> None:
    from kafana import metrics

    def calls(code: str) -> float:
        value = metrics.REGISTRY.get_sample_value(
            "kafana_rpc_calls_total",
            {"service": "KafanaService", "method": "GetTable", "code": code},
        )
        return value or 0.0

    async with running(redis_store, http_port=0, metered=True) as svc:
        assert svc.server.http is not None
        before = calls("OK"), calls("NOT_FOUND")
        async with httpx.AsyncClient(base_url=svc.server.http.url) as client:
            found = await svc.stub.CreateTable(service_pb2.CreateTableRequest())
            ok = await client.post(SERVICE + "GetTable", json={"tableId": found.table_id})
            missing = await client.post(SERVICE + "GetTable", json={"tableId": "nosuchtable"})
        assert (ok.status_code, missing.status_code) == (200, 404)
        assert (calls("OK"), calls("NOT_FOUND")) == (before[0] + 1, before[1] + 1)
