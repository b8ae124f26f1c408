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
from collections.abc import Callable

from kafana.errors import InvalidInputError
from kafana.games.cards import CANONICAL_DECK, Card
from kafana.games.shuffle import MAX_SEED, check_seed, permute
from kafana.games.tablic.capture import NATIVE

__all__ = ["MAX_SEED", "check_seed", "shuffled_deck"]

FastPermute = Callable[[tuple[Card, ...], str, Callable[[bytes], object]], tuple[Card, ...] | None]
_FAST_PERMUTE: FastPermute | None = None if NATIVE is None else NATIVE.permute
"""`permute` in C (the compiled build: the draws without Python objects, each block's digest by
the standard library's `hashlib.sha256`, passed in), or None; tests/games/tablic/test_shuffle.py
checks it against `permute` and the specification."""


def shuffled_deck(seed: int, hand: int) -> tuple[Card, ...]:
    """The deck of hand number `hand` (0-based) of a match with this seed."""
    check_seed(seed)
    if not isinstance(hand, int) or isinstance(hand, bool) or hand < 0:
        raise InvalidInputError(f"hand number must be a whole number >= 0, not {hand!r}")
    domain = f"kafana-tablic-v1:{seed}:{hand}"
    if _FAST_PERMUTE is not None:
        deck = _FAST_PERMUTE(CANONICAL_DECK, domain, hashlib.sha256)
        if deck is not None:
            return deck
    return permute(CANONICAL_DECK, domain)
