"""Where and how to connect: the target, TLS, default deadlines and retries, and the channel.

>>> options = ConnectOptions("localhost:50051", deadlines=Deadlines(default=2.0))
>>> options.deadline("PlayMove"), options.deadline("WatchEvents")
(2.0, None)
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import grpc  # type: ignore[import-untyped, unused-ignore]

STREAMING = frozenset({"WatchEvents", "WatchAccount"})
# A table with many cards has very many captures; grpc's default limit (4 MB) is too small.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
AUTHORIZATION = "authorization"
SEAT_TOKEN = "kafana-seat-token"
"""The metadata key of a seat's token (JoinTable hands it out; never in a request body)."""
ADMIN_TOKEN = "kafana-admin-token"
"""The metadata key of a table's admin token (CreateTable hands it out)."""


def check_key(key: str) -> str:
    """`key`, if a call can carry it (visible ASCII: it goes in a header as `Bearer <key>`);
    ValueError naming the first character that cannot be sent.

    >>> check_key("k_3x-Y")
    'k_3x-Y'
    >>> check_key("bad key")
    Traceback (most recent call last):
    ...
    ValueError: the key holds ' ' (character 4): a key is visible ASCII, no spaces
    """
    for at, char in enumerate(key, 1):
        if not "!" <= char <= "~":
            raise ValueError(
                f"the key holds {char!r} (character {at}): a key is visible ASCII, no spaces"
            )
    return key


GRPC_SCHEMES = frozenset({"dns", "unix", "unix-abstract", "ipv4", "ipv6", "vsock", "xds"})
"""The schemes of gRPC target URIs (`dns:///host:port`, `unix:/run/k.sock`): passed to grpc."""
SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
EXAMPLE = "e.g. localhost:50051, a port from 1 to 65535"


def host_port(text: str) -> bool:
    """Whether `text` is HOST:PORT (a port from 1 to 65535; an IPv6 host in brackets)."""
    host, colon, port = text.rpartition(":")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        return False
    return bool(colon and host and port.isdigit() and 1 <= int(port) <= 65535)


def url_refusal(text: str, flag: str = "", tls: str = "tls=Tls(...)") -> str:
    """Why `text` is no target when it is a URL (`http://`, `https://`, `grpc://`...: no scheme
    means anything to grpc; TLS is `tls`), with the HOST:PORT in it to give instead (after
    `flag`, the command line's); "" for anything else (a gRPC target URI, HOST:PORT, or text
    grpc judges).

    >>> url_refusal("https://kafana.example:443/")
    "'https://kafana.example:443/' is not HOST:PORT: the target takes no scheme (https://); give kafana.example:443 with tls=Tls(...) (TLS: the root certificate to trust)"
    >>> url_refusal("http://127.0.0.1:50051", "--server", "--tls-ca PEM")
    "'http://127.0.0.1:50051' is not HOST:PORT: --server takes no scheme (http://); give --server 127.0.0.1:50051"
    >>> url_refusal("dns:///localhost:50051"), url_refusal("localhost:50051")
    ('', '')
    """  # noqa: E501
    scheme = SCHEME.match(text)
    if not scheme or scheme.group(1).lower() in GRPC_SCHEMES:
        return ""
    if not text.startswith("/", scheme.end()):
        return ""
    name = scheme.group(1)
    slashes = "//" if text.startswith("//", scheme.end()) else "/"
    rest = text[scheme.end() :].lstrip("/").split("/")[0]
    secure = name.lower() in {"https", "grpcs"}
    if host_port(rest):
        joined = f" {tls}" if flag else f" with {tls}"
        trust = f"{joined} (TLS: the root certificate to trust)" if secure else ""
        instead = " ".join(filter(None, ("give", flag, rest))) + trust
    else:
        instead = f"give HOST:PORT ({EXAMPLE})" + (f"; TLS is {tls}" if secure else "")
    what = flag or "the target"
    return f"{text!r} is not HOST:PORT: {what} takes no scheme ({name}:{slashes}); {instead}"


def _read(value: bytes | str | Path | None) -> bytes | None:
    """PEM bytes as given, or read from a path."""
    if value is None or isinstance(value, bytes):
        return value
    return Path(value).read_bytes()


CONNECT_SECONDS = 5.0
"""How long the first connection may take before the server is reported unreachable."""


@dataclass(frozen=True)
class Tls:
    """TLS settings: root certificates (None: the system's) and an optional client certificate.

    Each may be PEM bytes or a path to a PEM file. `server_name` overrides the name checked
    against the server's certificate (useful with a test certificate and an IP address).
    """

    root_certificates: bytes | str | Path | None = None
    client_certificate: bytes | str | Path | None = None
    client_key: bytes | str | Path | None = None
    server_name: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials for grpc."""
        if (self.client_certificate is None) != (self.client_key is None):
            raise ValueError("a client certificate needs its key, and a key its certificate")
        return grpc.ssl_channel_credentials(
            root_certificates=_read(self.root_certificates),
            private_key=_read(self.client_key),
            certificate_chain=_read(self.client_certificate),
        )


@dataclass(frozen=True)
class Deadlines:
    """Seconds each call may take: `default` for unary calls, `per_method` overrides by RPC name.

    The event stream has no deadline unless `stream` is set (it is meant to stay open).
    """

    default: float | None = 10.0
    stream: float | None = None
    per_method: dict[str, float | None] = field(default_factory=dict)

    def of(self, method: str) -> float | None:
        """The deadline of RPC `method` (e.g. "PlayMove")."""
        if method in self.per_method:
            return self.per_method[method]
        return self.stream if method in STREAMING else self.default


@dataclass(frozen=True)
class Retry:
    """Retries of calls that are safe to repeat, on UNAVAILABLE (server restarting, network).

    PlayMove is retried with the same client move id, so a move is never applied twice. The
    event stream is reopened after the last event it delivered, up to `stream_attempts` times
    in a row and for at most `stream_seconds` without a message (a server restart of several
    seconds goes unnoticed by a watcher; a server that answers nothing is given up on).
    """

    attempts: int = 5
    backoff: float = 0.1
    max_backoff: float = 2.0
    stream_attempts: int = 30  # reopenings of the event stream in a row (about a minute)
    stream_seconds: float = 60.0  # without a message, however few the reopenings

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number `attempt` (1, 2, ...)."""
        return float(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))


class _Keyed:
    """Adds `authorization: Bearer <key>` to the calls of a plaintext channel (grpc sends
    call credentials only over TLS)."""

    def __init__(self, key: str) -> None:
        self._entry = (AUTHORIZATION, f"Bearer {key}")

    def _details(self, details: Any) -> Any:
        metadata = grpc.aio.Metadata(*(details.metadata or ()), self._entry)
        return grpc.aio.ClientCallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
        )


class _KeyedUnary(_Keyed, grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc, unused-ignore]
    async def intercept_unary_unary(
        self, continuation: Callable[[Any, Any], Awaitable[Any]], details: Any, request: Any
    ) -> Any:
        """The call, with the key."""
        return await continuation(self._details(details), request)


class _KeyedStream(_Keyed, grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc, unused-ignore]
    async def intercept_unary_stream(
        self, continuation: Callable[[Any, Any], Awaitable[Any]], details: Any, request: Any
    ) -> Any:
        """The stream, with the key (grpc files each interceptor under one kind only)."""
        return await continuation(self._details(details), request)


@dataclass(frozen=True)
class ConnectOptions:
    """Everything about a connection. `target` is "host:port" (or any gRPC target).

    `key`: an API key, sent as `authorization: Bearer <key>` with every call (call credentials
    on a TLS channel, call metadata on a plaintext one); never shown in a repr. `routes`: the
    other processes of the same deployment; each table's calls then go to one process of all
    (`kafana_client.routing`), the next one when it is unreachable.
    """

    target: str
    tls: Tls | None = None
    deadlines: Deadlines = field(default_factory=Deadlines)
    retry: Retry = field(default_factory=Retry)
    channel_options: tuple[tuple[str, int | str], ...] = ()
    max_message_bytes: int = MAX_MESSAGE_BYTES
    key: str | None = field(default=None, repr=False)
    routes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.key:
            check_key(self.key)  # else every call fails inside grpc, naming no key
        for target in self.targets:  # else a URL fails after the connect timeout, unnamed
            refusal = url_refusal(target)
            if refusal:
                raise ValueError(refusal)

    @property
    def targets(self) -> tuple[str, ...]:
        """Every process this client may call: `target`, then `routes`."""
        return (self.target, *(route for route in self.routes if route != self.target))

    def deadline(self, method: str) -> float | None:
        """The default deadline (seconds) of RPC `method`."""
        return self.deadlines.of(method)

    def _grpc_options(self) -> list[tuple[str, int | str]]:
        options: list[tuple[str, int | str]] = [
            ("grpc.max_receive_message_length", self.max_message_bytes)
        ]
        options += self.channel_options
        if self.tls is not None and self.tls.server_name:
            options.append(("grpc.ssl_target_name_override", self.tls.server_name))
        return options

    def aio_channel(self, target: str | None = None) -> grpc.aio.Channel:
        """A new grpc.aio channel to `target` (default: `self.target`) for these options, with
        the key on every call, if any."""
        target = target or self.target
        if self.tls is None:
            interceptors: list[grpc.aio.ClientInterceptor] | None = None
            if self.key:
                interceptors = [_KeyedUnary(self.key), _KeyedStream(self.key)]
            return grpc.aio.insecure_channel(
                target, options=self._grpc_options(), interceptors=interceptors
            )
        credentials = self.tls.credentials()
        if self.key:
            credentials = grpc.composite_channel_credentials(
                credentials, grpc.access_token_call_credentials(self.key)
            )
        return grpc.aio.secure_channel(target, credentials, options=self._grpc_options())


class Connects:
    """`connect(target, ...)` for a client class built from `ConnectOptions`."""

    def __init__(self, options: ConnectOptions) -> None:
        self.options = options

    @classmethod
    def connect(
        cls,
        target: str,
        *,
        tls: Tls | None = None,
        deadlines: Deadlines | None = None,
        retry: Retry | None = None,
        key: str | None = None,
        routes: Sequence[str] = (),
    ) -> Self:
        """A client for `target` ("host:port"); insecure unless `tls` is given; `key`: the
        API key sent with every call (`authorization: Bearer <key>`).

        An `AsyncClient` is made inside a coroutine (grpc.aio channels belong to the running
        event loop)::

            client = AsyncClient.connect("localhost:50051", deadlines=Deadlines(default=1.0))
            tls = Tls(root_certificates="ca.pem", client_certificate="me.pem", client_key="me.key")
            secure = AsyncClient.connect("kafana.example:443", tls=tls)
            keyed = AsyncClient.connect("kafana.example:443", key=os.environ["KAFANA_KEY"])
            routed = AsyncClient.connect("10.0.0.1:50051", routes=["10.0.0.2:50051"])

        `routes`: the deployment's other processes (see `ConnectOptions`).
        """
        deadlines = deadlines if deadlines is not None else Deadlines()
        retry = retry if retry is not None else Retry()
        options = ConnectOptions(
            target, tls=tls, deadlines=deadlines, retry=retry, key=key, routes=tuple(routes)
        )
        return cls(options)
