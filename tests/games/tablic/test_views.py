"""Views: a seat sees its own hand and what is public, never another hand or the deck."""

from __future__ import annotations

import json
import random

import pytest
from kafana.games import tablic
from kafana.games.tablic import Rules

from .helpers import ALL_CONFIGS

SEED = 987_654_321


@pytest.mark.parametrize(("players", "partnerships"), ALL_CONFIGS)
def test_views_show_only_the_own_hand(players: int, partnerships: bool) -> None:
    rules = Rules.preset("serbian", players=players, partnerships=partnerships)
    state = tablic.new_match(rules, seed=SEED)
    rng = random.Random(1)
    for _ in range(15):
        state = state.apply(rng.choice(state.legal_moves()))
    undealt = set(tablic.CARDS) - set(state.table)
    undealt -= {card for s in range(players) for card in state.hand(s)}
    undealt -= {card for side in range(rules.sides) for card in state.captured(side)}
    assert len(undealt) == state.deck_remaining > 0
    for seat in range(players):
        view = state.view(seat)
        assert view.hand == state.hand(seat)
        assert view.side == rules.side_of(seat)
        assert view.hand_sizes == tuple(len(state.hand(s)) for s in range(players))
        data = view.to_dict()
        text = json.dumps(data)  # JSON-ready
        hidden = {card for s in range(players) if s != seat for card in state.hand(s)} | undealt
        assert not any(f'"{card}"' in text for card in hidden)
        assert str(SEED) not in text and str(SEED) not in repr(view)
        assert sorted(data["hand"]) == sorted(str(card) for card in state.hand(seat))


def test_public_view_has_no_hand() -> None:
    state = tablic.new_match(Rules.preset("tablanette", players=3), seed=SEED)
    view = state.public_view()
    assert view.hand is None and view.seat is None and view.side is None
    text = json.dumps(view.to_dict())
    for seat in range(3):
        assert not any(f'"{card}"' in text for card in state.hand(seat))
    assert view.hand_sizes == (6, 6, 6)
    assert view.table == state.table


def test_view_fields_hold_no_deck_or_seed() -> None:
    names = set(tablic.View.__dataclass_fields__)
    assert not names & {"seed", "deck", "decks", "hands"}
    assert "deck_remaining" in names and "hand_sizes" in names
