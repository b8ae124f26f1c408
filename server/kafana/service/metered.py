"""Every call counted and timed by method and status code (kafana.metrics), and open streams.

The outermost interceptor, so calls refused by the others (rate limits, auth) are counted too.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana import metrics
from kafana.service.intercept import Behavior, Context, WrappingInterceptor


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

    def __init__(self) -> None:
        super().__init__()
        self._services: dict[str, str] = {}

    def covers(self, method: str) -> bool:
        """Every method of every service."""
        service = method.rsplit("/", 1)[0].lstrip("/")
        self._services[method.rsplit("/", 1)[-1]] = service.rsplit(".", 1)[-1]
        return True

    def wrap(self, behavior: Behavior, name: str, streaming: bool) -> Behavior:
        """`behavior`, counted and timed."""
        service = self._services.get(name, "")
        duration = metrics.RPC_DURATION.labels(service, name)
        calls = metrics.RPC_CALLS

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
                    calls.labels(service, name, _code_name(context, error)).inc()

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
                calls.labels(service, name, _code_name(context, error)).inc()

        return stream


__all__ = ["Metered"]
