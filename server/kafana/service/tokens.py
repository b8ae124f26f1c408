"""Secret tokens: made by `secrets`, stored only as hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh unguessable token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> bytes:
    """What the store keeps instead of the token."""
    return hashlib.sha256(token.encode()).digest()


HASHES_KEPT = 65_536
"""Presented tokens whose hash `presented_hash` keeps (all forgotten past it): ~7 MB."""
_presented: dict[str, bytes] = {}


def presented_hash(token: str) -> bytes:
    """`token_hash` of a token a call presents, kept for its next call (a seat's token comes
    with each of its moves: one SHA-256 a token, not one a move)."""
    digest = _presented.get(token)
    if digest is None:
        if len(_presented) >= HASHES_KEPT:
            _presented.clear()
        digest = _presented[token] = token_hash(token)
    return digest


def matches(token: str, stored_hash: bytes) -> bool:
    """Whether `token` is the one whose hash was stored."""
    return bool(token) and hmac.compare_digest(token_hash(token), stored_hash)


def dedupe_tag(seat: int, client_move_id: str) -> str:
    """The short tag of one seat's client move id kept in the event log ("" for no id)."""
    if not client_move_id:
        return ""
    digest = hashlib.blake2b(
        f"{seat}:{client_move_id}".encode(), digest_size=6
    )  # 48 bits: a collision needs the same seat and seq
    return digest.hexdigest()
