"""gzip for the `--http` listener's bodies: a request body is one gzip member, read in time
linear in its bytes and refused in the server's own words.

connectrpc's own gzip reads a body of many members by starting again at each and copying the
rest of the body each time: a 2 MB body of 104,448 empty members took 6.3 s of server CPU, the
event loop blocked (a health check waited 5.3 s), charged to nobody, since bodies are read
before any call's limits. One member is what every gzip tool and client sends.
"""

from __future__ import annotations

import gzip
import zlib

from connectrpc._shared import message_too_large_error

from kafana.service.web.status import refused

LEVEL = 6
"""Answers' compression level (connectrpc's default)."""


class Gzip:
    """The `gzip` encoding (connectrpc's `Compression` protocol)."""

    def name(self) -> str:
        """Its name in content-encoding and grpc-encoding headers."""
        return "gzip"

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        """An answer, compressed."""
        return gzip.compress(data, compresslevel=LEVEL)

    def decompress(
        self, data: bytes | bytearray | memoryview, read_max_bytes: int | None = None
    ) -> bytes:
        """A request body: one gzip member of at most `read_max_bytes` (RESOURCE_EXHAUSTED past
        it), else INVALID_ARGUMENT naming what is wrong (field `request`)."""
        reader = zlib.decompressobj(wbits=31)  # gzip header and trailer
        try:  # at most one byte past the bound (0: no bound)
            out = reader.decompress(data, 0 if read_max_bytes is None else read_max_bytes + 1)
        except zlib.error:
            raise refused("the request body is not gzip data") from None
        if read_max_bytes is not None and len(out) > read_max_bytes:
            raise message_too_large_error(read_max_bytes)
        if not reader.eof:
            raise refused("the request body's gzip data ends early")
        if reader.unused_data:
            raise refused("the request body is more than one gzip member")
        return out
