"""Fair deals: a 256-bit secret is committed to before a game and revealed after it.

A game's **secret** is 32 bytes from the operating system's CSPRNG, written as 64 lowercase
hex digits. Everything public comes from it by SHA-256 with a scheme prefix:

- the **commitment**, published when the game is announced: ``SHA-256("kafana-commit-v2:" +
  secret)`` in hex. It is a hash of the whole secret, so it tells nothing about the deal
  (guessing it means guessing 256 bits);
- the **deal seed** the table shuffles with (`kafana.games` deals are a pure function of a
  64-bit seed): the first 8 bytes of ``SHA-256("kafana-deal-v2:" + secret)``, big-endian.

Anyone holding the revealed secret recomputes both, then every deal and every move.

An organiser who wants a reproducible event may choose an event seed instead
(`chosen_secret`). A seed people choose is small and guessable (4242 was recovered from a
published commitment in 0.0 s when secrets came from the seed alone), so it is mixed with the
event's **salt**: 256 bits from the server's CSPRNG, drawn when the event starts, committed to
(``commitment(salt)``, published at once) and revealed when the event is over. Until then no
commitment can be brute-forced (guessing means guessing the salt); afterwards seed and salt
replay every deal. Such secrets are only made behind an explicit flag and every record made
from one says so (``meta deal organiser-chosen``).

>>> s = "00" * 32
>>> commitment(s)[:16], deal_seed(s)
('70f55c4f8fbfa398', 5488105151104160710)
>>> check_commitment(s, commitment(s)), check_commitment("11" * 32, commitment(s))
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from kafana.errors import InvalidInputError

SCHEME = "v2"
SECRET_HEX = 64
MAX_SEED = 2**64 - 1
CHOSEN = "organiser-chosen"
"""The value of the ``meta deal`` line of a record dealt from an organiser-chosen seed."""


def check_secret(secret: str) -> str:
    """`secret` if it is 64 lowercase hex digits, else InvalidInputError."""
    if len(secret) != SECRET_HEX or any(c not in "0123456789abcdef" for c in secret):
        raise InvalidInputError(f"a secret is 64 lowercase hex digits, not {secret[:80]!r}")
    return secret


def new_secret() -> str:
    """A fresh unpredictable secret: 256 bits from the OS (`secrets`)."""
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    """The published commitment of `secret`: SHA-256 of ``kafana-commit-v2:<secret>``."""
    return hashlib.sha256(f"kafana-commit-{SCHEME}:{check_secret(secret)}".encode()).hexdigest()


def deal_seed(secret: str) -> int:
    """The 64-bit seed the game's table deals from."""
    digest = hashlib.sha256(f"kafana-deal-{SCHEME}:{check_secret(secret)}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def check_commitment(secret: str, published: str) -> bool:
    """True when `published` is the commitment of `secret` (compared in constant time)."""
    try:
        expected = commitment(secret)
    except InvalidInputError:
        return False
    return hmac.compare_digest(expected, published.strip().lower())


def chosen_secret(event_seed: int, label: str, salt: str) -> str:
    """The secret of game `label` of an event whose organiser chose `event_seed`:
    ``SHA-256("kafana-chosen-v3:<event seed>:<salt>:<label>")`` in hex.

    `salt` is the event's server salt (`new_secret`, committed when the event starts and
    revealed at its end): without it nobody can predict or brute-force a secret from the seed;
    with it (after the event) anyone replays them. Use only behind an explicit flag, and mark
    the records (``meta deal organiser-chosen``).

    >>> salt = "11" * 32
    >>> chosen_secret(1, "r1-g1", salt) == chosen_secret(1, "r1-g1", salt)
    True
    >>> len({chosen_secret(1, "r1-g1", salt), chosen_secret(1, "r1-g2", salt),
    ...      chosen_secret(1, "r1-g1", "22" * 32)})
    3
    """
    if not 0 <= event_seed <= MAX_SEED:
        raise InvalidInputError(f"an event seed is from 0 to 2^64-1, not {event_seed}")
    text = f"kafana-chosen-v3:{event_seed}:{check_secret(salt)}:{label}"
    return hashlib.sha256(text.encode()).hexdigest()
