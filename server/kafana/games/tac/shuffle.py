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

from kafana.errors import InvalidInputError
from kafana.games.cards import CANONICAL_DECK, Card
from kafana.games.shuffle import MAX_SEED, check_seed, permute

__all__ = ["MAX_SEED", "canonical_deck", "check_seed", "shuffled_deck"]


def canonical_deck(decks: int = 1) -> tuple[Card, ...]:
    """The unshuffled cards of `decks` decks, one canonical deck after the other."""
    return CANONICAL_DECK * decks


def shuffled_deck(seed: int, decks: int = 1) -> tuple[Card, ...]:
    """The deck of a Tač game with this seed and number of decks."""
    check_seed(seed)
    if decks not in (1, 2):
        raise InvalidInputError(f"decks must be 1 or 2, not {decks!r}")
    return permute(canonical_deck(decks), f"kafana-tac-v1:{seed}:{decks}")
