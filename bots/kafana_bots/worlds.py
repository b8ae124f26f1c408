"""Sampled worlds: the hidden cards dealt at random, consistent with what a seat knows."""

from __future__ import annotations

import random

from kafana.games.tablic import Card, View

from kafana_bots.knowledge import hidden_sizes, unseen
from kafana_bots.sim import HandSim


def sample_hidden(view: View, rng: random.Random) -> tuple[list[list[Card]], list[Card]]:
    """Deal the unseen cards at random: every hand (the viewer's own kept) and the deck.

    Uniform over the deals consistent with the view: the right sizes, none of the seen cards.
    """
    pool = unseen(view)
    rng.shuffle(pool)
    sizes, deck_size = hidden_sizes(view)
    hands: list[list[Card]] = []
    at = 0
    for seat, size in enumerate(sizes):
        if seat == view.seat:
            hands.append(list(view.hand or ()))
        else:
            hands.append(pool[at : at + size])
            at += size
    deck = pool[at : at + deck_size]
    assert at + deck_size == len(pool), "the view's sizes do not match the unseen cards"
    return hands, deck


def sim_from_view(view: View, hands: list[list[Card]], deck: list[Card]) -> HandSim:
    """A simulator of the rest of the hand with these hidden cards filled in."""
    assert view.current_seat is not None, "the match is over"
    return HandSim.build(
        view.rules,
        hands=hands,
        table=view.table,
        deck=deck,
        captured=view.captured,
        tablas=view.tablas,
        last_capturer=view.last_capturer,
        current=view.current_seat,
        hand_no=view.hand_no,
    )


def sample_world(view: View, rng: random.Random) -> HandSim:
    """One sampled world as a simulator."""
    hands, deck = sample_hidden(view, rng)
    return sim_from_view(view, hands, deck)


def hands_known(view: View) -> bool:
    """True when the view fixes every hidden card: two seats and an empty deck."""
    return view.rules.players == 2 and view.deck_remaining == 0
