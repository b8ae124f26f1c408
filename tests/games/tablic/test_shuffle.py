"""The documented shuffle, against a re-implementation written from its specification."""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Iterator

import pytest
from kafana.games import tablic
from kafana.games.shuffle import permute
from kafana.games.tablic import Rules, shuffle

from .helpers import finish_hand, trail_policy

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
# Found by brute-force search over seeds (hand 0): the first word drawn for i = 29 is
# >= 2**32 - (2**32 mod 30), so the specification rejects it and draws the next one.
REJECTION_SEED = 9_734_319


def reference_words(seed: int, hand: int) -> Iterator[int]:
    """SHA-256 of "kafana-tablic-v1:<seed>:<k>:<block>", blocks 0, 1, ..., as 32-bit words."""
    block = 0
    while True:
        text = "kafana-tablic-v1:" + str(seed) + ":" + str(hand) + ":" + str(block)
        digest = hashlib.sha256(text.encode("ascii")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def reference_deck(seed: int, hand: int, rejections: list[int] | None = None) -> list[str]:
    """Fisher-Yates from i = 51 down to 1 over the canonical deck, rejection-sampled."""
    deck = [rank + suit for suit in "CDHS" for rank in RANKS]
    words = reference_words(seed, hand)
    for i in range(51, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(words)
        while u >= limit:
            if rejections is not None:
                rejections.append(i)
            u = next(words)
        j = u % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def texts(seed: int, hand: int) -> list[str]:
    return [str(card) for card in tablic.shuffled_deck(seed, hand)]


def test_canonical_deck_order() -> None:
    assert [str(card) for card in tablic.CANONICAL_DECK] == [
        rank + suit for suit in "CDHS" for rank in RANKS
    ]


@pytest.mark.parametrize("seed", [0, 1, 7, 42, 123_456_789, 2**32, 2**63 + 5, 2**64 - 1])
def test_shuffle_matches_the_specification(seed: int) -> None:
    for hand in (0, 1, 2, 9, 10, 250):
        assert texts(seed, hand) == reference_deck(seed, hand)


def test_shuffle_matches_the_specification_on_many_seeds() -> None:
    for seed in range(300):
        assert texts(seed, seed % 5) == reference_deck(seed, seed % 5)


def test_shuffle_is_a_permutation() -> None:
    full = sorted(str(card) for card in tablic.CARDS)
    for seed in range(100):
        for hand in range(3):
            assert sorted(texts(seed, hand)) == full


def test_shuffle_is_deterministic() -> None:
    for seed in (0, 5, 2**64 - 1):
        assert tablic.shuffled_deck(seed, 3) == tablic.shuffled_deck(seed, 3)


def test_shuffle_differs_across_hands_and_seeds() -> None:
    decks = {tuple(texts(seed, hand)) for seed in range(30) for hand in range(6)}
    assert len(decks) == 30 * 6
    # Neighbouring seeds and hands share no long runs of cards in the same places.
    a, b = texts(1, 0), texts(2, 0)
    assert sum(x == y for x, y in zip(a, b, strict=True)) < 10


def test_rejection_sampling() -> None:
    # A rejected word must be skipped: the deck still matches the specification.
    rejections: list[int] = []
    deck = reference_deck(REJECTION_SEED, 0, rejections)
    assert rejections == [29]
    assert texts(REJECTION_SEED, 0) == deck
    # Without the rejection the deck would differ: the check above is not vacuous.
    naive = [rank + suit for suit in "CDHS" for rank in RANKS]
    words = reference_words(REJECTION_SEED, 0)
    for i in range(51, 0, -1):
        j = next(words) % (i + 1)
        naive[i], naive[j] = naive[j], naive[i]
    assert naive != deck


def test_matches_deal_from_the_seed() -> None:
    rules = Rules.preset("serbian", players=2)
    for seed in (0, 7, 99):
        deck = tablic.shuffled_deck(seed, 0)
        state = tablic.new_match(rules, seed=seed)
        assert sorted(state.table) == sorted(deck[:4])
        assert sorted(state.hand(0)) == sorted(deck[4:10])
        assert sorted(state.hand(1)) == sorted(deck[10:16])
        explicit = tablic.new_match(rules, decks=[deck])
        assert explicit.table == state.table
        assert [explicit.hand(s) for s in range(2)] == [state.hand(s) for s in range(2)]


def test_hand_k_of_a_match_uses_the_deck_of_k() -> None:
    rules = Rules.preset("serbian", players=3)
    state = tablic.new_match(rules, seed=31)
    for hand in range(3):
        deck = tablic.shuffled_deck(31, hand)
        first = hand % 3
        assert state.hand_no == hand
        assert sorted(state.table) == sorted(deck[:4])
        assert sorted(state.hand(first)) == sorted(deck[4:10])
        state = finish_hand(state, trail_policy)


def first_hand_of(state: tablic.MatchState, players: int) -> list[tablic.Card]:
    """The table and the first player's cards, as dealt."""
    return sorted([*state.table, *state.hand(state.hand_no % players)])


def test_explicit_decks_then_the_seed_or_the_decks_again() -> None:
    rules = Rules.preset("serbian")
    d0, d1 = tablic.shuffled_deck(500, 0), tablic.shuffled_deck(501, 0)

    def after_one_hand(state: tablic.MatchState) -> tablic.MatchState:
        return finish_hand(state, trail_policy)

    # Decks only: hand 1 uses deck 0 again (the decks repeat).
    only = after_one_hand(tablic.new_match(rules, decks=[d0]))
    assert first_hand_of(only, 2) == sorted([*d0[:4], *d0[4:10]])
    # Two decks: hand 1 uses the second.
    two = after_one_hand(tablic.new_match(rules, decks=[d0, d1]))
    assert first_hand_of(two, 2) == sorted([*d1[:4], *d1[4:10]])
    # A seed and a deck: the deck first, then the seed's deck of hand 1.
    both = tablic.new_match(rules, seed=77, decks=[d0])
    assert sorted(both.table) == sorted(d0[:4])
    seeded = tablic.shuffled_deck(77, 1)
    assert first_hand_of(after_one_hand(both), 2) == sorted([*seeded[:4], *seeded[4:10]])
    # Such a record replays.
    record = tablic.MatchRecord.from_text(after_one_hand(both).record().to_text())
    assert record.seed == 77 and record.decks == (d0,)
    assert record.replay().table == after_one_hand(both).table


@pytest.mark.skipif(shuffle._FAST_PERMUTE is None, reason="the pure build has no C shuffle")
def test_the_c_shuffle_equals_permute_on_any_list_and_domain() -> None:
    fast = shuffle._FAST_PERMUTE
    assert fast is not None
    rng = random.Random(7)
    for length in range(201):  # one to four SHA-256 blocks a draw
        domain = "".join(rng.choice(string.printable) for _ in range(length))
        items = tuple(range(rng.randint(0, 60)))
        expected = permute(items, domain)
        assert fast(items, domain, hashlib.sha256) == expected, (length, len(items))
    assert fast(tuple(tablic.CARDS), "x" * 201, hashlib.sha256) is None  # past its bound
    assert fast(tuple(tablic.CARDS), "\u0161", hashlib.sha256) is None  # not ASCII: Python raises
    assert fast(list(tablic.CARDS), "x", hashlib.sha256) is None  # type: ignore[arg-type]
    assert tablic.shuffled_deck(REJECTION_SEED, 0) == permute(
        tablic.CANONICAL_DECK, f"kafana-tablic-v1:{REJECTION_SEED}:0"
    )


@pytest.mark.skipif(shuffle._FAST_PERMUTE is None, reason="the pure build has no C shuffle")
def test_the_c_shuffle_takes_its_digests_from_the_hash_it_is_given() -> None:
    """The C draws read the standard library's digests: another hash gives another deck, a
    hash whose digests are not 32 bytes is refused, and the hash's own error comes through."""
    fast = shuffle._FAST_PERMUTE
    assert fast is not None
    deck = tuple(tablic.CARDS)
    assert fast(deck, "d", hashlib.sha256) == permute(deck, "d")
    assert fast(deck, "d", hashlib.sha3_256) != permute(deck, "d")
    with pytest.raises(ValueError, match="32-byte digests"):
        fast(deck, "d", hashlib.sha512)

    def broken(message: bytes) -> object:
        raise OSError(f"no hash for {message!r}")

    with pytest.raises(OSError, match="no hash for b'd:0'"):
        fast(deck, "d", broken)
