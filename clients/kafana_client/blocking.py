"""The blocking client: the same calls as `AsyncClient`, for scripts and threads.

It runs one `AsyncClient` on a private event loop in a background thread, so retries,
resume and error mapping are exactly those of the async flavour.

>>> from kafana_client import Client, table_config
>>> with Client.connect("localhost:50051") as client:          # doctest: +SKIP
...     table = client.create_table(table_config(seed=7))
...     alice = client.join(table.table_id, name="alice")
...     bob = client.join(table.table_id, name="bob")
...     alice.play(alice.legal_moves().moves[0]).event.seq
3
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.connection import ConnectOptions, Connects

T = TypeVar("T")
U = TypeVar("U")
P = ParamSpec("P")


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


class _Blocking:
    """A blocking face of an async object (`_async`), whose calls run on `_loop`."""

    _async: Any
    _loop: _Loop


def mirror(
    method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[_Blocking, P], T]:
    """The blocking twin of an async method: same arguments, same answer, same docstring."""

    def call(self: _Blocking, /, *args: P.args, **kwargs: P.kwargs) -> T:
        result: T = self._loop.run(method(self._async, *args, **kwargs))
        return result

    return _named(call, method)


def stream(
    method: Callable[Concatenate[Any, P], AsyncIterator[T]],
) -> Callable[Concatenate[_Blocking, P], Iterator[T]]:
    """The blocking twin of an async stream: an iterator over the same items."""

    def call(self: _Blocking, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        return self._loop.iterate(method(self._async, *args, **kwargs))

    return _named(call, method)


def mirror_into(
    method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]],
    then: Callable[[Any, T], U],
) -> Callable[Concatenate[_Blocking, P], U]:
    """`mirror`, its answer handed to `then(self, answer)` (an async handle made blocking)."""

    def call(self: _Blocking, /, *args: P.args, **kwargs: P.kwargs) -> U:
        return then(self, self._loop.run(method(self._async, *args, **kwargs)))

    return _named(call, method)


class Mirrored(Generic[T]):
    """A read-only attribute that reads the same attribute of the async object (`_async`),
    as it is now: `table_id = Mirrored[str]("The table.")`."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> Self: ...
    @overload
    def __get__(self, obj: _Blocking, owner: type) -> T: ...
    def __get__(self, obj: _Blocking | None, owner: type) -> Self | T:
        if obj is None:
            return self
        value: T = getattr(obj._async, self.name)
        return value


F = TypeVar("F", bound=Callable[..., Any])


def _named(twin: F, method: Callable[..., Any]) -> F:
    twin.__name__ = method.__name__
    twin.__qualname__ = method.__qualname__
    twin.__doc__ = method.__doc__
    return twin


class Client(_Blocking, Connects):
    """A blocking connection to a Kafana server; the methods mirror `AsyncClient`."""

    def __init__(self, options: ConnectOptions) -> None:
        self._loop = _Loop()

        async def make() -> AsyncClient:
            return AsyncClient(options)

        self.aio = self._loop.run(make())
        self._async = self.aio
        self.options = options

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

    wait_ready = mirror(AsyncClient.wait_ready)
    create_table = mirror(AsyncClient.create_table)
    leave = mirror(AsyncClient.leave)
    close_table = mirror(AsyncClient.close_table)
    server_info = mirror(AsyncClient.server_info)
    list_tables = mirror(AsyncClient.list_tables)
    tables = stream(AsyncClient.tables)
    get_table = mirror(AsyncClient.get_table)
    get_state = mirror(AsyncClient.get_state)
    legal_moves = mirror(AsyncClient.legal_moves)
    play = mirror(AsyncClient.play)
    record = mirror(AsyncClient.record)
    captures = mirror(AsyncClient.captures)
    analyze = mirror(AsyncClient.analyze)
    events = stream(AsyncClient.events)
    watch = stream(AsyncClient.watch)
    watch_account = stream(AsyncClient.watch_account)

    join = mirror_into(AsyncClient.join, lambda client, held: Seat(client, held))
    """Take a seat; the blocking `Seat` keeps the token."""


@dataclass
class Seat(_Blocking):
    """A blocking seat handle: keeps the token and last sequence number (see `AsyncSeat`)."""

    client: Client
    held: AsyncSeat = field(repr=False)

    def __post_init__(self) -> None:
        self._async = self.held
        self._loop = self.client._loop

    table_id = Mirrored[str]("The table.")
    seat = Mirrored[int]("The seat number.")
    token = Mirrored[str]("The secret seat token.")
    last_seq = Mirrored[int]("The last sequence number this seat has seen.")

    state = mirror(AsyncSeat.state)
    legal_moves = mirror(AsyncSeat.legal_moves)
    analyze = mirror(AsyncSeat.analyze)
    play = mirror(AsyncSeat.play)
    leave = mirror(AsyncSeat.leave)

    events = stream(AsyncSeat.events)
