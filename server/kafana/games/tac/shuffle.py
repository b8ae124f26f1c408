"""The documented, language-neutral shuffle of Tač: the deck is a function of (seed, decks).

Specification (see docs/tac.md for test vectors):

1. Start from the canonical deck `AC 2C .. KC AD .. KD AH .. KH AS .. KS`, repeated once per
   deck (positions 0..51, or 0..103 with two decks).
2. The byte stream is SHA-256("kafana-tac-v1:<seed>:<decks>:<block>") for block = 0, 1, 2, ...
   concatenated (decimal integers without leading zeros, ASCII), read as consecutive unsigned
   32-bit big-endian words.
3. Fisher-Yates from the top: for i = N-1 down to 1, draw words u until
   u < 2**32 - (2**32 mod (i + 1)), then j = u mod (i + 1) and swap positions i and j.
4. The result, position 0 first, is the deck; position 0 is the first card dealt.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator

from kafana.errors import InvalidInputError
from kafana.games.tablic.cards import CANONICAL_DECK, Card

MAX_SEED = 2**64 - 1


def _words(seed: int, decks: int) -> Iterator[int]:
    block = 0
    while True:
        digest = hashlib.sha256(f"kafana-tac-v1:{seed}:{decks}:{block}".encode("ascii")).digest()
        yield from struct.unpack(">8I", digest)
        block += 1


def check_seed(seed: int) -> int:
    """Validate a game seed: a whole number 0 .. 2**64 - 1."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise InvalidInputError(f"seed must be a whole number from 0 to 2**64-1, not {seed!r}")
    return seed


def canonical_deck(decks: int = 1) -> tuple[Card, ...]:
    """The unshuffled cards of `decks` decks, one canonical deck after the other."""
    return CANONICAL_DECK * decks


def shuffled_deck(seed: int, decks: int = 1) -> tuple[Card, ...]:
    """The deck of a Tač game with this seed and number of decks."""
    check_seed(seed)
    if decks not in (1, 2):
        raise InvalidInputError(f"decks must be 1 or 2, not {decks!r}")
    deck = list(canonical_deck(decks))
    words = _words(seed, decks)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)
