"""The asyncio client (grpc.aio): every RPC, seats that keep their token, safe retries, resume.

Example (inside an `async def`)::

    from kafana_client import AsyncClient, table_config

    async with AsyncClient.connect("localhost:50051") as client:
        table = await client.create_table(table_config(seed=7, target=51))
        alice = await client.join(table.table_id, name="alice")
        bob = await client.join(table.table_id, name="bob")
        moves = await alice.legal_moves()          # alice (seat 0) moves first
        answer = await alice.play(moves.moves[0].text)
        async for event in client.watch(table.table_id):
            print(event.seq, event.move.text)
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.games import tablic
from kafana.v1 import events_pb2, rules_pb2, service_pb2, service_pb2_grpc, state_pb2

from kafana_client.connection import ConnectOptions, Connects
from kafana_client.errors import RpcError, from_grpc

RESUMABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})


@dataclass(frozen=True)
class CreatedTable:
    """A new table: its id, the secret admin token (closes it) and its summary."""

    table_id: str
    admin_token: str
    info: state_pb2.TableInfo


@dataclass(frozen=True)
class LegalMoves:
    """The legal moves of the seat to move, at sequence number `seq`.

    `listed` is False when the server could not list them (too many captures) and these are
    only the hand's trails (see `kafana_client.seat_loop.playable_moves`).
    """

    seq: int
    moves: list[state_pb2.Move]
    listed: bool = True

    def parsed(self) -> list[tablic.Move]:
        """The moves as rules-core `Move`s."""
        return [tablic.Move.parse(m.text) for m in self.moves]

    def texts(self) -> list[str]:
        """The moves in canonical text."""
        return [m.text for m in self.moves]


def _timeout(value: float | None) -> float | None:
    return None if value is None or math.isinf(value) else value


class AsyncClient(Connects):
    """A connection to a Kafana server. Create with `connect`; close with `close` or `async with`.

    Every method takes `timeout` (seconds) to override the connection's default deadline for
    that call; `math.inf` means no deadline. Failures raise `kafana_client.errors.RpcError`
    subclasses carrying the gRPC code and the server's message.
    """

    def __init__(self, options: ConnectOptions, channel: grpc.aio.Channel | None = None) -> None:
        self.options = options
        self.channel = channel if channel is not None else options.aio_channel()
        self._stub: Any = service_pb2_grpc.KafanaServiceStub(self.channel)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (running calls are cancelled)."""
        await self.channel.close()

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the channel is connected; DeadlineExceededError after `timeout`."""
        try:
            await asyncio.wait_for(self.channel.channel_ready(), timeout)
        except TimeoutError:
            raise from_grpc(_Timeout(), "connect") from None

    # -- the one place calls are made ----------------------------------------------------

    async def _call(
        self,
        method: str,
        request: Any,
        timeout: float | None,
        *,
        retry: bool = False,
        stub: Any = None,
    ) -> Any:
        """Call `method` of the Kafana service (or of `stub`, another service on the channel)."""
        deadline = _timeout(self.options.deadline(method) if timeout is None else timeout)
        policy = self.options.retry
        attempt = 0
        while True:
            try:
                return await getattr(stub or self._stub, method)(request, timeout=deadline)
            except grpc.aio.AioRpcError as error:
                attempt += 1
                if (
                    retry
                    and error.code() == grpc.StatusCode.UNAVAILABLE
                    and attempt < policy.attempts
                ):
                    await asyncio.sleep(policy.delay(attempt))
                    continue
                raise from_grpc(error, method) from None

    # -- tables ---------------------------------------------------------------------------

    async def create_table(
        self, config: rules_pb2.TableConfig | None = None, *, timeout: float | None = None
    ) -> CreatedTable:
        """Create a table (see `table_config` for building `config`)."""
        request = service_pb2.CreateTableRequest(config=config or rules_pb2.TableConfig())
        answer = await self._call("CreateTable", request, timeout)
        return CreatedTable(answer.table_id, answer.admin_token, answer.info)

    async def join(
        self,
        table_id: str,
        *,
        seat: int | None = None,
        name: str = "",
        timeout: float | None = None,
    ) -> AsyncSeat:
        """Take `seat` (None: the first free one); the returned `AsyncSeat` keeps the token."""
        request = service_pb2.JoinTableRequest(table_id=table_id, name=name)
        if seat is not None:
            request.seat = seat
        answer = await self._call("JoinTable", request, timeout)
        return AsyncSeat(
            self, table_id, answer.seat, answer.seat_token, name, answer.state.seq, answer.state
        )

    async def leave(self, table_id: str, seat_token: str, *, timeout: float | None = None) -> int:
        """Leave a seat (before the match) or forfeit (during it); returns the new seq."""
        request = service_pb2.LeaveTableRequest(table_id=table_id, seat_token=seat_token)
        answer = await self._call("LeaveTable", request, timeout)
        return int(answer.seq)

    async def close_table(
        self, table_id: str, admin_token: str, *, timeout: float | None = None
    ) -> int:
        """End a table now (admin token); returns the new seq."""
        request = service_pb2.CloseTableRequest(table_id=table_id, admin_token=admin_token)
        answer = await self._call("CloseTable", request, timeout)
        return int(answer.seq)

    async def list_tables(
        self,
        *,
        game: str = "",
        status: state_pb2.TableStatus.ValueType = state_pb2.TABLE_STATUS_UNSPECIFIED,
        limit: int = 50,
        timeout: float | None = None,
    ) -> list[state_pb2.TableInfo]:
        """Recent tables, newest first; filter by game and status (e.g. TABLE_STATUS_OPEN)."""
        request = service_pb2.ListTablesRequest(game=game, status=status, limit=limit)
        answer = await self._call("ListTables", request, timeout, retry=True)
        return list(answer.tables)

    async def get_table(
        self, table_id: str, *, timeout: float | None = None
    ) -> state_pb2.TableInfo:
        """One table's public summary."""
        request = service_pb2.GetTableRequest(table_id=table_id)
        info: state_pb2.TableInfo = await self._call("GetTable", request, timeout, retry=True)
        return info

    # -- playing --------------------------------------------------------------------------

    async def get_state(
        self, table_id: str, seat_token: str = "", *, timeout: float | None = None
    ) -> state_pb2.TableState:
        """The table as the seat of `seat_token` sees it; without a token, a spectator's view."""
        request = service_pb2.GetStateRequest(table_id=table_id, seat_token=seat_token)
        state: state_pb2.TableState = await self._call("GetState", request, timeout, retry=True)
        return state

    async def legal_moves(
        self, table_id: str, seat_token: str, *, timeout: float | None = None
    ) -> LegalMoves:
        """The legal moves of the seat to move (NotYourTurnRpcError for another seat)."""
        request = service_pb2.GetLegalMovesRequest(table_id=table_id, seat_token=seat_token)
        answer = await self._call("GetLegalMoves", request, timeout, retry=True)
        return LegalMoves(int(answer.seq), list(answer.moves))

    async def play(
        self,
        table_id: str,
        seat_token: str,
        move: str | tablic.Move,
        last_seq: int,
        *,
        client_move_id: str | None = None,
        with_state: bool = True,
        timeout: float | None = None,
    ) -> service_pb2.PlayMoveResponse:
        """Play `move` decided at sequence number `last_seq`.

        A client move id is generated unless given; on UNAVAILABLE the call is retried with
        the same id, so the move is applied at most once (`duplicate` is set on the answer
        when an earlier attempt had already gone through). The answer has the move's event,
        the scores and, once over, the result; `with_state=False` leaves out the mover's table
        (`answer.state`), which a client following the event feed does not need.
        """
        request = service_pb2.PlayMoveRequest(
            table_id=table_id,
            seat_token=seat_token,
            move=str(move),
            client_move_id=client_move_id or uuid.uuid4().hex,
            last_seq=last_seq,
            with_state=with_state,
        )
        answer: service_pb2.PlayMoveResponse = await self._call(
            "PlayMove", request, timeout, retry=True
        )
        return answer

    async def events(
        self,
        table_id: str,
        *,
        after_seq: int = 0,
        seat_token: str = "",
        timeout: float | None = None,
    ) -> AsyncIterator[events_pb2.Event]:
        """Every event after `after_seq`, then live ones, until the match is over.

        When the stream drops (server restart, network), it is reopened after the last event
        delivered, so no event is lost or repeated. With a seat token each event's state shows
        that seat's hand. `timeout` bounds each stream opening (default: none).

        >>> async def show(client, table_id):          # doctest: +SKIP
        ...     async for event in client.events(table_id):
        ...         print(event.seq, event.move.text)
        """
        last = after_seq
        failures = 0
        policy = self.options.retry
        deadline = _timeout(self.options.deadline("WatchEvents") if timeout is None else timeout)
        while True:
            request = service_pb2.WatchEventsRequest(
                table_id=table_id, after_seq=last, seat_token=seat_token
            )
            call = self._stub.WatchEvents(request, timeout=deadline)
            over = False
            try:
                async for event in call:
                    if event.seq <= last:
                        continue
                    last = event.seq
                    failures = 0
                    over = over or event.match_over
                    yield event
                if over or await self._finished(table_id):
                    return
            except grpc.aio.AioRpcError as error:
                if error.code() not in RESUMABLE or failures + 1 >= policy.stream_attempts:
                    raise from_grpc(error, "WatchEvents") from None
            finally:
                call.cancel()
            failures += 1
            if failures >= policy.stream_attempts:
                raise from_grpc(_Unavailable(), "WatchEvents")
            await asyncio.sleep(policy.delay(failures))

    async def _finished(self, table_id: str) -> bool:
        try:
            info = await self.get_table(table_id)
        except RpcError:
            return False
        return bool(info.status == state_pb2.TABLE_STATUS_FINISHED)

    def watch(self, table_id: str, *, after_seq: int = 0) -> AsyncIterator[events_pb2.Event]:
        """The spectator's event feed (no hands shown), resuming like `events`."""
        return self.events(table_id, after_seq=after_seq)

    async def record(
        self, table_id: str, *, timeout: float | None = None
    ) -> service_pb2.GetRecordResponse:
        """The result, the replayable record text and every event, once the match is over.

        `tablic.MatchRecord.from_text(answer.record).replay()` rebuilds the final state.
        """
        request = service_pb2.GetRecordRequest(table_id=table_id)
        answer: service_pb2.GetRecordResponse = await self._call(
            "GetRecord", request, timeout, retry=True
        )
        return answer

    async def captures(
        self,
        card: str,
        table: Iterable[str],
        rules: rules_pb2.RulesSpec | None = None,
        *,
        timeout: float | None = None,
    ) -> list[list[str]]:
        """Every legal capture of `card` from `table` (stateless), e.g. for a rules helper.

        >>> await client.captures("KC", ["KD", "KH"])     # doctest: +SKIP
        [['KD'], ['KH'], ['KD', 'KH']]
        """
        request = service_pb2.CapturesRequest(card=card, table=list(table), rules=rules)
        answer = await self._call("Captures", request, timeout, retry=True)
        return [list(group.cards) for group in answer.captures]


@dataclass
class AsyncSeat:
    """A seat held at a table: keeps the token and the last sequence number seen.

    `play` sends that sequence number, so a move decided on an old state is refused
    (`StaleStateError`, which carries the current state) rather than misapplied.
    """

    client: AsyncClient
    table_id: str
    seat: int
    token: str = field(repr=False)
    name: str = ""
    last_seq: int = 0
    last_state: state_pb2.TableState | None = field(default=None, repr=False)

    def _seen(self, state: state_pb2.TableState) -> state_pb2.TableState:
        if state.seq >= self.last_seq:
            self.last_seq = int(state.seq)
            self.last_state = state
        return state

    async def state(self, *, timeout: float | None = None) -> state_pb2.TableState:
        """The table as this seat sees it (its own hand included)."""
        return self._seen(await self.client.get_state(self.table_id, self.token, timeout=timeout))

    async def legal_moves(self, *, timeout: float | None = None) -> LegalMoves:
        """This seat's legal moves (it must be its turn)."""
        moves = await self.client.legal_moves(self.table_id, self.token, timeout=timeout)
        self.last_seq = max(self.last_seq, moves.seq)
        return moves

    async def play(
        self,
        move: str | tablic.Move,
        *,
        last_seq: int | None = None,
        client_move_id: str | None = None,
        with_state: bool = True,
        timeout: float | None = None,
    ) -> service_pb2.PlayMoveResponse:
        """Play `move` at the last sequence number seen (or `last_seq`); see `AsyncClient.play`."""
        answer = await self.client.play(
            self.table_id,
            self.token,
            move,
            self.last_seq if last_seq is None else last_seq,
            client_move_id=client_move_id,
            with_state=with_state,
            timeout=timeout,
        )
        if with_state:
            self._seen(answer.state)
        else:
            self.last_seq = max(self.last_seq, int(answer.event.seq))
        return answer

    async def events(self, *, after_seq: int = 0) -> AsyncIterator[events_pb2.Event]:
        """The event feed with this seat's hand in each event (resumes like `events`)."""
        async for event in self.client.events(
            self.table_id, after_seq=after_seq, seat_token=self.token
        ):
            self._seen(event.state)
            yield event

    async def leave(self, *, timeout: float | None = None) -> int:
        """Leave the seat (before the match) or forfeit (during it)."""
        return await self.client.leave(self.table_id, self.token, timeout=timeout)


class _Synthetic(grpc.RpcError):  # type: ignore[misc, unused-ignore]
    """A locally made error (for `from_grpc`) when no call failed with one."""

    status: grpc.StatusCode = grpc.StatusCode.UNKNOWN
    text: str = ""

    def code(self) -> grpc.StatusCode:
        return self.status

    def details(self) -> str:
        return self.text


class _Timeout(_Synthetic):
    status = grpc.StatusCode.DEADLINE_EXCEEDED
    text = "the channel did not become ready in time"


class _Unavailable(_Synthetic):
    status = grpc.StatusCode.UNAVAILABLE
    text = "the event stream kept dropping; retries used up"
