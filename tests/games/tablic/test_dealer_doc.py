"""docs/records.md and docs/shuffle.md name the dealer and the first seat of hand k as the
engine deals: dealer (k - 1) mod n, first to play k mod n."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from kafana.games import tablic

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_dealer_of_hand_k_is_the_seat_before_k(players: int) -> None:
    rules = tablic.Rules.preset("serbian", players=players, target=300)
    state = tablic.new_match(rules, seed=players)
    rng = random.Random(players)
    seen = 0
    while not state.is_over and seen < 3:
        k = state.hand_no
        assert state.dealer == (k - 1) % players
        assert state.current_seat == k % players
        while not state.is_over and state.hand_no == k:
            state = state.apply(rng.choice(list(state.legal_moves())))
        seen += 1
    assert seen == 3


def test_the_docs_say_so() -> None:
    records = " ".join((ROOT / "docs/records.md").read_text().split())
    assert "the dealer of hand k is seat (k - 1) mod players" in records
    assert "seat k mod players plays first" in records
    shuffle = " ".join((ROOT / "docs/shuffle.md").read_text().split())
    assert "starting with the seat after the dealer (seat *k* mod *n* in hand *k*)" in shuffle
