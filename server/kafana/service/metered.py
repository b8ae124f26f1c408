"""Every call counted and timed by method and status code (kafana.metrics), and open streams.

The outermost interceptor, so calls refused by the others (rate limits, auth) are counted too.
Given the server's `Tables`, it also has the registry read, at scrape time, the tables held by
game and status and every bounded cache against its bound (`kafana.metrics.Watched`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana import metrics
from kafana.games import shuffle
from kafana.games.tablic import capture
from kafana.service import records, session
from kafana.service.games import tablic as tablic_game
from kafana.service.intercept import Behavior, Context, WrappingInterceptor
from kafana.service.tables import Tables
from kafana.store.base import FINISHED

LRU_CACHES = {
    "move_records": records.pack_move,
    "tablic_moves": tablic_game._played,
    "tablic_parses": tablic_game._parsed,
    "capture_rules": tablic_game._capture_rules,
    "rules_json": session._rules_json,
    "shuffle_bounds": shuffle._bounds,
}
"""The process's bounded `functools.lru_cache`s, by the name the metrics give them."""


def process_caches(_owner: object) -> list[tuple[str, int, int]]:
    """(name, entries, bound) of the process's module-level caches."""
    sizes = []
    for name, cached in LRU_CACHES.items():
        info = cached.cache_info()
        sizes.append((name, info.currsize, info.maxsize or 0))
    sizes.append(("capture_engines", len(capture._ENGINES), capture.ENGINE_ENTRIES))
    return sizes


def table_caches(tables: Tables) -> list[tuple[str, int, int]]:
    """The session cache of `tables`, in entries and in estimated bytes."""
    cache = tables._cache
    return [
        ("sessions", len(cache), cache.entries),
        ("session_bytes", cache.bytes, cache.max_bytes),
    ]


def table_census(tables: Tables) -> list[tuple[str, str]]:
    """(game, status) of every unfinished table `tables` holds."""
    held = list(tables._cache._items.values())  # a copy: the event loop may change it
    return [(s.game.name, s.status) for s, _bytes in held if s.status != FINISHED]


def watch(tables: Tables) -> None:
    """Have the registry read `tables`' sessions and caches (and the process's) when scraped."""
    metrics.WATCHED.sizes(process_caches, process_caches)  # a function lives for ever
    metrics.WATCHED.sizes(tables, table_caches)
    metrics.WATCHED.census(tables, table_census)


def _code_name(context: Context, error: BaseException | None) -> str:
    """The call's status code name: what it aborted with, else OK (or UNKNOWN on an error)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(error, grpc.RpcError):
        found = error.code()
        return str(found.name) if isinstance(found, grpc.StatusCode) else "UNKNOWN"
    if error is None or isinstance(error, GeneratorExit):
        return "OK"
    if isinstance(error, BaseException) and type(error).__name__ == "CancelledError":
        return "CANCELLED"
    return "UNKNOWN"


class Metered(WrappingInterceptor):
    """Counts calls by (service, method, code), times them, and gauges open streams."""

    def __init__(self, tables: Tables | None = None) -> None:
        super().__init__()
        self._services: dict[str, str] = {}
        if tables is not None:
            watch(tables)

    def covers(self, method: str) -> bool:
        """Every method of every service."""
        service = method.rsplit("/", 1)[0].lstrip("/")
        self._services[method.rsplit("/", 1)[-1]] = service.rsplit(".", 1)[-1]
        return True

    def wrap(self, behavior: Behavior, name: str, streaming: bool) -> Behavior:
        """`behavior`, counted and timed."""
        service = self._services.get(name, "")
        duration = metrics.RPC_DURATION.labels(service, name)
        by_code: dict[str, Any] = {}  # the counter of each code (`labels()` costs a lock)

        def counted(code: str) -> None:
            counter = by_code.get(code)
            if counter is None:
                counter = by_code[code] = metrics.RPC_CALLS.labels(service, name, code)
            counter.inc()

        if not streaming:

            async def unary(request: Any, context: Context) -> Any:
                start = time.perf_counter()
                error: BaseException | None = None
                try:
                    return await behavior(request, context)
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    duration.observe(time.perf_counter() - start)
                    counted(_code_name(context, error))

            return unary

        open_now = metrics.STREAMS_OPEN.labels(name)

        async def stream(request: Any, context: Context) -> None:
            start = time.perf_counter()
            error: BaseException | None = None
            open_now.inc()
            try:
                result = behavior(request, context)
                if hasattr(result, "__aiter__"):  # an async generator: its items written
                    items: AsyncIterator[Any] = result
                    async for item in items:
                        await context.write(item)
                else:  # a handler that writes with context.write itself
                    await result
            except BaseException as exc:
                error = exc
                raise
            finally:
                open_now.dec()
                duration.observe(time.perf_counter() - start)
                counted(_code_name(context, error))

        return stream


__all__ = ["Metered"]
