"""The documented shuffle, re-derived independently; views that never show a closed pile."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from kafana.games import tac
from kafana.games.tac import Rules

from .helpers import play, position, random_game

ROOT = Path(__file__).resolve().parents[3]


def independent_shuffle(seed: int, decks: int) -> list[str]:
    """docs/tac.md's specification, written again without the engine's code."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for s in "CDHS" for r in ranks] * decks
    stream = b""
    block = 0
    pos = 0

    def word() -> int:
        nonlocal stream, block, pos
        if pos + 4 > len(stream):
            stream += hashlib.sha256(f"kafana-tac-v1:{seed}:{decks}:{block}".encode()).digest()
            block += 1
        value = int.from_bytes(stream[pos : pos + 4], "big")
        pos += 4
        return value

    for i in range(len(deck) - 1, 0, -1):
        while True:
            u = word()
            if u < 2**32 - 2**32 % (i + 1):
                break
        j = u % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize(("seed", "decks"), [(0, 1), (1, 2), (123456789, 1), (2**64 - 1, 2)])
def test_the_shuffle_matches_an_independent_implementation(seed: int, decks: int) -> None:
    assert [str(c) for c in tac.shuffled_deck(seed, decks)] == independent_shuffle(seed, decks)


def test_the_shuffle_vectors_in_the_docs_match_the_engine() -> None:
    text = (ROOT / "docs" / "tac.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\d) \| `([^`]+)` \|$", text, flags=re.MULTILINE)
    assert len(rows) >= 4
    for seed, decks, deck in rows:
        assert " ".join(map(str, tac.shuffled_deck(int(seed), int(decks)))) == deck


def test_a_bad_seed_is_refused() -> None:
    for seed in (-1, 2**64, "7", True):
        with pytest.raises(tac.InvalidInputError, match="seed must be"):
            tac.new_game(Rules(), seed=seed)  # type: ignore[arg-type]
    with pytest.raises(tac.InvalidInputError, match="needs a seed or a deck"):
        tac.new_game(Rules())


def test_views_at_the_start_show_nothing_of_the_deal() -> None:
    one = tac.new_game(Rules(players=4, decks=2), seed=1)
    two = tac.new_game(Rules(players=4, decks=2), seed=2)
    assert one.closed(0) != two.closed(0)
    for seat in range(4):
        assert one.view(seat) == two.view(seat)
    assert one.public_view() == two.public_view()


def test_views_show_only_closed_pile_sizes_even_to_their_owner() -> None:
    state = position(Rules(tac_calls=True), ["5H 9C", "KS 8D QH"], ["", "7C"], "AC")
    state = play(state, "flip")
    view = state.view(1)
    assert view.closed_sizes == (1, 3) and view.turned is not None
    data = view.to_dict()
    shown = " ".join(str(v) for v in data.values())
    for hidden in ("9C", "KS", "8D", "QH"):
        assert hidden not in shown
    assert "closed" not in {f for f in data if data[f] and f != "closed_sizes"}
    with pytest.raises(tac.InvalidInputError, match="no seat 2"):
        state.view(2)


def test_two_games_differing_only_in_closed_piles_look_the_same() -> None:
    rules = Rules(players=3, tac_calls=True)
    one = position(rules, ["4H 9C JD", "KS 8D", "QH"], ["", "7C", ""], "AC 2C 3C")
    two = position(rules, ["4H JD 9C", "8D KS", "QH"], ["", "7C", ""], "AC 2C 3C")
    one, two = play(one, "flip", "play X->C"), play(two, "flip", "play X->C")
    assert one.view(0) == two.view(0) and one.public_view() == two.public_view()


def test_a_finished_game_view_has_places() -> None:
    state, _ = random_game(Rules(players=3), seed=8, check=False)
    view = state.public_view()
    assert view.is_over and view.phase == "over" and view.places == state.places()
    assert view.to_dict()["places"] == list(state.places() or ())


def test_the_three_player_example_of_the_docs() -> None:
    state = tac.new_game(Rules(players=3), seed=7)
    assert [str(c) for c in state.central] == ["AD"]
    assert [str(c) for c in state.closed(0)][:5] == ["4S", "8D", "QS", "10C", "3C"]
    assert "seat 0's closed pile begins `4S 8D QS 10C 3C ...`" in (ROOT / "docs/tac.md").read_text()
