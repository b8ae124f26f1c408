"""The grpc.aio server: the Kafana service, health checking, reflection, the clock.

Services of higher layers are plugged in (`Plugin`): they are registered on the same server
and started on its tables and feed, so they act through the domain layer in this process.
`kafana.competitions.server.create_server` is the full server with Competitions.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import grpc  # type: ignore[import-untyped, unused-ignore]
from grpc_health.v1 import (  # type: ignore[import-untyped, unused-ignore]
    health,
    health_pb2,
    health_pb2_grpc,
)
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped, unused-ignore]

from kafana.service.accounts import SERVICE_NAME as ACCOUNTS_SERVICE
from kafana.service.accounts import AccountsServicer
from kafana.service.auth import Authenticator, AuthPolicy
from kafana.service.clock import ClockSweeper
from kafana.service.feed import Feed
from kafana.service.guard import Guard
from kafana.service.ratelimit import RateLimit
from kafana.service.servicer import KafanaServicer
from kafana.service.tables import Tables
from kafana.store.accounts import AccountStore
from kafana.store.accounts_redis import accounts_for
from kafana.store.base import TableStore
from kafana.v1 import accounts_pb2_grpc, service_pb2, service_pb2_grpc

SERVICE_NAME = service_pb2.DESCRIPTOR.services_by_name["Kafana"].full_name


class Plugin(Protocol):
    """A service served beside Kafana's by the same server, on its tables (e.g. Competitions)."""

    service_name: str  # its full gRPC name, listed by reflection

    def add_to(self, server: Any) -> None:
        """Register the service on the grpc.aio server."""

    def start(self, tables: Tables, feed: Feed) -> None:
        """Start background work on the server's event loop (after the server started)."""

    async def stop(self) -> None:
        """Stop it (before the clock and the feed stop)."""


class KafanaServer:
    """A bound, not yet started server; `port` is the real port (useful with port 0)."""

    def __init__(
        self,
        server: grpc.aio.Server,
        servicer: KafanaServicer,
        tables: Tables,
        clock: ClockSweeper,
        plugins: Sequence[Plugin] = (),
    ) -> None:
        self.server = server
        self.servicer = servicer
        self.port = 0
        self.tables = tables
        self.clock = clock
        self.health = health.aio.HealthServicer()
        self.plugins = list(plugins)

    async def start(self) -> None:
        """Serve, and mark the service healthy."""
        await self.server.start()
        self.clock.start()
        for plugin in self.plugins:
            plugin.start(self.tables, self.servicer.feed)
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float | None = 5.0) -> None:
        """Refuse new calls, let running ones finish for `grace` seconds, stop the clock."""
        await self.health.enter_graceful_shutdown()
        self.servicer.stopping.set()
        for plugin in self.plugins:
            await plugin.stop()
        await self.clock.stop()
        await self.servicer.feed.close()
        await self.server.stop(grace)

    async def wait(self) -> None:
        """Until the server stops."""
        await self.server.wait_for_termination()


def create_server(
    store: TableStore,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    clock_tick: float = 0.1,
    idle_ttl_ms: int | None = None,
    finished_ttl_ms: int | None = None,
    cache_size: int = 1024,
    credentials: grpc.ServerCredentials | None = None,
    rate_limit: RateLimit | None = None,
    plugins: Sequence[Plugin] = (),
    auth: AuthPolicy | None = None,
    accounts: AccountStore | None = None,
) -> KafanaServer:
    """A server over `store`, bound to host:port (port 0: any free one).

    Args:
        credentials: TLS (see `kafana.service.tls.server_credentials`); None serves plaintext.
        rate_limit: calls per second per client; None is the generous default, and
            `RateLimit(rate=0)` turns limits off.
        plugins: services of higher layers served beside Kafana's (see `Plugin`).
        auth: who may call what (`kafana.service.auth`); None is `open` mode.
        accounts: the account store; None: the one that goes with `store` (its Redis).
    """
    tables = Tables(store, cache_size=cache_size)
    if idle_ttl_ms is not None:
        tables.idle_ttl_ms = idle_ttl_ms
    if finished_ttl_ms is not None:
        tables.finished_ttl_ms = finished_ttl_ms
    authenticator = Authenticator(accounts or accounts_for(store), auth)
    # The authenticator goes first: the limits after it charge `caller_of(context)`.
    server = grpc.aio.server(interceptors=[authenticator, Guard(rate_limit or RateLimit())])
    servicer = KafanaServicer(tables)
    service_pb2_grpc.add_KafanaServicer_to_server(servicer, server)
    accounts_pb2_grpc.add_AccountsServicer_to_server(AccountsServicer(authenticator), server)
    clock = ClockSweeper(tables, tick=clock_tick)
    kafana = KafanaServer(server, servicer, tables, clock, plugins)
    health_pb2_grpc.add_HealthServicer_to_server(kafana.health, server)
    for plugin in kafana.plugins:
        plugin.add_to(server)
    names = [SERVICE_NAME, ACCOUNTS_SERVICE, *(p.service_name for p in kafana.plugins)]
    reflection.enable_server_reflection(
        (*names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    address = f"{host}:{port}"
    if credentials is None:
        kafana.port = server.add_insecure_port(address)
    else:
        kafana.port = server.add_secure_port(address, credentials)
    if kafana.port == 0:
        raise OSError(f"could not bind {host}:{port}")
    return kafana


STOP_MARGIN_S = 10.0
"""How much longer than its grace a shutdown may take before the process stops anyway."""


async def serve_until_signal(
    kafana: KafanaServer,
    announce: Callable[[str], None],
    grace: float = 5.0,
    stop_limit: float | None = None,
) -> bool:
    """Run until SIGTERM or SIGINT, then shut down gracefully; False if the stop hung.

    The shutdown is bounded (`stop_limit`, by default the grace plus `STOP_MARGIN_S`): a
    stop that hangs is announced, cancelled and not waited for (a task that swallows its
    cancellation could hang again), so the caller can end the process.
    """
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    signals = (signal.SIGTERM, signal.SIGINT)
    for sig in signals:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopping.set)
    try:
        await kafana.start()
        announce(f"kafana: serving on port {kafana.port}")
        waiter = asyncio.create_task(kafana.wait())
        stopper = asyncio.create_task(stopping.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        announce("kafana: shutting down")
        limit = grace + STOP_MARGIN_S if stop_limit is None else stop_limit
        stop = asyncio.create_task(kafana.stop(grace))
        done, _ = await asyncio.wait({stop}, timeout=limit)
        # Only now: cancelling gRPC's wait for termination first cancels the shutdown's own
        # future, and the stop fails with CancelledError.
        for task in (waiter, stopper):
            task.cancel()
        if stop in done:
            stop.result()  # a failed stop raises here
            return True
        announce(f"kafana: the shutdown took over {limit:g} s; stopping anyway")
        stop.cancel()
        return False
    finally:
        for sig in signals:
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(sig)
