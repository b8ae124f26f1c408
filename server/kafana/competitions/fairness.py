"""Fair deals: a seed is committed to (SHA-256) before a match and revealed after it.

The commitment of seed *s* is ``SHA-256("kafana-seed-v1:" + s)`` with *s* in decimal ASCII,
no leading zeros, written as 64 lowercase hex digits. Anyone holding the revealed seed can
recompute the commitment and every deal (`kafana.games.tablic.shuffled_deck`).

>>> commitment(7)
'799e5f4b5647e2678ca2929d181cc7dc1ae5e57ecce3077c352e48e5ebc8ce3b'
>>> check_commitment(7, commitment(7)), check_commitment(8, commitment(7))
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from kafana.errors import InvalidInputError

SCHEME = "kafana-seed-v1"
MAX_SEED = 2**64 - 1


def seed_bytes(seed: int) -> bytes:
    """The committed byte string: ``b"kafana-seed-v1:<seed>"``.

    >>> seed_bytes(42)
    b'kafana-seed-v1:42'
    """
    if not 0 <= seed <= MAX_SEED:
        raise InvalidInputError(f"a seed is a whole number from 0 to 2^64-1, not {seed}")
    return f"{SCHEME}:{seed}".encode("ascii")


def commitment(seed: int) -> str:
    """The published commitment of `seed`: SHA-256 of `seed_bytes(seed)` in hex."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def check_commitment(seed: int, published: str) -> bool:
    """True when `published` is the commitment of `seed` (compared in constant time)."""
    return hmac.compare_digest(commitment(seed), published.strip().lower())


def new_seed() -> int:
    """A fresh unpredictable seed (64 bits from the OS)."""
    return secrets.randbits(64)
