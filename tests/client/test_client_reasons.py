"""The SDK reads the server's refusals from their `google.rpc.Status`: the ErrorInfo reason and
metadata pick the error class, RetryInfo gives `retry_after`, and a rate limit is waited out."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from kafana.errors import MatchNotStartedError, TableFullError, TooManyMovesError
from kafana.service.ratelimit import RateLimit
from kafana.service.server import KafanaServer, create_server
from kafana.service.settings import Settings
from kafana.store.redis_store import RedisStore
from kafana_client import (
    AsyncClient,
    MatchOverRpcError,
    NotYourTurnRpcError,
    ResourceExhaustedError,
    SeatTakenRpcError,
    table_config,
)
from kafana_client.connection import ConnectOptions, Retry
from kafana_client.errors import (
    MatchNotOverRpcError,
    MatchNotStartedRpcError,
    NotFoundRpcError,
    RefusedMoveError,
    TableFullRpcError,
    TooManyMovesRpcError,
    from_grpc,
)


@pytest.fixture
async def server(redis_store: RedisStore) -> AsyncIterator[KafanaServer]:
    served = create_server(redis_store, Settings(rate_limit=RateLimit(rate=5, burst=12)))
    await served.start()
    try:
        yield served
    finally:
        await served.stop(0.2)


def client_of(server: KafanaServer, attempts: int = 1) -> AsyncClient:
    """A client of `server` that retries `attempts - 1` times (1: never)."""
    options = ConnectOptions(f"127.0.0.1:{server.port}", retry=Retry(attempts=attempts))
    return AsyncClient(options)


async def test_each_refusal_has_its_reason_class_and_metadata(server: KafanaServer) -> None:
    async with client_of(server, attempts=3) as client:
        table = await client.create_table(table_config(players=2, seed=5))
        first = await client.join(table.table_id, seat=0)
        with pytest.raises(MatchNotStartedRpcError) as early:
            await first.play("2C", last_seq=1)
        assert early.value.reason == "MATCH_NOT_STARTED"
        assert isinstance(early.value, MatchNotStartedError | NotYourTurnRpcError)
        second = await client.join(table.table_id, seat=1)
        with pytest.raises(SeatTakenRpcError) as taken:
            await client.join(table.table_id, seat=1)
        assert taken.value.reason == "TABLE_FULL"
        assert isinstance(taken.value, TableFullRpcError | TableFullError)
        legal = await first.legal_moves()
        with pytest.raises(NotYourTurnRpcError) as not_yours:
            await second.play(legal.texts()[0].split(":")[0], last_seq=legal.seq)
        assert not_yours.value.reason == "NOT_YOUR_TURN"
        assert not isinstance(not_yours.value, MatchNotStartedRpcError)
        with pytest.raises(RefusedMoveError) as nonsense:
            await first.play("not a card", last_seq=legal.seq)
        assert nonsense.value.reason == "ILLEGAL_MOVE"
        with pytest.raises(MatchNotOverRpcError) as early_record:
            await client.record(table.table_id)
        assert early_record.value.reason == "MATCH_NOT_OVER"
        assert not isinstance(early_record.value, MatchOverRpcError)
        with pytest.raises(NotFoundRpcError) as missing:
            await client.get_state("no-such-table")
        assert missing.value.reason == "TABLE_NOT_FOUND"
        assert missing.value.metadata == {"table_id": "no-such-table"}
        assert missing.value.retry_after is None and not missing.value.retryable


async def test_a_finished_match_refuses_moves_as_match_over(server: KafanaServer) -> None:
    async with client_of(server, attempts=3) as client:
        table = await client.create_table(table_config(players=2, seed=9))
        seats = [await client.join(table.table_id, seat=s) for s in (0, 1)]
        await client.close_table(table.table_id, table.admin_token)
        now = (await client.get_state(table.table_id)).seq
        with pytest.raises(MatchOverRpcError) as over:
            await seats[0].play("2C", last_seq=now)
        assert over.value.reason == "MATCH_OVER"


async def test_a_rate_limit_carries_its_wait_and_is_waited_out(server: KafanaServer) -> None:
    async with client_of(server) as client:
        table = await client.create_table(table_config(players=2, seed=5))
        refused = None
        for _ in range(20):  # a burst of 12 at 5 per second: the limit comes quickly
            try:
                await client.get_state(table.table_id)
            except ResourceExhaustedError as error:
                refused = error
                break
        assert refused is not None, "the rate limit never refused a call"
        assert refused.reason == "RATE_LIMITED" and refused.retryable
        assert refused.retry_after is not None and 0 < refused.retry_after <= 0.25
    async with client_of(server, attempts=5) as patient:  # same address: same empty bucket
        for _ in range(5):  # each refusal is waited out for its RetryInfo delay
            await patient.get_state(table.table_id)


class Synthetic(grpc.RpcError):
    """A failure without any status details (gRPC's own, or a lost connection)."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.INVALID_ARGUMENT

    def details(self) -> str:
        return "Received message larger than max"


def test_a_refusal_without_details_takes_its_codes_class() -> None:
    error = from_grpc(Synthetic(), "GetLegalMoves")
    assert type(error).__name__ == "InvalidArgumentError"
    assert (error.reason, error.metadata, error.retry_after) == ("", {}, None)
    assert not isinstance(error, TooManyMovesRpcError | TooManyMovesError)
