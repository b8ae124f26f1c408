"""The language-neutral shuffle both games deal with (documented in docs/shuffle.md).

A permutation of a list is a pure function of a domain text such as
`kafana-tablic-v1:<seed>:<k>`: SHA-256 in counter mode over `<domain>:<block>` gives unsigned
32-bit big-endian words, drawn without bias by rejection, for Fisher-Yates from the top.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from functools import lru_cache
from operator import lt, mod
from typing import TypeVar

from kafana.errors import InvalidInputError

BOUNDS_ENTRIES = 64
"""List lengths whose draw bounds are kept (`_bounds`)."""

T = TypeVar("T")
MAX_SEED = 2**64 - 1


def check_seed(seed: int) -> int:
    """Validate a seed: a whole number 0 .. 2**64 - 1."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise InvalidInputError(f"seed must be a whole number from 0 to 2**64-1, not {seed!r}")
    return seed


def words(domain: str) -> Iterator[int]:
    """The endless word stream of `domain`: SHA-256(`<domain>:<block>`), block = 0, 1, ..."""
    block = 0
    while True:
        digest = hashlib.sha256(f"{domain}:{block}".encode("ascii")).digest()
        yield from struct.unpack(">8I", digest)
        block += 1


def permute(items: Sequence[T], domain: str) -> tuple[T, ...]:
    """Fisher-Yates from the top (i = n-1 .. 1), j drawn without bias from `words(domain)`."""
    out = list(items)
    n = len(out)
    if n < 2:
        return tuple(out)
    # Fast path: the first n-1 words, when none is rejected (each is, with a chance under
    # one in 10**7 for a deck of 52; then the exact loop below runs).
    blocks = (n + 6) // 8
    digests = b"".join(
        hashlib.sha256(f"{domain}:{block}".encode("ascii")).digest() for block in range(blocks)
    )
    drawn = struct.unpack(f">{8 * blocks}I", digests)
    bounds, limits = _bounds(n)
    if all(map(lt, drawn, limits)):
        for i, j in zip(range(n - 1, 0, -1), map(mod, drawn, bounds), strict=False):
            out[i], out[j] = out[j], out[i]
        return tuple(out)
    stream = words(domain)
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(stream)
        while u >= limit:
            u = next(stream)
        j = u % bound
        out[i], out[j] = out[j], out[i]
    return tuple(out)


@lru_cache(maxsize=BOUNDS_ENTRIES)
def _bounds(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For a list of n: each draw's bound (n .. 2) and its rejection limit (cached for the
    `BOUNDS_ENTRIES` list lengths used last: a deck of 52 or of a few decks)."""
    bounds = tuple(range(n, 1, -1))
    return bounds, tuple(2**32 - (2**32 % bound) for bound in bounds)
