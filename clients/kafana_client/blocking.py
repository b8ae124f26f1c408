"""The blocking client: the same calls as `AsyncClient`, for scripts and threads.

It runs one `AsyncClient` on a private event loop in a background thread, so retries,
resume and error mapping are exactly those of the async flavour.

>>> from kafana_client import Client, table_config
>>> with Client.connect("localhost:50051") as client:          # doctest: +SKIP
...     table = client.create_table(table_config(seed=7))
...     alice = client.join(table.table_id, name="alice")
...     bob = client.join(table.table_id, name="bob")
...     alice.play(alice.legal_moves().moves[0].text).event.seq
3
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from kafana.games import tablic
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2

from kafana_client.aio import AsyncClient, AsyncSeat, CreatedTable, LegalMoves
from kafana_client.connection import ConnectOptions, Deadlines, Retry, Tls

T = TypeVar("T")


class _Loop:
    """An event loop running in a daemon thread; `run` waits for a coroutine's result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def iterate(self, stream: AsyncIterator[T]) -> Iterator[T]:
        async def step() -> tuple[bool, T | None]:
            try:
                return True, await anext(stream)
            except StopAsyncIteration:
                return False, None

        try:
            while True:
                more, item = self.run(step())
                if not more:
                    return
                yield item  # type: ignore[misc]
        finally:
            closer = getattr(stream, "aclose", None)
            if closer is not None and self.loop.is_running():
                self.run(closer())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Client:
    """A blocking connection to a Kafana server; the methods mirror `AsyncClient`."""

    def __init__(self, options: ConnectOptions) -> None:
        self._loop = _Loop()

        async def make() -> AsyncClient:
            return AsyncClient(options)

        self.aio = self._loop.run(make())
        self.options = options

    @classmethod
    def connect(
        cls,
        target: str,
        *,
        tls: Tls | None = None,
        deadlines: Deadlines | None = None,
        retry: Retry | None = None,
    ) -> Client:
        """A blocking client for `target` ("host:port"); insecure unless `tls` is given."""
        return cls(
            ConnectOptions(
                target,
                tls=tls,
                deadlines=deadlines if deadlines is not None else Deadlines(),
                retry=retry if retry is not None else Retry(),
            )
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel and stop the background loop."""
        self._loop.run(self.aio.close())
        self._loop.stop()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until connected (DeadlineExceededError after `timeout`)."""
        self._loop.run(self.aio.wait_ready(timeout))

    def create_table(
        self, config: rules_pb2.TableConfig | None = None, *, timeout: float | None = None
    ) -> CreatedTable:
        """Create a table."""
        return self._loop.run(self.aio.create_table(config, timeout=timeout))

    def join(
        self,
        table_id: str,
        *,
        seat: int | None = None,
        name: str = "",
        timeout: float | None = None,
    ) -> Seat:
        """Take a seat; the `Seat` keeps the token."""
        held = self._loop.run(self.aio.join(table_id, seat=seat, name=name, timeout=timeout))
        return Seat(self, held)

    def leave(self, table_id: str, seat_token: str, *, timeout: float | None = None) -> int:
        """Leave (or forfeit); returns the new seq."""
        return self._loop.run(self.aio.leave(table_id, seat_token, timeout=timeout))

    def close_table(self, table_id: str, admin_token: str, *, timeout: float | None = None) -> int:
        """End a table (admin token); returns the new seq."""
        return self._loop.run(self.aio.close_table(table_id, admin_token, timeout=timeout))

    def list_tables(
        self,
        *,
        game: str = "",
        status: state_pb2.TableStatus.ValueType = state_pb2.TABLE_STATUS_UNSPECIFIED,
        limit: int = 50,
        timeout: float | None = None,
    ) -> list[state_pb2.TableInfo]:
        """Recent tables, newest first."""
        return self._loop.run(
            self.aio.list_tables(game=game, status=status, limit=limit, timeout=timeout)
        )

    def get_table(self, table_id: str, *, timeout: float | None = None) -> state_pb2.TableInfo:
        """One table's summary."""
        return self._loop.run(self.aio.get_table(table_id, timeout=timeout))

    def get_state(
        self, table_id: str, seat_token: str = "", *, timeout: float | None = None
    ) -> state_pb2.TableState:
        """A seat's view (with its token) or a spectator's."""
        return self._loop.run(self.aio.get_state(table_id, seat_token, timeout=timeout))

    def legal_moves(
        self, table_id: str, seat_token: str, *, timeout: float | None = None
    ) -> LegalMoves:
        """The legal moves of the seat to move."""
        return self._loop.run(self.aio.legal_moves(table_id, seat_token, timeout=timeout))

    def play(
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
        """Play a move (retried safely on UNAVAILABLE with the same client move id)."""
        return self._loop.run(
            self.aio.play(
                table_id,
                seat_token,
                move,
                last_seq,
                client_move_id=client_move_id,
                with_state=with_state,
                timeout=timeout,
            )
        )

    def events(
        self,
        table_id: str,
        *,
        after_seq: int = 0,
        seat_token: str = "",
        timeout: float | None = None,
    ) -> Iterator[events_pb2.Event]:
        """The event feed, resuming after a dropped stream; ends when the match is over."""
        return self._loop.iterate(
            self.aio.events(table_id, after_seq=after_seq, seat_token=seat_token, timeout=timeout)
        )

    def watch(self, table_id: str, *, after_seq: int = 0) -> Iterator[events_pb2.Event]:
        """The spectator's event feed."""
        return self._loop.iterate(self.aio.watch(table_id, after_seq=after_seq))

    def record(
        self, table_id: str, *, timeout: float | None = None
    ) -> service_pb2.GetRecordResponse:
        """Result, record text and events of a finished match."""
        return self._loop.run(self.aio.record(table_id, timeout=timeout))

    def captures(
        self,
        card: str,
        table: Iterable[str],
        rules: rules_pb2.RulesSpec | None = None,
        *,
        timeout: float | None = None,
    ) -> list[list[str]]:
        """Every legal capture of `card` from `table`."""
        return self._loop.run(self.aio.captures(card, list(table), rules, timeout=timeout))


@dataclass
class Seat:
    """A blocking seat handle: keeps the token and last sequence number (see `AsyncSeat`)."""

    client: Client
    held: AsyncSeat = field(repr=False)

    @property
    def table_id(self) -> str:
        """The table."""
        return self.held.table_id

    @property
    def seat(self) -> int:
        """The seat number."""
        return self.held.seat

    @property
    def token(self) -> str:
        """The secret seat token."""
        return self.held.token

    @property
    def last_seq(self) -> int:
        """The last sequence number this seat has seen."""
        return self.held.last_seq

    def state(self, *, timeout: float | None = None) -> state_pb2.TableState:
        """The table as this seat sees it."""
        return self.client._loop.run(self.held.state(timeout=timeout))

    def legal_moves(self, *, timeout: float | None = None) -> LegalMoves:
        """This seat's legal moves."""
        return self.client._loop.run(self.held.legal_moves(timeout=timeout))

    def play(
        self,
        move: str | tablic.Move,
        *,
        last_seq: int | None = None,
        client_move_id: str | None = None,
        with_state: bool = True,
        timeout: float | None = None,
    ) -> service_pb2.PlayMoveResponse:
        """Play at the last sequence number seen (or `last_seq`); see `AsyncClient.play`."""
        return self.client._loop.run(
            self.held.play(
                move,
                last_seq=last_seq,
                client_move_id=client_move_id,
                with_state=with_state,
                timeout=timeout,
            )
        )

    def events(self, *, after_seq: int = 0) -> Iterator[events_pb2.Event]:
        """The event feed with this seat's view."""
        return self.client._loop.iterate(self.held.events(after_seq=after_seq))

    def leave(self, *, timeout: float | None = None) -> int:
        """Leave or forfeit."""
        return self.client._loop.run(self.held.leave(timeout=timeout))
