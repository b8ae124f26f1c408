"""Framing of the event log: records as varint length + bytes, concatenated."""

from __future__ import annotations


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


def frame(record: bytes) -> bytes:
    """A record as the log stores it: its length, then itself."""
    return varint(len(record)) + record


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
