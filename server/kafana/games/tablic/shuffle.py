"""The documented, language-neutral shuffle: the deck of hand k is a function of (seed, k).

Specification (see docs/shuffle.md for test vectors):

1. Start from the canonical deck `AC 2C .. KC AD .. KD AH .. KH AS .. KS` (positions 0..51).
2. The byte stream is SHA-256("kafana-tablic-v1:<seed>:<k>:<block>") for block = 0, 1, 2, ...
   concatenated, where <seed> and <k> are decimal integers without leading zeros and the
   text is ASCII. Read it as consecutive unsigned 32-bit big-endian words.
3. Fisher-Yates from the top: for i = 51 down to 1, draw words u until
   u < 2**32 - (2**32 mod (i + 1)) (rejection keeps it unbiased), then j = u mod (i + 1) and
   swap positions i and j.
4. The result, position 0 first, is the deck; position 0 is the first card dealt.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator

from kafana.errors import InvalidInputError
from kafana.games.tablic.cards import CANONICAL_DECK, Card

MAX_SEED = 2**64 - 1


def _words(seed: int, hand: int) -> Iterator[int]:
    block = 0
    while True:
        digest = hashlib.sha256(f"kafana-tablic-v1:{seed}:{hand}:{block}".encode("ascii")).digest()
        yield from struct.unpack(">8I", digest)
        block += 1


def check_seed(seed: int) -> int:
    """Validate a match seed: a whole number 0 .. 2**64 - 1."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise InvalidInputError(f"seed must be a whole number from 0 to 2**64-1, not {seed!r}")
    return seed


def shuffled_deck(seed: int, hand: int) -> tuple[Card, ...]:
    """The deck of hand number `hand` (0-based) of a match with this seed."""
    check_seed(seed)
    if not isinstance(hand, int) or hand < 0:
        raise InvalidInputError(f"hand number must be a whole number >= 0, not {hand!r}")
    deck = list(CANONICAL_DECK)
    words = _words(seed, hand)
    for i in range(51, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)
