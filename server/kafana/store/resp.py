"""RESP2, the Redis protocol: commands packed as arrays of bulk strings, replies parsed."""

from __future__ import annotations

from typing import Any

from kafana.store.errors import StoreUnavailable, reply_error

Reply = bytes | int | list[Any] | Exception | None
"""A parsed reply; an error reply is its exception (`kafana.store.errors.reply_error`)."""


def pack(*args: bytes | str | int) -> bytes:
    """One command in RESP: an array of bulk strings.

    >>> pack("GET", "k")
    b'*2\\r\\n$3\\r\\nGET\\r\\n$1\\r\\nk\\r\\n'
    """
    return pack_bytes([arg if isinstance(arg, bytes) else str(arg).encode() for arg in args])


_HEADS = [b"$%d\r\n" % size for size in range(1024)]
"""The header of each bulk string up to 1 KiB, made once: `%` formatting costs more than the
rest of packing a command (the move path packs ~40 arguments a move)."""
_COUNTS = [b"*%d\r\n" % size for size in range(64)]


def pack_bytes(args: list[bytes]) -> bytes:
    """`pack` of arguments that are bytes already (the move path builds them so).

    >>> pack_bytes([b"GET", b"k" * 1500])[:24]
    b'*2\\r\\n$3\\r\\nGET\\r\\n$1500\\r\\nkkkk'
    """
    count = len(args)
    return (_COUNTS[count] if count < 64 else b"*%d\r\n" % count) + bulks(args)


def bulks(args: list[bytes]) -> bytes:
    """The bulk strings of `args` without the array's header: parts of a command packed ahead
    (`pack_bytes` of the whole is `*<count>` and the parts joined).

    >>> b"*2\\r\\n" + bulks([b"GET"]) + bulks([b"k"]) == pack_bytes([b"GET", b"k"])
    True
    """
    if not args:
        return b""
    heads = _HEADS  # each bulk's header and bytes, joined by the CRLF that ends each
    return (
        b"\r\n".join(
            [
                heads[len(arg)] + arg if len(arg) < 1024 else b"$%d\r\n%b" % (len(arg), arg)
                for arg in args
            ]
        )
        + b"\r\n"
    )


def parse(buffer: bytes | bytearray, pos: int) -> tuple[Reply, int] | None:
    """The reply at `pos` and the position after it; None when it is not all there.

    >>> parse(b"*2\\r\\n$2\\r\\nok\\r\\n:7\\r\\n", 0)
    ([b'ok', 7], 16)
    """
    end = buffer.find(b"\r\n", pos)
    if end < 0:
        return None
    kind = buffer[pos]
    line = bytes(buffer[pos + 1 : end])
    pos = end + 2
    if kind == 0x24:  # $ bulk string
        size = int(line)
        if size < 0:
            return None, pos
        if len(buffer) < pos + size + 2:
            return None
        return bytes(buffer[pos : pos + size]), pos + size + 2
    if kind == 0x3A:  # : integer
        return int(line), pos
    if kind == 0x2A:  # * array
        size = int(line)
        if size < 0:
            return None, pos
        items: list[Any] = []
        for _ in range(size):
            item = parse(buffer, pos)
            if item is None:
                return None
            items.append(item[0])
            pos = item[1]
        return items, pos
    if kind == 0x2B:  # + simple string
        return line, pos
    if kind == 0x2D:  # - error
        return reply_error(line.decode(errors="replace")), pos
    raise StoreUnavailable(f"unexpected reply from Redis: {bytes(buffer[pos - 2 : pos])!r}")
