"""`pack_bytes` at the edges of its made-once headers: every size reads back as sent."""

from __future__ import annotations

import pytest
from kafana.store.resp import pack_bytes, parse


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65])
@pytest.mark.parametrize("size", [0, 9, 10, 1023, 1024, 5000])
def test_packed_arguments_parse_back_whole(count: int, size: int) -> None:
    args = [bytes([i % 256]) * size for i in range(count)]
    packed = pack_bytes(args)
    assert packed.startswith(b"*%d\r\n" % count)
    if count:
        assert packed[len(b"*%d\r\n" % count) :].startswith(b"$%d\r\n" % size)
    assert parse(packed, 0) == (args, len(packed))
