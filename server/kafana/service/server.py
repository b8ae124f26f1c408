"""The grpc.aio server: the Kafana service, health checking, reflection, the clock.

Services of higher layers are plugged in (`Plugin`): they are registered on the same server
and started on its tables and feed, so they act through the domain layer in this process.
`kafana.competitions.server.create_server` is the full server with Competitions.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
from grpc_health.v1 import (  # type: ignore[import-untyped, unused-ignore]
    health,
    health_pb2,
    health_pb2_grpc,
)

from kafana.logs import Repeated
from kafana.service.accounts import SERVICE_NAME as ACCOUNTS_SERVICE
from kafana.service.accounts import AccountsServiceServicer
from kafana.service.auth import Authenticator
from kafana.service.clock import ClockSweeper
from kafana.service.feed import Feed
from kafana.service.guard import Guard, message_options
from kafana.service.intercept import Wrapped
from kafana.service.metered import Metered
from kafana.service.reflection import SERVICE_NAMES as REFLECTION_SERVICES
from kafana.service.reflection import enable_reflection
from kafana.service.resets import ResetWatch, newest_server, reset_options
from kafana.service.servicer import KafanaServiceServicer
from kafana.service.settings import Settings
from kafana.service.tables import Tables
from kafana.service.tls import server_credentials
from kafana.service.web import HttpServer, HttpTls, Registry, http_server
from kafana.service.web.listener import budget
from kafana.store.accounts import AccountStore
from kafana.store.accounts_redis import accounts_for
from kafana.store.base import TableStore
from kafana.store.errors import StoreUnavailable
from kafana.tasks import cancel_and_wait
from kafana.v1 import accounts_pb2_grpc, service_pb2, service_pb2_grpc

SERVICE_NAME = service_pb2.DESCRIPTOR.services_by_name["KafanaService"].full_name
GRPC_CONNECTIONS = 10_000
"""gRPC connections open at once (at most half the files the process may open)."""
IDLE_CONNECTION_MS = 10 * 60 * 1000
"""A gRPC connection with no call or stream for this long gets a GOAWAY (clients reconnect
when they call again), so connections held open doing nothing do not keep their places."""
PROBE_S = 1.0
"""How often the health probe asks the store whether it answers."""
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
log = logging.getLogger(__name__)


class AddressError(OSError):
    """The server cannot listen where it was asked: `invalid` for a bad host or port value,
    else the address is taken or not this machine's."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


def check_address(host: str, port: int, *, reuse_port: bool = False) -> None:
    """Raise AddressError unless `host:port` can be listened on now (no port sharing unless
    `reuse_port`): a clear one-line reason before gRPC binds (and logs lines of its own)."""
    if not 0 <= port <= 65535:
        raise AddressError(f"--port {port} is not a port (0-65535)", invalid=True)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        raise AddressError(
            f"--host {host!r} is not a known address ({error})", invalid=True
        ) from None
    errors: list[OSError] = []
    for family, kind, proto, _name, where in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does
            if reuse_port and hasattr(socket, "SO_REUSEPORT"):
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            try:
                probe.bind(where)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    raise AddressError(
                        f"port {port} on {host} is taken by another process "
                        "(--reuse-port shares it on purpose)"
                    ) from None
                errors.append(error)
    if errors and len(errors) == len(found):
        raise AddressError(f"cannot listen on {host}:{port}: {errors[0].strerror}")


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
        servicer: KafanaServiceServicer,
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
        self.probe_s = PROBE_S
        self._probe: asyncio.Task[None] | None = None
        self.http: HttpServer | None = None  # Connect and gRPC-Web (`http_port`)
        self.resets = ResetWatch()  # closes connections that reset streams too fast

    async def start(self) -> None:
        """Serve, mark the service healthy, and keep health in step with the store."""
        await self.server.start()
        self.resets.start(self.port)
        if self.http is not None:
            await self.http.start()
        self.clock.start()
        self.servicer.bots.start()
        for plugin in self.plugins:
            plugin.start(self.tables, self.servicer.feed)
        await self._set_health(SERVING)
        self._probe = asyncio.create_task(self._watch_store(), name="kafana-health")

    async def _set_health(self, status: int) -> None:
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)

    async def _watch_store(self) -> None:
        """NOT_SERVING while the store does not answer (within its timeout), SERVING again
        once it does: a balancer sends calls elsewhere meanwhile."""
        errors = Repeated(log, "the table store health probe", quiet=(StoreUnavailable,))
        serving = True
        while True:
            try:
                await self.tables.store.ping()
            except Exception as error:  # unreachable, mute or refusing: not serving
                errors.failed(error)
                if serving:
                    serving = False
                    log.warning("the table store is unreachable: health says NOT_SERVING")
                    await self._set_health(NOT_SERVING)
            else:
                errors.succeeded()
                if not serving:
                    serving = True
                    log.warning("the table store answers again: health says SERVING")
                    await self._set_health(SERVING)
            await asyncio.sleep(self.probe_s)

    async def stop(self, grace: float | None = 5.0) -> None:
        """Refuse new calls, let running ones finish for `grace` seconds, stop the clock."""
        await cancel_and_wait([self._probe])
        await self.resets.stop()
        await self.health.enter_graceful_shutdown()
        self.servicer.stopping.set()
        for plugin in self.plugins:
            await plugin.stop()
        await self.servicer.bots.stop()
        await self.clock.stop()
        await self.servicer.feed.close()
        await self.servicer.notices.close()
        if self.http is None:
            await self.server.stop(grace)
        else:
            await asyncio.gather(self.server.stop(grace), self.http.stop(grace))

    async def wait(self) -> None:
        """Until the server stops."""
        await self.server.wait_for_termination()


def create_server(
    store: TableStore,
    settings: Settings | None = None,
    *,
    plugins: Sequence[Plugin] = (),
    accounts: AccountStore | None = None,
) -> KafanaServer:
    """A server over `store`, bound to `settings.host:port` (port 0: any free one).

    `settings` (one `Settings`, None: the defaults) is everything the server is told, passed
    down whole: `Tables`, the servicer, the interceptors and the HTTP side read it. A port in
    use is refused (AddressError) unless `reuse_port`, as is an invalid host or port.

    Args:
        plugins: services of higher layers served beside Kafana's (see `Plugin`).
        accounts: the account store; None: the one that goes with `store` (its Redis).
    """
    settings = settings or Settings()
    host, port = settings.host, settings.port
    check_address(host, port, reuse_port=settings.reuse_port)
    tables = Tables(store, settings)
    authenticator = Authenticator(accounts or accounts_for(store), settings.auth)
    # The authenticator goes first: the limits after it charge `caller_of(context)`.
    message_bytes = settings.limits.message_bytes
    interceptors = [
        *([Metered(tables)] if settings.metered else []),  # outermost: refusals counted too
        authenticator,
        Guard(settings.rate_limit, message_bytes),
    ]
    # The interceptors wrap each handler as it is added (`Wrapped`), not per call: gRPC
    # runs no interceptor of its own (a few coroutines a call, to find the same handler).
    server = grpc.aio.server(
        options=[
            ("grpc.so_reuseport", 1 if settings.reuse_port else 0),  # no silent port sharing
            *reset_options(),  # rapid reset: streams per connection, calls queued
            # Half the process's files at most: connections past it are closed at once, so
            # the HTTP port, Redis and the log keep theirs (a quarter goes to HTTP).
            ("grpc.max_allowed_incoming_connections", budget(GRPC_CONNECTIONS, share=2)),
            ("grpc.max_connection_idle_ms", IDLE_CONNECTION_MS),
            *message_options(message_bytes),
        ],
    )
    servicer = KafanaServiceServicer(tables, accounts=authenticator.accounts)
    # Services are added through the registry: it adds them to the server, and keeps their
    # handlers for HTTP (it has the two methods the generated add_*_to_server call).
    adding = Wrapped(server, interceptors)
    registry = Registry(adding)
    adder = cast(grpc.aio.Server, registry)
    service_pb2_grpc.add_KafanaServiceServicer_to_server(servicer, adder)
    account_servicer = AccountsServiceServicer(authenticator, store.counters)
    accounts_pb2_grpc.add_AccountsServiceServicer_to_server(account_servicer, adder)
    clock = ClockSweeper(tables, tick=settings.clock_tick)
    kafana = KafanaServer(server, servicer, tables, clock, plugins)
    kafana.resets = ResetWatch(settings.resets_per_second, goaway=not settings.tls)
    kafana.resets.server_id = newest_server()  # the server just made above
    health_pb2_grpc.add_HealthServicer_to_server(kafana.health, adding)
    for plugin in kafana.plugins:
        plugin.add_to(registry)
    names = [SERVICE_NAME, ACCOUNTS_SERVICE, *(p.service_name for p in kafana.plugins)]
    enable_reflection((*names, health.SERVICE_NAME, *REFLECTION_SERVICES), adding)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"  # IPv6 in brackets
    http_tls = None
    try:
        if settings.tls_cert is None or settings.tls_key is None:
            kafana.port = server.add_insecure_port(address)
        else:
            http_tls = HttpTls(settings.tls_cert, settings.tls_key, settings.tls_client_ca)
            credentials = server_credentials(
                settings.tls_cert, settings.tls_key, settings.tls_client_ca
            )
            kafana.port = server.add_secure_port(address, credentials)
    except RuntimeError:  # taken since `check_address` looked
        kafana.port = 0
    if kafana.port == 0:
        raise AddressError(f"cannot listen on {host}:{port}")
    if settings.http_port is not None:
        try:
            kafana.http = http_server(
                registry,
                interceptors,
                names,
                host,
                settings.http_port,
                origins=settings.http_origins,
                message_bytes=message_bytes,
                tls=http_tls,
            )
        except OSError as error:
            raise AddressError(
                f"cannot serve HTTP on {host}:{settings.http_port}: {error.strerror or error}"
            ) from None
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
        http = getattr(kafana, "http", None)  # stand-ins of a server may have no HTTP side
        if http is not None:
            announce(f"kafana: Connect and gRPC-Web (browsers) on {http.url}")
            announce(f"kafana: the web app (lobby, play, watch, replays) on {http.url}/")
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
