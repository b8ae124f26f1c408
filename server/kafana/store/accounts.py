"""Accounts and their API keys, behind one interface (Redis: `accounts_redis`; memory here).

Game-agnostic: an account is a name, a role (a string the service gives meaning to), when it
was made and when revoked. Its key is a 256-bit random secret shown once to its holder; the
store keeps only the key's SHA-256 and finds accounts by it.

>>> key = new_key()
>>> key.startswith(KEY_PREFIX), len(key_hash(key))
(True, 32)
"""

from __future__ import annotations

import builtins
import hashlib
import secrets
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

KEY_PREFIX = "kfk_"  # lets secret scanners and people recognise a Kafana key
KEY_BYTES = 32  # 256 bits
KEY_CHARS = 64
"""Longer than any key `new_key` makes (47 characters): a longer bearer string is no key."""


def new_key() -> str:
    """A fresh API key: `kfk_` and 256 random bits, URL-safe base64."""
    return KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)


def key_hash(key: str) -> bytes:
    """The SHA-256 of `key`: all the store ever keeps of it."""
    return hashlib.sha256(key.encode()).digest()


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Account:
    """One account; `revoked_ms` is 0 while it is active."""

    name: str
    role: str
    created_ms: int
    revoked_ms: int = 0
    origin: str = ""  # self-registered: the address it was registered from ("" otherwise)

    @property
    def active(self) -> bool:
        """Whether its key is accepted."""
        return not self.revoked_ms


class AccountStore(ABC):
    """Where accounts live. Every method is safe to call from many processes at once."""

    @abstractmethod
    async def create(self, account: Account, digest: bytes, *, expires: bool = False) -> bool:
        """Add `account` with the key hash `digest`; False when the name is taken. `expires`:
        deleted by `expire_unused` unless its key is used (`used`) first."""

    @abstractmethod
    async def by_key(self, digest: bytes) -> Account | None:
        """The active account whose key hashes to `digest`, else None."""

    @abstractmethod
    async def get(self, name: str) -> Account | None:
        """The account called `name` (active or revoked), else None."""

    @abstractmethod
    async def list(self, after: str, limit: int) -> list[Account]:
        """Up to `limit` accounts by name, the first after `after` ("": from the start)."""

    @abstractmethod
    async def revoke(self, name: str, at_ms: int) -> bool:
        """Refuse the account's key from now on; False when there is no such account."""

    @abstractmethod
    async def rotate(self, name: str, digest: bytes) -> bool:
        """Replace the key of an active account by the one hashing to `digest`; False if none."""

    @abstractmethod
    async def used(self, name: str) -> None:
        """The account's key was used: it no longer expires unused."""

    @abstractmethod
    async def expire_unused(self, before_ms: int, limit: int) -> builtins.list[str]:
        """Delete up to `limit` accounts made (self-registered: `create(..., expires=True)`)
        before `before_ms` whose key was never used; their names."""
