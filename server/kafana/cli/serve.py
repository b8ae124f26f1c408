"""`kafana serve`: run the gRPC service, with Competitions (`kafana.competitions.server`)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click
from kafana_client.cli.numbers import Finite
from kafana_client.cli.tls import Pem

from kafana.cli.auth import auth_options
from kafana.competitions.server import create_server
from kafana.logs import FORMATS
from kafana.logs import configure as configure_logs
from kafana.metrics import serve_metrics
from kafana.service import tracing
from kafana.service.auth import AuthPolicy
from kafana.service.collector import calm_full_collections, collect_every
from kafana.service.embedded import choose_store
from kafana.service.limits import Limits
from kafana.service.ratelimit import RateLimit
from kafana.service.server import AddressError, check_address, serve_until_signal
from kafana.service.session_cache import CACHE_BYTES, CACHE_ENTRIES
from kafana.service.settings import ABANDON_AFTER, JOIN_DEADLINE_MS, Settings
from kafana.service.tls import server_credentials
from kafana.service.web import parse_origins
from kafana.store.redis_store import DURABILITIES, PRIMARY

F = TypeVar("F", bound=Callable[..., Any])
PEM = Pem()


def setting(name: str, default: int | float, help: str) -> Callable[[F], F]:
    """A number option (of its default's type) the environment may set too: `--idle-ttl`
    reads KAFANA_IDLE_TTL."""
    kind = Finite() if isinstance(default, float) else int  # nan would pass every check
    return click.option(
        name, envvar=env_name(name), default=default, show_default=True, type=kind, help=help
    )


def port_setting(name: str, dest: str, help: str) -> Callable[[F], F]:
    """A port of another listener, served only when given (0: any free port): `--http`
    reads KAFANA_HTTP."""
    return click.option(
        name, dest, envvar=env_name(name), type=click.IntRange(0, 65535), default=None, help=help
    )


def env_name(name: str) -> str:
    """The environment variable of option `name`: `--idle-ttl` is KAFANA_IDLE_TTL."""
    return "KAFANA_" + name.removeprefix("--").replace("-", "_").upper()


@click.command()
@auth_options
@click.option(
    "--redis",
    "redis_url",
    envvar="KAFANA_REDIS",
    default=None,
    help="redis://host:port/db or redis+cluster://host:port; without it a private "
    "redis-server is started (none on the PATH: exit 1). Env: KAFANA_REDIS.",
)
@click.option("--host", envvar="KAFANA_HOST", default="127.0.0.1", show_default=True)
@click.option(
    "--port",
    envvar="KAFANA_PORT",
    default=50051,
    show_default=True,
    type=int,
    help="0-65535 (0: any free one). A port in use is refused (exit status 3).",
)
@click.option(
    "--reuse-port",
    is_flag=True,
    envvar="KAFANA_REUSE_PORT",
    help="Share the port with other processes (SO_REUSEPORT); off: a port in use is refused.",
)
@click.option(
    "--grace", type=Finite(0), default=5.0, show_default=True,
    help="Seconds to finish calls on stop.",
)  # fmt: skip
@click.option("--memory", is_flag=True, help="A private redis-server even if --redis is set.")
@click.option(
    "--durability",
    envvar="KAFANA_DURABILITY",
    type=click.Choice(DURABILITIES),
    default=PRIMARY,
    show_default=True,
    help="When a move is acknowledged: once the Redis primary has it (primary), or once a "
    "replica has it too (replicated: WAIT 1, for failovers; docs/reliability.md).",
)
@setting(
    "--idle-ttl",
    86400,
    "Seconds a table lives after the last move a seat played (clock timeouts do not count).",
)
@setting("--finished-ttl", 86400, "Seconds a finished table (and its record) is kept.")
@click.option(
    "--retention-days", type=click.FloatRange(min=0, min_open=True), default=30.0,
    show_default=True, help="Days hosted events and their data are kept (then they expire).",
)  # fmt: skip
@setting(
    "--join-deadline",
    JOIN_DEADLINE_MS // 1000,
    "Seconds an open table waits for its seats to be taken; then it expires.",
)
@setting(
    "--abandon-after",
    ABANDON_AFTER,
    "A match nobody plays ends as abandoned after this many clock timeouts of every seat "
    "in a row (>= 1).",
)
@setting(
    "--cache-tables",
    CACHE_ENTRIES,
    "Tables whose replay each process keeps in memory (4-10 KB each; also bounded to "
    f"{CACHE_BYTES // 2**20} MiB in all).",
)
@click.option("--tls-cert", envvar="KAFANA_TLS_CERT", type=PEM, help="Server certificate (PEM).")
@click.option("--tls-key", envvar="KAFANA_TLS_KEY", type=PEM, help="Its private key (PEM).")
@click.option(
    "--tls-client-ca",
    envvar="KAFANA_TLS_CLIENT_CA",
    type=PEM,
    help="Mutual TLS: admit only clients with a certificate signed by this CA (PEM).",
)
@setting(
    "--rate-limit",
    RateLimit().rate,
    "Calls per second per caller (its account, else its address); 0: no limit.",
)
@setting(
    "--rate-burst", RateLimit().burst, "Calls a client may make at once before the rate applies."
)
@setting(
    "--max-streams",
    RateLimit().max_streams,
    "Event streams one caller may hold open at once; 0: no cap.",
)
@setting(
    "--tables-per-hour",
    Limits().tables_per_hour,
    "Tables one caller may create per hour (all processes on one Redis); 0: no limit.",
)
@setting(
    "--open-tables",
    Limits().open_tables,
    "Tables one caller may have open (not finished) at once; 0: no limit.",
)
@setting(
    "--open-bot-tables",
    Limits().open_bot_tables,
    "Of those, tables whose every seat is a built-in bot (the server plays them); 0: no limit.",
)
@setting(
    "--max-config-bytes",
    Limits().config_bytes,
    "Bytes of one table config (its explicit decks, mostly); 0: no limit.",
)
@port_setting(
    "--metrics",
    "metrics_port",
    "Serve Prometheus metrics at http://HOST:PORT/metrics (0: any free port).",
)
@click.option(
    "--log-format",
    envvar="KAFANA_LOG_FORMAT",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Log lines as readable text or JSON (one object a line); secrets are masked.",
)
@click.option(
    "--trace",
    is_flag=True,
    envvar="KAFANA_TRACE",
    help="Trace every call with OpenTelemetry (the otel extra; OTLP to "
    "OTEL_EXPORTER_OTLP_ENDPOINT, which also turns it on).",
)
@setting(
    "--max-message-bytes",
    Limits().message_bytes,
    "Bytes of one request; 0: gRPC's own limit (4 MB).",
)
@port_setting(
    "--http",
    "http_port",
    "Also serve every service over Connect and gRPC-Web (browsers, HTTP clients) on "
    "this port of --host (0: any free port); TLS as the gRPC port.",
)
@click.option(
    "--http-origins",
    envvar="KAFANA_HTTP_ORIGINS",
    default="",
    help="Web page origins allowed to call --http (CORS), comma-separated "
    "(https://app.example), or * for any; none: only the pages this server serves, "
    "reached by its address or as localhost.",
)
def serve(
    redis_url: str | None,
    auth: AuthPolicy,
    host: str,
    port: int,
    reuse_port: bool,
    grace: float,
    memory: bool,
    durability: str,
    idle_ttl: int,
    finished_ttl: int,
    retention_days: float,
    join_deadline: int,
    abandon_after: int,
    cache_tables: int,
    tls_cert: str | None,
    tls_key: str | None,
    tls_client_ca: str | None,
    rate_limit: float,
    rate_burst: float,
    max_streams: int,
    tables_per_hour: int,
    open_tables: int,
    open_bot_tables: int,
    max_config_bytes: int,
    max_message_bytes: int,
    metrics_port: int | None,
    log_format: str,
    trace: bool,
    http_port: int | None,
    http_origins: str,
) -> None:
    """Run the Kafana gRPC server until SIGTERM (graceful shutdown).

    Exit status 2: an invalid option (a --port outside 0-65535, an unknown --host); 3: the
    address cannot be listened on (the port is taken, the host is not this machine's).
    """
    if abandon_after < 1 or join_deadline < 1:
        raise click.UsageError("--abandon-after and --join-deadline are at least 1")
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    if tls_client_ca is not None and tls_cert is None:
        raise click.UsageError("--tls-client-ca needs --tls-cert and --tls-key")
    if rate_limit < 0 or (rate_limit > 0 and rate_burst < 1):
        raise click.UsageError("--rate-limit must be >= 0 and --rate-burst >= 1")
    limits = (tables_per_hour, open_tables, open_bot_tables, max_config_bytes, max_message_bytes)
    if min(*limits, max_streams) < 0:
        raise click.UsageError("limits are >= 0 (0: no limit)")
    try:
        origins = parse_origins(http_origins)
    except ValueError as error:
        raise click.UsageError(f"--http-origins: {error}") from None
    if http_port is not None and http_port == port != 0:
        raise click.UsageError("--http needs a port of its own (not --port)")
    try:  # after the flags' own checks: a usage error is one whatever holds the port
        check_address(host, port, reuse_port=reuse_port)
    except AddressError as error:
        _cannot_listen(error)
    try:
        settings = Settings(
            host=host,
            port=port,
            reuse_port=reuse_port,
            tls_cert=tls_cert,
            tls_key=tls_key,
            tls_client_ca=tls_client_ca,
            http_port=http_port,
            http_origins=tuple(origins),
            redis_url=redis_url,
            memory=memory,
            durability=durability,
            idle_ttl_ms=idle_ttl * 1000,
            finished_ttl_ms=finished_ttl * 1000,
            join_deadline_ms=join_deadline * 1000,
            abandon_after=abandon_after,
            retention_ms=round(retention_days * 86_400_000),
            cache_size=cache_tables,
            grace=grace,
            auth=auth,
            limits=Limits(
                tables_per_hour,
                open_tables,
                max_config_bytes,
                max_message_bytes,
                open_bot_tables=open_bot_tables,
            ),
            rate_limit=RateLimit(rate=rate_limit, burst=rate_burst, max_streams=max_streams),
            metered=metrics_port is not None,
            metrics_port=metrics_port,
            log_format=log_format,
            trace=trace,
        )
    except ValueError as error:  # a setting the checks above did not word for a flag
        raise click.UsageError(str(error)) from None
    run(settings)


def run(settings: Settings) -> None:
    """Serve with `settings` (built from the flags and environment) until a signal."""
    if settings.tls_cert is not None and settings.tls_key is not None:  # unreadable: fail now
        server_credentials(settings.tls_cert, settings.tls_key, settings.tls_client_ca)
    configure_logs(settings.log_format)
    if tracing.wanted(settings.trace) and tracing.enable() is None:
        click.echo(tracing.MISSING, err=True)
    if settings.metrics_port is not None:
        where = f"{settings.host}:{settings.metrics_port}"
        try:
            bound = serve_metrics(settings.metrics_port, settings.host)
        except OSError as error:
            _cannot_listen(AddressError(f"--metrics: cannot listen on {where}: {error.strerror}"))
        click.echo(f"metrics: http://{settings.host}:{bound}/metrics")
    memory = settings.memory
    try:
        choice = choose_store(
            None if memory else settings.redis_url,
            allow_private=not memory,
            durability=settings.durability,
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    click.echo(choice.description, err=False)
    click.echo(_tls_line(settings.tls_cert, settings.tls_client_ca))

    async def main() -> None:
        try:
            kafana = create_server(choice.store, settings)
        except AddressError:  # taken since the check above
            await choice.store.close()
            raise
        collecting = asyncio.create_task(collect_every())  # a short full collection a second
        clean = True  # also when serving fails: the store is closed, the error goes on
        try:
            clean = await serve_until_signal(kafana, lambda line: click.echo(line), settings.grace)
        finally:
            collecting.cancel()
            if clean:
                await choice.store.close()
        if not clean:
            # The stop hung: its tasks may ignore cancellation, and asyncio.run would wait
            # for them. Stop the private Redis, if any, and end the process here.
            choice.cleanup()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)

    calm_full_collections()  # thousands of cached tables: keep full collections short
    try:
        asyncio.run(main())
    except AddressError as error:
        _cannot_listen(error)
    finally:
        choice.cleanup()


def _cannot_listen(error: AddressError) -> NoReturn:
    """Exit after one line: 2 for an address that is no address, 3 for one not to be had."""
    click.echo(f"kafana serve: {error}", err=True)
    sys.exit(2 if error.invalid else 3)


def _tls_line(cert: str | None, client_ca: str | None) -> str:
    """What the server says of TLS: clients must use `--tls-ca`, or it is plaintext."""
    if cert is None:
        return "tls: off (plaintext; --tls-cert and --tls-key serve TLS)"
    clients = f", clients must present a certificate signed by {client_ca}" if client_ca else ""
    return f"tls: on, certificate {cert} (clients connect with --tls-ca){clients}"
