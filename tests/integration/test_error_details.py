"""Every refusal a call can meet, on a real server: its status code, and a `google.rpc.Status`
in `grpc-status-details-bin` with one ErrorInfo (reason, domain "kafana", metadata), plus a
RetryInfo when waiting helps. The details are read with `google.rpc.status_pb2` itself, as a
Go (`status.Details()`) or Java (`StatusProto.fromThrowable`) client reads them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.service.limits import Limits
from kafana.service.ratelimit import RateLimit
from kafana.service.server import KafanaServer
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.errors import StoreUnavailable
from kafana.store.redis_store import RedisStore
from kafana.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    errors_pb2,
    rules_pb2,
    service_pb2,
    service_pb2_grpc,
    state_pb2,
)
from kit import admin_md, reason_of, refusal, running, seat_md

Metadata = tuple[tuple[str, str], ...]
DETAILS = "grpc-status-details-bin"
Code = grpc.StatusCode


def bearer(key: str) -> Metadata:
    return (("authorization", f"Bearer {key}"),)


@dataclass
class World:
    """A required-mode server, an operator's and a player's key, and a table of the player."""

    server: KafanaServer
    stub: service_pb2_grpc.KafanaServiceStub
    accounts: accounts_pb2_grpc.AccountsServiceStub
    operator: Metadata
    player: Metadata
    monkeypatch: pytest.MonkeyPatch
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])  # names unique to the test
    table_id: str = ""
    admin: Metadata = ()
    seats: list[Metadata] = field(default_factory=list)

    async def create(self, **config: Any) -> service_pb2.CreateTableResponse:
        """A new two-player Tablić table of the player (`config`: more TableConfig fields)."""
        spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC, players=2)
        request = service_pb2.CreateTableRequest(
            config=rules_pb2.TableConfig(rules=spec, seed=7, **config)
        )
        created: service_pb2.CreateTableResponse = await self.stub.CreateTable(
            request, metadata=self.player
        )
        self.table_id, self.admin = created.table_id, self.player + admin_md(created.admin_token)
        return created

    async def join(self, seat: int) -> Metadata:
        joined = await self.stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=self.table_id, seat=seat, name=f"s{seat}"),
            metadata=self.player,
        )
        self.seats.append(self.player + seat_md(joined.seat_token))
        return self.seats[-1]

    async def seated(self) -> int:
        """Create a table and take both seats: the table's seq (seat 0 to move)."""
        await self.create()
        await self.join(0)
        await self.join(1)
        return await self.seq()

    async def seq(self) -> int:
        state = await self.stub.GetState(
            service_pb2.GetStateRequest(table_id=self.table_id), metadata=self.player
        )
        return int(state.seq)

    async def first_move(self, seat: int = 0) -> str:
        legal = await self.stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=self.table_id), metadata=self.seats[seat]
        )
        return str(legal.moves[0].text)

    def play(self, seat: int, text: str, move_id: str, last_seq: int) -> Any:
        request = service_pb2.PlayMoveRequest(
            table_id=self.table_id,
            move=state_pb2.Move(text=text),
            client_move_id=move_id,
            last_seq=last_seq,
        )
        return self.stub.PlayMove(request, metadata=self.seats[seat])

    def get_state(self, table_id: str | None = None) -> Any:
        request = service_pb2.GetStateRequest(table_id=table_id or self.table_id)
        return self.stub.GetState(request, metadata=self.player)


@asynccontextmanager
async def world(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> AsyncIterator[World]:
    """A required-mode server on the private Redis (`options`: more `create_server` options)."""
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        async with running(store, auth=AuthPolicy(mode=REQUIRED), **options) as svc:
            key, name = new_key(), f"root-{uuid.uuid4().hex[:8]}"
            assert await accounts.create(Account(name, "operator", now_ms()), key_hash(key))
            stub = accounts_pb2_grpc.AccountsServiceStub(svc.channel)
            made = await stub.CreateAccount(
                accounts_pb2.CreateAccountRequest(
                    name=f"ana-{uuid.uuid4().hex[:8]}", role=accounts_pb2.ROLE_PLAYER
                ),
                metadata=bearer(key),
            )
            yield World(svc.server, svc.stub, stub, bearer(key), bearer(made.key), monkeypatch)
    finally:
        await store.close()


# -- the scenarios: each makes the call that meets one refusal ----------------------------


async def invalid_argument(w: World) -> Any:
    return await w.stub.ListTables(
        service_pb2.ListTablesRequest(game=99),  # type: ignore[arg-type]
        metadata=w.player,
    )


async def invalid_rules(w: World) -> Any:
    spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC, players=7)
    request = service_pb2.CreateTableRequest(config=rules_pb2.TableConfig(rules=spec))
    return await w.stub.CreateTable(request, metadata=w.player)


async def illegal_move(w: World) -> Any:
    return await w.play(0, "ZZ", "m1", await w.seated())


async def move_id_missing(w: World) -> Any:
    seq = await w.seated()
    return await w.play(0, await w.first_move(), "", seq)


async def last_seq_missing(w: World) -> Any:
    await w.seated()
    return await w.play(0, await w.first_move(), "m1", 0)


async def invalid_page_token(w: World) -> Any:
    request = service_pb2.ListTablesRequest(page_token="not-a-token")
    return await w.stub.ListTables(request, metadata=w.player)


async def too_many_moves(w: World) -> Any:
    """Both seats trail until the seat to move has more captures than the server lists."""
    seq = await w.seated()
    for turn in range(60):
        state = await w.stub.GetState(
            service_pb2.GetStateRequest(table_id=w.table_id), metadata=w.seats[turn % 2]
        )
        request = service_pb2.GetLegalMovesRequest(table_id=w.table_id)
        try:
            await w.stub.GetLegalMoves(request, metadata=w.seats[turn % 2])
        except grpc.aio.AioRpcError as error:
            if reason_of(error) == "TOO_MANY_MOVES":
                raise
        seq = int(state.seq)
        await w.play(turn % 2, state.tablic.hand[0], f"t{turn}", seq)
    raise AssertionError("the table never grew past what the server lists")


async def not_your_turn(w: World) -> Any:
    seq = await w.seated()
    return await w.play(1, "2C", "m1", seq)


async def match_not_started(w: World) -> Any:
    await w.create()
    await w.join(0)
    return await w.play(0, "2C", "m1", await w.seq())


async def match_over(w: World) -> Any:
    await w.seated()
    await w.stub.CloseTable(service_pb2.CloseTableRequest(table_id=w.table_id), metadata=w.admin)
    return await w.play(0, "2C", "m1", await w.seq())


async def match_not_over(w: World) -> Any:
    await w.seated()
    request = service_pb2.GetRecordRequest(table_id=w.table_id)
    return await w.stub.GetRecord(request, metadata=w.player)


async def stale_seq(w: World) -> Any:
    seq = await w.seated()
    await w.play(0, await w.first_move(0), "m1", seq)
    return await w.play(1, await w.first_move(1), "m2", seq)


async def seq_ahead(w: World) -> Any:
    seq = await w.seated()
    return await w.play(0, await w.first_move(), "m1", seq + 5)


async def seat_taken(w: World) -> Any:
    await w.create()
    await w.join(0)
    return await w.join(0)


async def table_full(w: World) -> Any:
    await w.seated()
    return await w.stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=w.table_id), metadata=w.player
    )


async def embargoed(w: World) -> Any:
    await w.create(embargo="cup/board-1")
    await w.server.tables.embargo("cup/board-1", 60_000)
    return await w.stub.GetState(service_pb2.GetStateRequest(table_id=w.table_id))


async def wrong_state(w: World) -> Any:
    await w.accounts.CreateAccount(
        accounts_pb2.CreateAccountRequest(name=f"gone-{w.tag}", role=accounts_pb2.ROLE_PLAYER),
        metadata=w.operator,
    )
    await w.accounts.RevokeAccount(
        accounts_pb2.RevokeAccountRequest(name=f"gone-{w.tag}"), metadata=w.operator
    )
    request = accounts_pb2.RotateKeyRequest(name=f"gone-{w.tag}")
    return await w.accounts.RotateKey(request, metadata=w.operator)


async def move_id_reused(w: World) -> Any:
    seq = await w.seated()
    legal = await w.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=w.table_id), metadata=w.seats[0]
    )
    await w.play(0, legal.moves[0].text, "m1", seq)
    return await w.play(0, legal.moves[1].text, "m1", seq)


async def already_exists(w: World) -> Any:
    request = accounts_pb2.CreateAccountRequest(
        name=f"twice-{w.tag}", role=accounts_pb2.ROLE_PLAYER
    )
    await w.accounts.CreateAccount(request, metadata=w.operator)
    return await w.accounts.CreateAccount(request, metadata=w.operator)


async def table_not_found(w: World) -> Any:
    return await w.get_state("no-such-table")


async def not_found(w: World) -> Any:
    request = accounts_pb2.RevokeAccountRequest(name=f"nobody-{w.tag}")
    return await w.accounts.RevokeAccount(request, metadata=w.operator)


async def api_key_missing(w: World) -> Any:
    return await w.stub.CreateTable(service_pb2.CreateTableRequest())


async def api_key_invalid(w: World) -> Any:
    return await w.stub.ListTables(
        service_pb2.ListTablesRequest(), metadata=bearer("not-a-key-anyone-has")
    )


async def token_invalid(w: World) -> Any:
    seq = await w.seated()
    request = service_pb2.PlayMoveRequest(
        table_id=w.table_id, move=state_pb2.Move(text="2C"), client_move_id="m1", last_seq=seq
    )
    return await w.stub.PlayMove(request, metadata=w.player + seat_md("wrong-token"))


async def permission_denied(w: World) -> Any:
    request = accounts_pb2.CreateAccountRequest(
        name=f"sneaky-{w.tag}", role=accounts_pb2.ROLE_PLAYER
    )
    return await w.accounts.CreateAccount(request, metadata=w.player)


async def rate_limited(w: World) -> Any:
    for _ in range(50):  # a burst of 10: the limit comes quickly
        await w.stub.ListTables(service_pb2.ListTablesRequest(), metadata=w.player)
    raise AssertionError("the rate limit never refused a call")


async def quota_exceeded(w: World) -> Any:
    await w.create()
    return await w.create()


async def store_unavailable(w: World) -> Any:
    async def away(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("redis is loading (test)")

    w.monkeypatch.setattr(w.server.tables, "session", away)
    return await w.get_state("any-table")


async def internal(w: World) -> Any:
    async def bug(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug (test)")

    w.monkeypatch.setattr(w.server.tables, "session", bug)
    return await w.get_state("any-table")


Scenario = Callable[[World], Awaitable[Any]]
CASES: list[tuple[str, Code, Scenario, dict[str, Any]]] = [
    ("INVALID_ARGUMENT", Code.INVALID_ARGUMENT, invalid_argument, {}),
    ("INVALID_RULES", Code.INVALID_ARGUMENT, invalid_rules, {}),
    ("ILLEGAL_MOVE", Code.INVALID_ARGUMENT, illegal_move, {}),
    ("MOVE_ID_MISSING", Code.INVALID_ARGUMENT, move_id_missing, {}),
    ("LAST_SEQ_MISSING", Code.INVALID_ARGUMENT, last_seq_missing, {}),
    ("INVALID_PAGE_TOKEN", Code.INVALID_ARGUMENT, invalid_page_token, {}),
    ("TOO_MANY_MOVES", Code.INVALID_ARGUMENT, too_many_moves, {}),
    ("NOT_YOUR_TURN", Code.FAILED_PRECONDITION, not_your_turn, {}),
    ("MATCH_NOT_STARTED", Code.FAILED_PRECONDITION, match_not_started, {}),
    ("MATCH_OVER", Code.FAILED_PRECONDITION, match_over, {}),
    ("MATCH_NOT_OVER", Code.FAILED_PRECONDITION, match_not_over, {}),
    ("STALE_SEQ", Code.FAILED_PRECONDITION, stale_seq, {}),
    ("SEQ_AHEAD", Code.FAILED_PRECONDITION, seq_ahead, {}),
    ("SEAT_TAKEN", Code.FAILED_PRECONDITION, seat_taken, {}),
    ("TABLE_FULL", Code.FAILED_PRECONDITION, table_full, {}),
    ("EMBARGOED", Code.FAILED_PRECONDITION, embargoed, {}),
    ("WRONG_STATE", Code.FAILED_PRECONDITION, wrong_state, {}),
    ("MOVE_ID_REUSED", Code.ALREADY_EXISTS, move_id_reused, {}),
    ("ALREADY_EXISTS", Code.ALREADY_EXISTS, already_exists, {}),
    ("TABLE_NOT_FOUND", Code.NOT_FOUND, table_not_found, {}),
    ("NOT_FOUND", Code.NOT_FOUND, not_found, {}),
    ("API_KEY_MISSING", Code.UNAUTHENTICATED, api_key_missing, {}),
    ("API_KEY_INVALID", Code.UNAUTHENTICATED, api_key_invalid, {}),
    ("TOKEN_INVALID", Code.UNAUTHENTICATED, token_invalid, {}),
    ("PERMISSION_DENIED", Code.PERMISSION_DENIED, permission_denied, {}),
    (
        "RATE_LIMITED",
        Code.RESOURCE_EXHAUSTED,
        rate_limited,
        {"rate_limit": RateLimit(rate=2, burst=10)},
    ),
    ("QUOTA_EXCEEDED", Code.RESOURCE_EXHAUSTED, quota_exceeded, {"limits": Limits(open_tables=1)}),
    ("STORE_UNAVAILABLE", Code.UNAVAILABLE, store_unavailable, {}),
    ("INTERNAL", Code.INTERNAL, internal, {}),
]
RETRY_INFO = {"RATE_LIMITED", "QUOTA_EXCEEDED"}
"""The reasons of CASES whose refusal says how long to wait."""


def rich_status(error: grpc.aio.AioRpcError) -> status_pb2.Status:
    """The refusal's google.rpc.Status, parsed with nothing but the protobuf classes."""
    [raw] = [value for key, value in error.trailing_metadata() or () if key == DETAILS]
    return status_pb2.Status.FromString(raw)


def unpacked(status: status_pb2.Status, kind: Any) -> list[Any]:
    """The details of `status` of message type `kind`, unpacked."""
    found = []
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            found.append(message)
    return found


@pytest.mark.parametrize(
    ("reason", "code", "scenario", "options"), CASES, ids=[case[0] for case in CASES]
)
async def test_every_refusal_carries_its_error_info(
    reason: str,
    code: Code,
    scenario: Scenario,
    options: dict[str, Any],
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with world(redis_url, monkeypatch, **options) as w:
        error = await refusal(scenario(w))
    assert (error.code(), reason_of(error)) == (code, reason), error.details()
    status = rich_status(error)
    assert status.code == code.value[0] and status.message == error.details()
    [info] = unpacked(status, error_details_pb2.ErrorInfo)
    assert (info.reason, info.domain) == (reason, "kafana")
    assert errors_pb2.ErrorReason.Value(info.reason) > 0
    waits = unpacked(status, error_details_pb2.RetryInfo)
    if reason in RETRY_INFO:
        [wait] = waits
        assert wait.retry_delay.ToMilliseconds() >= 1
    else:
        assert waits == []
    sent = {key for key, _ in error.trailing_metadata() or ()}
    assert not sent & {"kafana-error", "retry-after-ms"}, sent


def test_the_cases_cover_every_reason() -> None:
    known = set(errors_pb2.ErrorReason.keys()) - {"ERROR_REASON_UNSPECIFIED", "SERVER_STOPPING"}
    assert {case[0] for case in CASES} == known  # SERVER_STOPPING: its own test below


def info_of(error: grpc.aio.AioRpcError) -> dict[str, str]:
    """The ErrorInfo metadata of a refusal."""
    [info] = unpacked(rich_status(error), error_details_pb2.ErrorInfo)
    return dict(info.metadata)


@pytest.mark.parametrize(
    ("scenario", "metadata", "options"),
    [
        (table_not_found, {"table_id": "no-such-table"}, {}),
        (not_found, {"resource": "account"}, {}),
        (already_exists, {"resource": "account"}, {}),
        (permission_denied, {"needs": "operator"}, {}),
        (invalid_argument, {"field": "game"}, {}),
        (stale_seq, {"field": "last_seq"}, {}),
        (quota_exceeded, {"quota": "open_tables", "limit": "1"}, {"limits": Limits(open_tables=1)}),
        (rate_limited, {"limit": "calls_per_second"}, {"rate_limit": RateLimit(rate=2, burst=10)}),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
async def test_metadata_names_what_was_wrong(
    scenario: Scenario,
    metadata: dict[str, str],
    options: dict[str, Any],
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with world(redis_url, monkeypatch, **options) as w:
        error = await refusal(scenario(w))
    assert info_of(error).items() >= metadata.items(), info_of(error)


async def test_a_stale_move_keeps_the_state_beside_the_status(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world(redis_url, monkeypatch) as w:
        error = await refusal(stale_seq(w))
        current = await w.seq()
    [raw] = [v for k, v in error.trailing_metadata() or () if k == "kafana-state-bin"]
    assert state_pb2.TableState.FromString(raw).seq == current
    assert reason_of(error) == "STALE_SEQ"


async def test_a_rate_limit_says_when_to_retry(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world(redis_url, monkeypatch, rate_limit=RateLimit(rate=4, burst=10)) as w:
        error = await refusal(rate_limited(w))
        [wait] = unpacked(rich_status(error), error_details_pb2.RetryInfo)
        delay = wait.retry_delay.ToMilliseconds()
        assert 0 < delay <= 250  # one token back at 4 per second
        await asyncio.sleep(delay / 1000 + 0.05)
        await w.stub.ListTables(service_pb2.ListTablesRequest(), metadata=w.player)


async def test_a_stopping_server_ends_streams_with_server_stopping(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world(redis_url, monkeypatch) as w:
        await w.seated()
        stream = w.stub.WatchEvents(
            service_pb2.WatchEventsRequest(table_id=w.table_id), metadata=w.player
        )
        await stream.read()  # the stream is open
        stopping = asyncio.create_task(w.server.stop(2.0))
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            while True:
                item = await stream.read()
                assert item is not grpc.aio.EOF, "the stream ended OK while the match runs"
        await stopping
    assert (ended.value.code(), reason_of(ended.value)) == (Code.UNAVAILABLE, "SERVER_STOPPING")
    [info] = unpacked(rich_status(ended.value), error_details_pb2.ErrorInfo)
    assert info.domain == "kafana"
