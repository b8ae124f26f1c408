"""The asyncio client (grpc.aio): every RPC, seats that keep their token, safe retries, resume.

Example (inside an `async def`)::

    from kafana_client import AsyncClient, table_config

    async with AsyncClient.connect("localhost:50051") as client:
        table = await client.create_table(table_config(seed=7, target=51))
        alice = await client.join(table.table_id, name="alice")
        bob = await client.join(table.table_id, name="bob")
        moves = await alice.legal_moves()          # alice (seat 0) moves first
        answer = await alice.play(moves.moves[0])  # a listed move goes back as is
        async for event in client.watch(table.table_id):
            print(event.seq, event.move.text)

Seat and admin tokens travel in call metadata (`kafana-seat-token`, `kafana-admin-token`):
the `AsyncSeat` a join returns holds its token and sends it with each of its calls.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.games import tablic
from kafana.v1 import events_pb2, rules_pb2, service_pb2, service_pb2_grpc, state_pb2

from kafana_client.connection import ADMIN_TOKEN, SEAT_TOKEN, ConnectOptions, Connects
from kafana_client.convert import game_of, move_message
from kafana_client.errors import (
    DeadlineExceededError,
    RefusedMoveError,
    RpcError,
    UnavailableError,
    from_grpc,
)
from kafana_client.paging import every, first
from kafana_client.routing import ranking

RESUMABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
"""Stream endings that a reopening after the last event seen recovers from (the server
stopping, the network)."""
SILENT_PERIODS = 3
"""A stream silent (no event, no heartbeat) for this many heartbeat periods is reopened."""
Metadata = tuple[tuple[str, str], ...]


def resumable(error: grpc.aio.AioRpcError) -> bool:
    """Whether reopening a stream after the last item seen recovers from `error`: a RESUMABLE
    code, or INTERNAL without a server's ErrorInfo (a connection reset mid-stream, as grpc
    reports it; the server's own INTERNAL is a bug, which a retry does not mend)."""
    if error.code() in RESUMABLE:
        return True
    return error.code() == grpc.StatusCode.INTERNAL and not from_grpc(error).reason


SILENT = object()
"""What `read_within` answers when no message came in time."""


async def read_within(call: Any, seconds: float | None) -> Any:
    """The stream's next message (`grpc.aio.EOF` at its end), or SILENT when none came
    within `seconds` (None: as long as it takes).

    Not `asyncio.wait_for`: on Python 3.11 it may answer a read that ended just as the caller
    was cancelled with the read's own CANCELLED error, swallowing the cancellation (a seat
    loop told to stop would then reopen its feed for ever).
    """
    read = asyncio.ensure_future(call.read())
    read.add_done_callback(_retrieved)
    try:
        done, _ = await asyncio.wait({read}, timeout=seconds)
    finally:
        read.cancel()  # nothing once done; else no read is left behind
    return read.result() if done else SILENT


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Mark a read's error as seen (a read abandoned by a cancellation is not logged)."""
    if not task.cancelled():
        task.exception()


def token_metadata(key: str, token: str) -> Metadata:
    """The call metadata that carries `token` under `key` (nothing for an empty token)."""
    return ((key, token),) if token else ()


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
    current_seat: int | None = None

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
        self._heartbeat_millis: int | None = None
        # With `routes`: a channel to each process; a table's calls go to its first in ranking.
        self._routes: dict[str, grpc.aio.Channel] = {
            target: options.aio_channel(target) for target in options.targets[1:]
        }
        self._routed: dict[str, Any] = {options.target: self._stub} | {
            target: service_pb2_grpc.KafanaServiceStub(routed)
            for target, routed in self._routes.items()
        }

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
        """Close the channels (running calls are cancelled)."""
        for routed in self._routes.values():
            await routed.close()
        await self.channel.close()

    def _stub_for(self, table_id: str, failures: int = 0) -> Any:
        """The stub of the process that serves `table_id`'s calls (the main one without
        routes); after `failures` unreachable tries, the next in the table's ranking."""
        if not self._routes or not table_id:
            return self._stub
        order = ranking(table_id, self.options.targets)
        return self._routed[order[failures % len(order)]]

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
        metadata: Metadata = (),
    ) -> Any:
        """Call `method` of the Kafana service (or of `stub`, another service on the channel),
        with `metadata` (a seat's or the admin's token)."""
        deadline = _timeout(self.options.deadline(method) if timeout is None else timeout)
        policy = self.options.retry
        attempt = unreachable = 0
        table_id = str(getattr(request, "table_id", "")) if stub is None else ""
        while True:
            try:
                call = getattr(stub or self._stub_for(table_id, unreachable), method)
                if metadata:
                    return await call(request, timeout=deadline, metadata=metadata)
                return await call(request, timeout=deadline)
            except grpc.aio.AioRpcError as error:
                attempt += 1
                refused = from_grpc(error, method)
                unreachable += isinstance(refused, UnavailableError)
                if retry and refused.retryable and attempt < policy.attempts:
                    # the server's RetryInfo, when it sent one (a rate limit), else backoff
                    await asyncio.sleep(max(policy.delay(attempt), refused.retry_after or 0.0))
                    continue
                raise refused from None

    async def _seat_call(
        self, method: str, request: Any, seat_token: str, timeout: float | None
    ) -> Any:
        """A seat's call: retried (reads, and moves, which carry their client move id), with
        the seat's token ("": none, a spectator's) in the metadata."""
        metadata = token_metadata(SEAT_TOKEN, seat_token)
        return await self._call(method, request, timeout, retry=True, metadata=metadata)

    # -- tables ---------------------------------------------------------------------------

    async def server_info(self, *, timeout: float | None = None) -> service_pb2.ServerInfo:
        """What the server offers: its version, games, presets, switches and limits."""
        info: service_pb2.ServerInfo = await self._call(
            "GetServerInfo", service_pb2.GetServerInfoRequest(), timeout, retry=True
        )
        return info

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
        request = service_pb2.LeaveTableRequest(table_id=table_id)
        answer = await self._call(
            "LeaveTable", request, timeout, metadata=token_metadata(SEAT_TOKEN, seat_token)
        )
        return int(answer.seq)

    async def close_table(
        self, table_id: str, admin_token: str, *, timeout: float | None = None
    ) -> int:
        """End a table now (admin token); returns the new seq."""
        request = service_pb2.CloseTableRequest(table_id=table_id)
        answer = await self._call(
            "CloseTable", request, timeout, metadata=token_metadata(ADMIN_TOKEN, admin_token)
        )
        return int(answer.seq)

    async def list_tables(
        self,
        *,
        game: str = "",
        status: state_pb2.TableStatus.ValueType = state_pb2.TABLE_STATUS_UNSPECIFIED,
        limit: int = 50,
        timeout: float | None = None,
    ) -> list[state_pb2.TableInfo]:
        """The `limit` most recent tables, newest first (as many pages as that takes); filter
        by game ("tablic", "tac"; "": any) and status (e.g. TABLE_STATUS_OPEN)."""
        pages = self.tables(game=game, status=status, page_size=min(limit, 500), timeout=timeout)
        return await first(pages, limit)

    async def tables(
        self,
        *,
        game: str = "",
        status: state_pb2.TableStatus.ValueType = state_pb2.TABLE_STATUS_UNSPECIFIED,
        page_size: int = 0,
        timeout: float | None = None,
    ) -> AsyncIterator[state_pb2.TableInfo]:
        """Every table, newest first, a page at a time (`page_size` 0: the server's default;
        `timeout` bounds each page's call); filters as `list_tables`."""
        wanted = game_of(game) if game else rules_pb2.GAME_UNSPECIFIED

        async def page(token: str) -> tuple[Iterable[state_pb2.TableInfo], str]:
            request = service_pb2.ListTablesRequest(
                game=wanted, status=status, page_size=page_size, page_token=token
            )
            answer = await self._call("ListTables", request, timeout, retry=True)
            return answer.tables, answer.next_page_token

        async for info in every(page):
            yield info

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
        request = service_pb2.GetStateRequest(table_id=table_id)
        state: state_pb2.TableState = await self._seat_call(
            "GetState", request, seat_token, timeout
        )
        return state

    async def legal_moves(
        self, table_id: str, seat_token: str, *, timeout: float | None = None
    ) -> LegalMoves:
        """The seat's legal moves now, each as text and structured (empty when another seat is
        to move; NotYourTurnRpcError from a server that refuses instead)."""
        request = service_pb2.GetLegalMovesRequest(table_id=table_id)
        answer = await self._seat_call("GetLegalMoves", request, seat_token, timeout)
        to_move = answer.current_seat if answer.HasField("current_seat") else None
        return LegalMoves(int(answer.seq), list(answer.moves), current_seat=to_move)

    async def play(
        self,
        table_id: str,
        seat_token: str,
        move: str | tablic.Move | state_pb2.Move,
        last_seq: int,
        *,
        client_move_id: str | None = None,
        with_state: bool = True,
        timeout: float | None = None,
    ) -> service_pb2.PlayMoveResponse:
        """Play `move` decided at sequence number `last_seq`: its text, a rules-core move, or
        a wire `Move` (a listed legal move is sent back as is: text and structured).

        A client move id is generated unless given; on UNAVAILABLE the call is retried with
        the same id, so the move is applied at most once (`duplicate` is set on the answer
        when an earlier attempt had already gone through). The answer has the move's event,
        the scores and, once over, the result; `with_state=False` leaves out the mover's table
        (`answer.state`), which a client following the event feed does not need.
        """
        request = service_pb2.PlayMoveRequest(
            table_id=table_id,
            move=move_message(move),
            client_move_id=client_move_id or uuid.uuid4().hex,
            last_seq=last_seq,
            with_state=with_state,
        )
        try:
            answer: service_pb2.PlayMoveResponse = await self._seat_call(
                "PlayMove", request, seat_token, timeout
            )
        except RefusedMoveError as error:
            error.move = request.move.text
            raise
        return answer

    async def events(
        self,
        table_id: str,
        *,
        after_seq: int = 0,
        seat_token: str = "",
        with_state: bool = False,
        timeout: float | None = None,
    ) -> AsyncIterator[events_pb2.Event]:
        """Every event after `after_seq`, then live ones, until one ends the match.

        Heartbeats are not passed on, but they show the stream is alive: a stream silent for
        `SILENT_PERIODS` heartbeat periods (the server's `limits.heartbeat_millis`) is
        reopened, as is one that ends with UNAVAILABLE (the server stopping) or a network
        error, after the last event delivered, so no event is lost or repeated. With a seat
        token deals show that seat's cards; `with_state` adds the whole table, as the watcher
        sees it, to each event (`event.state`). `timeout` bounds each stream opening
        (default: none).

        >>> async def show(client, table_id):          # doctest: +SKIP
        ...     async for event in client.events(table_id):
        ...         print(event.seq, event.move.text)
        """
        last = after_seq
        deadline = _timeout(self.options.deadline("WatchEvents") if timeout is None else timeout)
        metadata = token_metadata(SEAT_TOKEN, seat_token)

        def open_call(failures: int) -> Any:
            request = service_pb2.WatchEventsRequest(
                table_id=table_id, after_seq=last, with_state=with_state
            )
            stub = self._stub_for(table_id, failures)
            if metadata:
                return stub.WatchEvents(request, timeout=deadline, metadata=metadata)
            return stub.WatchEvents(request, timeout=deadline)

        # a feed ends OK only once the match is over
        items = self._reopened("WatchEvents", open_call, reopen_at_end=False)
        async with aclosing(items):
            async for item in items:
                if item.WhichOneof("item") != "event" or item.event.seq <= last:
                    continue
                last = item.event.seq
                yield item.event
                if item.event.match_over:
                    return

    async def _reopened(
        self,
        method: str,
        open_call: Callable[[int], Any],
        *,
        reopen_at_end: bool,
        paced: bool = True,
    ) -> AsyncGenerator[Any, None]:
        """Every message (heartbeats too) of the server stream `method` that `open_call(failures)`
        opens, reopened (the caller resumes after what it delivered) on a `resumable` error, at
        its end when `reopen_at_end`, and, when `paced` (it beats at the server's
        `heartbeat_millis`, as the table service's streams do), when silent for
        `SILENT_PERIODS` heartbeats; the retry policy's `stream_attempts` openings in a row
        that deliver nothing, or its `stream_seconds` without a message, end it with the
        error. The one reopening loop of the SDK (the competitions' streams use it too)."""
        failures = 0
        policy = self.options.retry
        clock = asyncio.get_running_loop().time
        heard = clock()
        while True:
            silence = await self._silence() if paced else None
            call = open_call(failures)
            try:
                while True:
                    item = await read_within(call, silence)
                    if item is SILENT:
                        break  # silent too long: the connection is gone without a word
                    if item is grpc.aio.EOF:
                        if reopen_at_end:
                            heard = clock()  # ended cleanly: the server is there
                            break
                        return
                    failures, heard = 0, clock()  # a message or a heartbeat: the stream works
                    yield item
            except grpc.aio.AioRpcError as error:
                if not resumable(error) or failures + 1 >= policy.stream_attempts:
                    raise from_grpc(error, method) from None
            finally:
                call.cancel()
            failures += 1
            if failures >= policy.stream_attempts or clock() - heard >= policy.stream_seconds:
                raise from_grpc(_Unavailable(), method)
            await asyncio.sleep(policy.delay(failures))

    async def _silence(self) -> float | None:
        """Seconds without a message after which a stream counts as dead (None: no check, when
        the server sends no heartbeats or cannot say); the server's answer is kept."""
        if self._heartbeat_millis is None:
            try:
                info = await self.server_info(timeout=min(5.0, self.options.deadline("") or 5.0))
            except (UnavailableError, DeadlineExceededError):
                return None  # not reached now: asked again at the next opening
            except RpcError:
                self._heartbeat_millis = 0  # a server that will not say: no silence check
                return None
            self._heartbeat_millis = int(info.limits.heartbeat_millis)
        if not self._heartbeat_millis:
            return None
        return SILENT_PERIODS * self._heartbeat_millis / 1000

    def watch(
        self, table_id: str, *, after_seq: int = 0, with_state: bool = False
    ) -> AsyncIterator[events_pb2.Event]:
        """The spectator's event feed (no hands shown), resuming like `events`."""
        return self.events(table_id, after_seq=after_seq, with_state=with_state)

    async def watch_account(
        self, *, after: str = "", timeout: float | None = None
    ) -> AsyncIterator[service_pb2.AccountNotice]:
        """The API key's account notices, for all its tables on one stream: SEATED, YOUR_TURN
        (play at `notice.table_id` with `last_seq=notice.seq`), GAME_OVER and league
        TICKETs, after the notice id `after` ("": from now on), then live ones, for ever.

        Reopened like `events` (silent for `SILENT_PERIODS` heartbeats, UNAVAILABLE, a
        network error) after the last notice delivered, so none is lost or repeated while
        the server keeps it (its newest 256). `timeout` bounds each opening (default: none).

        >>> async def bot(client):                       # doctest: +SKIP
        ...     async for notice in client.watch_account():
        ...         if notice.kind == service_pb2.NOTICE_KIND_YOUR_TURN:
        ...             print(notice.table_id, notice.seq)
        """
        last = after
        deadline = _timeout(self.options.deadline("WatchAccount") if timeout is None else timeout)

        def open_call(failures: int) -> Any:
            request = service_pb2.WatchAccountRequest(after=last)
            return self._stub.WatchAccount(request, timeout=deadline)

        # the stream never ends on its own: at its end it is opened again
        items = self._reopened("WatchAccount", open_call, reopen_at_end=True)
        async with aclosing(items):
            async for item in items:
                if item.WhichOneof("item") != "notice":
                    continue
                last = item.notice.id
                yield item.notice

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

    async def analyze(
        self,
        table_id: str,
        seat_token: str = "",
        *,
        budget_ms: int = 0,
        at_seq: int | None = None,
        seat: int | None = None,
        timeout: float | None = None,
    ) -> service_pb2.AnalyzeResponse:
        """The engine's advice (Tablić): every legal move with its value and the engine's choice.

        Live for the seat of `seat_token` when it is to move, on a table created with
        `hints`; with `at_seq` and `seat`, that seat's position in a finished match (a game
        review: `answer.played` is the move it made, each move's `cost` what it gave up).
        `budget_ms`: CPU time for the engine (0: the server's default; it caps the rest).
        """
        request = service_pb2.AnalyzeRequest(table_id=table_id, budget_millis=budget_ms)
        if at_seq is not None:
            request.at_seq = at_seq
        if seat is not None:
            request.seat = seat
        answer: service_pb2.AnalyzeResponse = await self._seat_call(
            "Analyze", request, seat_token, timeout
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

    async def analyze(
        self, *, budget_ms: int = 0, timeout: float | None = None
    ) -> service_pb2.AnalyzeResponse:
        """The engine's advice for this seat now (a table created with `hints`)."""
        return await self.client.analyze(
            self.table_id, self.token, budget_ms=budget_ms, timeout=timeout
        )

    async def play(
        self,
        move: str | tablic.Move | state_pb2.Move,
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

    async def events(
        self, *, after_seq: int = 0, with_state: bool = True
    ) -> AsyncIterator[events_pb2.Event]:
        """The event feed as this seat sees it (resumes like `AsyncClient.events`); by default
        each event carries the table as the seat sees it (`event.state`), kept as
        `last_state` (`with_state=False`: the slim events only)."""
        async for event in self.client.events(
            self.table_id, after_seq=after_seq, seat_token=self.token, with_state=with_state
        ):
            if event.HasField("state"):
                self._seen(event.state)
            else:
                self.last_seq = max(self.last_seq, int(event.seq))
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
    text = "the stream kept dropping or ending; retries used up"
