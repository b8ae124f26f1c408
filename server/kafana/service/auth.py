"""Who calls: API keys in `authorization: Bearer <key>` metadata, resolved by an interceptor.

Every call of the Kafana, Competitions and Accounts services (not health, not reflection) gets a
`Caller`, which `caller_of(context)` returns inside the handler: the account and its role when
the call carries a valid key, else anonymous, known by its network address. `Caller.key` is the
key every limit is charged to: `a:<account>` or `p:<address>`.

The server's mode is explicit (`AuthPolicy.mode`):

- `open`: keys are optional; a key that is sent must be valid (a wrong key is not anonymous);
- `required`: anonymous calls may use only `AuthPolicy.anonymous` (by RPC name; `GetState` and
  `WatchEvents` as a spectator, without a seat token, unless `PlayMove` is allowed too); anything
  else is UNAUTHENTICATED, naming what is missing.

A role without the right to an RPC (`PERMISSIONS`; in `open` mode only the operator's calls
are kept to a role) is PERMISSION_DENIED, and an unknown or revoked key UNAUTHENTICATED. Keys
are looked up by their SHA-256 only; a lookup is cached for `cache_s` seconds (a revocation on
another server takes effect within that time, on this one at once).

A stream opened with a key lasts only as long as its key: every `KEY_CHECK_S` the keys of the
open streams are looked up again (once per key, through the cache), and the streams of a key
revoked or rotated away end with UNAUTHENTICATED (`KeyWatch`): within `KEY_CHECK_S` on the
server that revoked it, `KEY_CHECK_S + cache_s` on the others.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from kafana.errors import AuthenticationError
from kafana.logs import Repeated
from kafana.service.errors import (
    UNAVAILABLE_ERRORS,
    refuse,
    refuse_rate_limited,
    refuse_reason,
)
from kafana.service.intercept import Behavior, Context, WrappingInterceptor
from kafana.service.ratelimit import RateLimit, RateLimiter
from kafana.store.accounts import KEY_CHARS, Account, AccountStore, key_hash
from kafana.tasks import cancel_and_wait
from kafana.v1 import accounts_pb2, competitions_pb2, leagues_pb2, service_pb2

OPEN = "open"
REQUIRED = "required"
MODES = (OPEN, REQUIRED)
DEFAULT_ANONYMOUS = (
    "GetServerInfo",
    "Captures",
    "GetTable",
    "GetState",
    "WatchEvents",
    "ListTables",
    "GetRecord",
    # competitions: standings and boards are public, read-only (docs/competitions.md)
    "GetEvent",
    "ListEvents",
    "GetLeague",
    "ListLeagues",
    "GetLeaderboard",
)
SPECTATING = ("GetState", "WatchEvents")  # anonymous only without a seat token
KEY_CHECK_S = 1.0
"""How often the keys of open streams are looked up again (a revoked key ends its streams)."""
log = logging.getLogger(__name__)
UNGUARDED = ("/grpc.health.", "/grpc.reflection.")

ORGANISE = frozenset({"organiser", "operator"})
OPERATE = frozenset({"operator"})
PERMISSIONS: dict[str, frozenset[str]] = {
    # Competitions: organisers run events; anyone with an account enters and watches them.
    "CreateEvent": ORGANISE,
    "StartEvent": ORGANISE,
    "PauseEvent": ORGANISE,
    "ResumeEvent": ORGANISE,
    "EndEvent": ORGANISE,
    "AdjudicateGame": ORGANISE,
    "SetRegistration": ORGANISE,
    # Leagues: organisers create leagues and seasons; the queue needs an account (the servicer).
    "CreateLeague": ORGANISE,
    "NewSeason": ORGANISE,
    # Accounts: operators only (Register is decided by the self-registration switch).
    "CreateAccount": OPERATE,
    "ListAccounts": OPERATE,
    "RevokeAccount": OPERATE,
    "RotateKey": OPERATE,
}
"""The roles allowed an RPC, by name; an RPC not named here is open to every role."""


@dataclass(frozen=True)
class Caller:
    """Who makes a call: `key` is what limits are charged to (`a:<account>` or `p:<address>`)."""

    key: str
    account: str | None
    role: str | None
    address: str

    @staticmethod
    def anonymous(address: str) -> Caller:
        """An anonymous caller at `address`."""
        return Caller("p:" + address, None, None, address)

    @staticmethod
    def of(account: Account, address: str) -> Caller:
        """The holder of `account`'s key, calling from `address`. A self-registered account is
        charged to the address it was registered from (`p:<address>`, as that address's
        anonymous calls): accounts a stranger makes buy no budget of their own."""
        key = "p:" + account.origin if account.origin else "a:" + account.name
        return Caller(key, account.name, account.role, address)


Metadata = tuple[tuple[str, Any], ...]
_current: ContextVar[tuple[Context, Caller, Metadata] | None] = ContextVar(
    "kafana_caller", default=None
)
"""The call being handled: its context, its caller and its metadata (read once a call)."""


def peer_address(context: Context) -> str:
    """The peer's address without its port (`ipv4:1.2.3.4:5678` -> `ipv4:1.2.3.4`)."""
    peer = context.peer() or ""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def caller_of(context: Context) -> Caller:
    """The caller of the call being handled (set by `Authenticator`; anonymous without it)."""
    current = _current.get()
    if current is not None and current[0] is context:
        return current[1]
    return Caller.anonymous(peer_address(context))


SEAT_TOKEN = "kafana-seat-token"
"""Call metadata: the seat a call plays for (`JoinTableResponse.seat_token`)."""
ADMIN_TOKEN = "kafana-admin-token"
"""Call metadata: the table's admin (`CreateTableResponse.admin_token`)."""
MAX_TOKEN = 128
_TOKEN = re.compile(r"[A-Za-z0-9_-]+")


def metadata_token(metadata: Iterable[tuple[str, Any]] | None, name: str) -> str:
    """The token in metadata entry `name` ("" without one); a malformed one is refused.

    Tokens are URL-safe base64 text (as `JoinTable` and `CreateTable` hand them out).

    >>> metadata_token([("kafana-seat-token", "abc_-9")], SEAT_TOKEN)
    'abc_-9'
    >>> metadata_token([], SEAT_TOKEN)
    ''

    >>> metadata_token([("kafana-seat-token", "a b")], SEAT_TOKEN)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kafana.errors.AuthenticationError: the kafana-seat-token metadata is malformed: ...
    """
    found: str | None = None
    for key, value in metadata or ():
        if key != name:
            continue
        if found is not None:
            raise AuthenticationError(f"the {name} metadata is malformed: it is sent twice")
        found = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
        if not 0 < len(found) <= MAX_TOKEN or not _TOKEN.fullmatch(found):
            raise AuthenticationError(
                f"the {name} metadata is malformed: a token is 1..{MAX_TOKEN} characters of "
                "A-Z, a-z, 0-9, '_' and '-' (as JoinTable and CreateTable hand it out)"
            )
    return found or ""


def call_metadata(context: Context) -> Metadata:
    """The call's metadata: as the authenticator read it (gRPC builds it anew on each read)."""
    current = _current.get()
    if current is not None and current[0] is context:
        return current[2]
    return tuple(context.invocation_metadata() or ())


def seat_token(context: Context) -> str:
    """The call's seat token (`kafana-seat-token`), "" without one."""
    return metadata_token(call_metadata(context), SEAT_TOKEN)


def admin_token(context: Context) -> str:
    """The call's admin token (`kafana-admin-token`), "" without one."""
    return metadata_token(call_metadata(context), ADMIN_TOKEN)


def bearer(metadata: Iterable[tuple[str, Any]] | None) -> str | None:
    """The key of an `authorization: Bearer <key>` entry; None without one, "" if malformed.

    >>> bearer([("authorization", "Bearer kfk_abc")]), bearer([]), bearer([("authorization", "x")])
    ('kfk_abc', None, '')
    """
    for name, value in metadata or ():
        if name == "authorization":
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            scheme, _, key = text.strip().partition(" ")
            return key.strip() if scheme.lower() == "bearer" else ""
    return None


@dataclass(frozen=True)
class AuthPolicy:
    """The server's mode, what anonymous callers may do, and whether strangers may register."""

    mode: str = OPEN
    anonymous: frozenset[str] = field(default_factory=lambda: frozenset(DEFAULT_ANONYMOUS))
    self_register: bool = False
    cache_s: float = 1.0  # how long a key lookup is trusted
    cache_entries: int = 10_000
    # Unknown keys one address may send (each costs a store lookup) before it must wait: the
    # authenticator runs before the call limits, so made-up keys cannot hammer the store.
    bad_keys: RateLimit = field(default_factory=lambda: RateLimit(rate=5.0, burst=20.0))

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"auth mode is one of {', '.join(MODES)}, not {self.mode!r}")

    @staticmethod
    def default_mode(shared_redis: bool) -> str:
        """`required` when a shared Redis is configured, else `open` (the embedded run)."""
        return REQUIRED if shared_redis else OPEN

    def roles_for(self, name: str) -> frozenset[str] | None:
        """The roles allowed the call `name`; None: any caller. In `open` mode only the
        operator's calls are kept to a role (events are run with organiser tokens, as ever)."""
        roles = PERMISSIONS.get(name)
        if roles is ORGANISE and self.mode == OPEN:
            return None
        return roles

    def allows_anonymous(self, name: str, seated: bool) -> bool:
        """Whether an anonymous caller may make the call `name` (`seated`: with a seat token)."""
        if name == "Register":
            return self.self_register
        if self.mode == OPEN:
            return self.roles_for(name) is None
        if name not in self.anonymous:
            return False
        if name in SPECTATING and seated:
            return "PlayMove" in self.anonymous
        return True

    def refusal(self, name: str, request: Any = None) -> str:
        """Why an anonymous call `name` is refused (`request` is not needed: tokens travel in
        metadata)."""
        if name == "Register":
            return "self-registration is off on this server: ask its operator for an account"
        if name in SPECTATING and name in self.anonymous:
            return (
                f"{name} with a seat token needs an API key (authorization: Bearer <key>); "
                "without a key only spectating is allowed"
            )
        allowed = ", ".join(sorted(self.anonymous)) or "nothing"
        return (
            f"{name} needs an API key (call metadata authorization: Bearer <key>); "
            f"without one this server allows: {allowed}"
        )


def rpc_names() -> frozenset[str]:
    """The names of every RPC of the services the authenticator guards."""
    services = [
        *service_pb2.DESCRIPTOR.services_by_name.values(),
        *competitions_pb2.DESCRIPTOR.services_by_name.values(),
        *accounts_pb2.DESCRIPTOR.services_by_name.values(),
        *leagues_pb2.DESCRIPTOR.services_by_name.values(),
    ]
    return frozenset(method.name for service in services for method in service.methods)


def parse_anonymous(text: str) -> frozenset[str]:
    """The RPC names of a comma list (`--anonymous`); ValueError for a name no service has.

    >>> sorted(parse_anonymous("Captures, GetTable,"))
    ['Captures', 'GetTable']
    >>> parse_anonymous("Capture")
    Traceback (most recent call last):
    ...
    ValueError: no RPC is called Capture
    """
    names = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(names - rpc_names())
    if unknown:
        raise ValueError(f"no RPC is called {', '.join(unknown)}")
    return names


class KeyCache:
    """Accounts by key hash for a short while, in a bounded LRU."""

    def __init__(self, ttl_s: float, entries: int, clock: Callable[[], float]) -> None:
        self.ttl_s = ttl_s
        self.entries = entries
        self._clock = clock
        self._items: OrderedDict[bytes, tuple[Account | None, float]] = OrderedDict()

    def get(self, digest: bytes) -> tuple[bool, Account | None]:
        """(found, account) — an unknown key is cached as None too."""
        item = self._items.get(digest)
        if item is None or item[1] <= self._clock():
            return False, None
        return True, item[0]

    def put(self, digest: bytes, account: Account | None) -> None:
        """Remember a lookup."""
        self._items[digest] = (account, self._clock() + self.ttl_s)
        self._items.move_to_end(digest)
        while len(self._items) > self.entries:
            self._items.popitem(last=False)

    def forget(self, name: str) -> None:
        """Drop every entry of account `name` (revoked or rotated here)."""
        for digest in [d for d, (a, _) in self._items.items() if a and a.name == name]:
            del self._items[digest]


class KeyWatch:
    """The keys of open streams, looked up again every `period` seconds while any is open; a
    key that no longer resolves (revoked, rotated away) sets the event its streams wait on."""

    def __init__(
        self, lookup: Callable[[bytes], Awaitable[Account | None]], period: float = KEY_CHECK_S
    ) -> None:
        self.lookup = lookup
        self.period = period
        self.streams: dict[bytes, int] = {}  # open streams by key hash (bounded by streams)
        self.ended: dict[bytes, asyncio.Event] = {}
        self._task: asyncio.Task[None] | None = None
        self.errors = Repeated(log, "looking up the keys of open streams", quiet=UNAVAILABLE_ERRORS)

    def enter(self, digest: bytes) -> asyncio.Event:
        """One more stream of the key `digest`: the event is set when the key is gone."""
        self.streams[digest] = self.streams.get(digest, 0) + 1
        ended = self.ended.setdefault(digest, asyncio.Event())
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="kafana-key-watch")
        return ended

    def leave(self, digest: bytes) -> None:
        """A stream of the key `digest` ended."""
        left = self.streams.get(digest, 1) - 1
        if left > 0:
            self.streams[digest] = left
        else:
            self.streams.pop(digest, None)
            self.ended.pop(digest, None)

    async def _run(self) -> None:
        """Until no stream is open: look every key up again each period."""
        while self.streams:
            await asyncio.sleep(self.period)
            for digest in list(self.streams):
                try:
                    account = await self.lookup(digest)
                except UNAVAILABLE_ERRORS as error:  # the store is down: streams go on
                    self.errors.failed(error)
                    continue
                self.errors.succeeded()
                ended = self.ended.get(digest)
                if account is None and ended is not None:
                    ended.set()


class Authenticator(WrappingInterceptor):
    """Resolves the caller of every call and refuses what its mode and role do not allow.

    Goes first among the interceptors, so the ones after it (limits) see `caller_of`.
    """

    def __init__(
        self,
        accounts: AccountStore,
        policy: AuthPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.accounts = accounts
        self.policy = policy or AuthPolicy()
        self.cache = KeyCache(self.policy.cache_s, self.policy.cache_entries, clock)
        self.bad_keys = RateLimiter(self.policy.bad_keys, clock)
        self.key_watch = KeyWatch(self._recheck)
        # Per call without a hash or a new object: each key's hash, each (account, peer)'s
        # caller (both bounded; what is valid is still the cache's word, checked every call).
        self._digests: dict[str, bytes] = {}
        self._callers: dict[tuple[bytes, str], tuple[Account, Caller]] = {}

    def covers(self, method: str) -> bool:
        """Every method but health checking and reflection."""
        return not method.startswith(UNGUARDED)

    def wrap(self, behavior: Behavior, name: str, streaming: bool) -> Behavior:
        """The behaviour with the caller resolved (and checked) first."""

        async def authenticated(request: Any, context: Context) -> Any:
            metadata = tuple(context.invocation_metadata() or ())
            caller = self.known(name, context, metadata)
            if caller is None:
                caller = await self.resolve(name, request, context, metadata)
            reset = _current.set((context, caller, metadata))
            try:
                if streaming and caller.account is not None:
                    return await self._while_key_holds(behavior, request, context)
                return await behavior(request, context)
            finally:
                _current.reset(reset)

        return authenticated

    async def _while_key_holds(self, behavior: Behavior, request: Any, context: Context) -> Any:
        """The stream, ended with UNAUTHENTICATED once its key is revoked or rotated away."""
        digest = key_hash(bearer(call_metadata(context)) or "")
        ended = self.key_watch.enter(digest)
        stream = asyncio.create_task(behavior(request, context))
        gone = asyncio.create_task(ended.wait())
        try:
            await asyncio.wait({stream, gone}, return_when=asyncio.FIRST_COMPLETED)
            if stream.done():
                return stream.result()
        finally:
            self.key_watch.leave(digest)
            await cancel_and_wait([stream, gone])
        await refuse_reason(
            context,
            "API_KEY_INVALID",
            "the API key of this stream was revoked or rotated: the stream ends",
        )

    async def _recheck(self, digest: bytes) -> Account | None:
        """The account of a key hash now (through the cache, as a call would see it)."""
        found, account = self.cache.get(digest)
        if found:
            return account
        account = await self.accounts.by_key(digest)
        self.cache.put(digest, account)
        return account

    def known(self, name: str, context: Context, metadata: Metadata) -> Caller | None:
        """The caller of a call whose key the cache holds as valid and whose role may make
        the call `name`, worked out without a store read or a hash; None: ask `resolve`
        (no key, a key not cached, unknown or refused)."""
        key = bearer(metadata)
        if not key or len(key) > KEY_CHARS:  # a made-up one: never remembered
            return None
        digest = self._digests.get(key)
        if digest is None:
            digest = key_hash(key)
            if len(self._digests) >= self.policy.cache_entries:
                self._digests.clear()
            self._digests[key] = digest
        _found, account = self.cache.get(digest)  # not found: None too
        if account is None:
            return None
        allowed = self.policy.roles_for(name)
        if allowed is not None and account.role not in allowed:
            return None
        peer = context.peer()  # kept by the whole peer (with its port): no parsing a call
        made = self._callers.get((digest, peer))
        if made is not None and made[0] is account:  # the cache's account, not an older one
            return made[1]
        if len(self._callers) >= self.policy.cache_entries:
            self._callers.clear()
        caller = Caller.of(account, peer_address(context))
        self._callers[(digest, peer)] = (account, caller)
        return caller

    async def resolve(
        self, name: str, request: Any, context: Context, metadata: Metadata | None = None
    ) -> Caller:
        """The caller, or the call aborted: no key where one is needed, a bad key, no right
        (`metadata`: the call's, if read already)."""
        address = peer_address(context)
        if metadata is None:
            metadata = tuple(context.invocation_metadata() or ())
        key = bearer(metadata)
        if key is None:
            seated = any(k == SEAT_TOKEN for k, _ in metadata or ())
            if not self.policy.allows_anonymous(name, seated):
                await self._refuse(context, "API_KEY_MISSING", self.policy.refusal(name))
            return Caller.anonymous(address)
        account = await self._lookup(key, address, context) if key else None
        if account is None:
            await self._refuse(
                context,
                "API_KEY_INVALID",
                "the API key is unknown or revoked"
                if key
                else "authorization metadata must be 'Bearer <key>'",
            )
            raise AssertionError  # unreachable: refusing aborts
        allowed = self.policy.roles_for(name)
        if allowed is not None and account.role not in allowed:
            await self._refuse(
                context,
                "PERMISSION_DENIED",
                f"{name} needs the role {' or '.join(sorted(allowed))}; "
                f"account {account.name!r} is a {account.role}",
                needs=" or ".join(sorted(allowed)),
            )
        return Caller.of(account, address)

    async def _lookup(self, key: str, address: str, context: Context) -> Account | None:
        digest = key_hash(key)
        found, account = self.cache.get(digest)
        if found:
            return account
        wait = self.bad_keys.take(address, commit=False)
        if wait > 0:
            await refuse_rate_limited(
                context,
                wait,
                "bad_keys",
                "too many unknown API keys from this address: ",
                "bad_keys",
            )
        try:
            account = await self.accounts.by_key(digest)
            if account is not None and account.origin:
                await self.accounts.used(account.name)  # a self-registered key: kept now
        except UNAVAILABLE_ERRORS as error:
            await refuse(context, error)
        self.cache.put(digest, account)
        if account is None:
            self.bad_keys.take(address)
        return account

    @staticmethod
    async def _refuse(context: Context, reason: str, message: str, **metadata: Any) -> None:
        await refuse_reason(context, reason, message, **metadata)
