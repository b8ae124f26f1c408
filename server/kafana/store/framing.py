"""Framing of the event log: records as varint length + bytes, concatenated; and the log's
digest, which names a history, so a writer can tell the store which history it decided on."""

from __future__ import annotations

import hashlib

GENESIS = "0" * 16
"""The digest of an empty log."""


def varint(value: int) -> bytes:
    """Unsigned LEB128."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at `pos` and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint in the event log")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


_SHORT = [bytes((size,)) for size in range(0x80)]
"""The one-byte varints: a record's length, nearly always (a move's record is ~5 bytes)."""


def frame(record: bytes) -> bytes:
    """A record as the log stores it: its length, then itself."""
    size = len(record)
    return (_SHORT[size] if size < 0x80 else varint(size)) + record


def split(blob: bytes) -> list[bytes]:
    """The records of a run of framed records."""
    out = []
    pos = 0
    while pos < len(blob):
        size, pos = read_varint(blob, pos)
        if pos + size > len(blob):
            raise ValueError("truncated record in the event log")
        out.append(blob[pos : pos + size])
        pos += size
    return out


def skip(blob: bytes, count: int) -> int:
    """The offset just after the first `count` records of `blob` (its length if fewer)."""
    pos = 0
    for _ in range(count):
        if pos >= len(blob):
            break
        size, pos = read_varint(blob, pos)
        pos += size
    return min(pos, len(blob))


_SHA1 = hashlib.sha1(usedforsecurity=False)
"""An empty SHA-1 that `chain` copies (OpenSSL's digest fetched once, not once a move)."""


def chain(digest: str, framed: bytes) -> str:
    """The digest of a log whose digest was `digest`, once the framed record `framed` is appended.

    16 hex digits of SHA-1 over the previous digest and the frame: `append.lua` computes the same
    with `redis.sha1hex`, so the store holds the digest of the log it holds. Two logs with one
    digest are the same log: a process whose cached log has another digest than the store's
    holds a history the store lost (a failover with lag, a crash with `appendfsync everysec`).
    """
    sha = _SHA1.copy()  # a copy, not `hashlib.sha1(...)`: that looks the digest up by name
    sha.update(digest.encode() + framed)
    return sha.hexdigest()[:16]


def digest_of(blob: bytes, digest: str = GENESIS) -> str:
    """The digest after the framed records of `blob`, continued from `digest`."""
    pos = 0
    while pos < len(blob):
        size, start = read_varint(blob, pos)
        end = start + size
        if end > len(blob):
            raise ValueError("truncated record in the event log")
        digest = chain(digest, blob[pos:end])
        pos = end
    return digest
