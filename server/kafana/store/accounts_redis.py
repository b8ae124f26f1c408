"""Accounts in Redis, on the store's one client: Lua scripts keep each change atomic.

Every key carries the hash tag `{<namespace>:accounts}` (`kafana.store.keys.account_keys`), so
on a Redis Cluster they share one slot and each script may touch them all. Key hashes are kept
as hex; the keys themselves never reach Redis.
"""

from __future__ import annotations

import builtins
import hmac
import json

from kafana.store.accounts import Account, AccountStore
from kafana.store.base import TableStore
from kafana.store.client import RedisClient, Script
from kafana.store.keys import account_keys
from kafana.store.redis_store import redis_client_of


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


class RedisAccounts(AccountStore):
    """Accounts in the Redis (or Redis Cluster) of `client`."""

    def __init__(self, client: RedisClient, *, namespace: str = "kafana") -> None:
        self._client = client
        self._keys = account_keys(namespace)
        self._create = Script.named("accounts_create")
        self._lookup = Script.named("accounts_lookup")
        self._revoke = Script.named("accounts_revoke")
        self._rotate = Script.named("accounts_rotate")
        self._expire = Script.named("accounts_expire")

    async def create(self, account: Account, digest: bytes, *, expires: bool = False) -> bool:
        """The create script: the name, its record and its key hash, or nothing."""
        fields: dict[str, object] = {"role": account.role, "created_ms": account.created_ms}
        if account.origin:
            fields["origin"] = account.origin
        args = [account.name.encode(), json.dumps(fields).encode(), digest.hex().encode()]
        if expires:
            args.append(b"%d" % account.created_ms)
        (made,) = await self._client.run(self._create, list(self._keys), args)
        return bool(made)

    async def used(self, name: str) -> None:
        """Off the unused set."""
        key = self._keys.unused
        await self._client.call(key, "ZREM", key, name)

    async def expire_unused(self, before_ms: int, limit: int) -> builtins.list[str]:
        """The expire script: the oldest unused accounts made before `before_ms` go."""
        (names,) = await self._client.run(
            self._expire, list(self._keys), [b"%d" % before_ms, b"%d" % limit]
        )
        assert isinstance(names, list)
        return [_text(name) for name in names]

    async def by_key(self, digest: bytes) -> Account | None:
        """One script call: the name the hash belongs to and its record."""
        (found,) = await self._client.run(self._lookup, list(self._keys), [digest.hex().encode()])
        if not found:
            return None
        assert isinstance(found, list)
        name, record, stored = (_text(v) for v in found)
        if not hmac.compare_digest(stored.encode(), digest.hex().encode()):
            return None
        return self._account(name, record, "")

    @staticmethod
    def _account(name: str, record: str, revoked: str) -> Account:
        data = json.loads(record)
        return Account(
            name,
            str(data["role"]),
            int(data["created_ms"]),
            int(revoked or 0),
            str(data.get("origin", "")),
        )

    async def get(self, name: str) -> Account | None:
        """By name."""
        found = await self.list_named([name])
        return found[0] if found else None

    async def list_named(self, names: list[str]) -> list[Account]:
        """The accounts of `names` that exist, in that order."""
        if not names:
            return []
        keys = self._keys
        records = await self._client.call(keys.info, "HMGET", keys.info, *names)
        revoked = await self._client.call(keys.revoked, "HMGET", keys.revoked, *names)
        assert isinstance(records, list) and isinstance(revoked, list)
        return [
            self._account(name, _text(record), _text(gone))
            for name, record, gone in zip(names, records, revoked, strict=True)
            if record is not None
        ]

    async def list(self, after: str, limit: int) -> list[Account]:
        """A page of names by lexical order, then their records."""
        key = self._keys.names
        start = "(" + after if after else "-"
        names = await self._client.call(key, "ZRANGE", key, start, "+", "BYLEX", "LIMIT", 0, limit)
        assert isinstance(names, list)
        return await self.list_named([_text(n) for n in names])

    async def revoke(self, name: str, at_ms: int) -> bool:
        """The revoke script: the key hash goes, the account stays, marked revoked."""
        (done,) = await self._client.run(
            self._revoke, list(self._keys), [name.encode(), b"%d" % at_ms]
        )
        return bool(done)

    async def rotate(self, name: str, digest: bytes) -> bool:
        """The rotate script: the old hash goes, the new one comes, atomically."""
        (done,) = await self._client.run(
            self._rotate, list(self._keys), [name.encode(), digest.hex().encode()]
        )
        return bool(done)


def accounts_for(store: TableStore) -> AccountStore:
    """The account store that goes with a table store: in its Redis."""
    return RedisAccounts(redis_client_of(store))
