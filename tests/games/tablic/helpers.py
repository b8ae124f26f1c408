"""Small helpers shared by the Tablić tests: card texts, exact decks, scripted play."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move, Rules

ALL_CONFIGS: tuple[tuple[int, bool], ...] = ((2, False), (3, False), (4, False), (4, True))
"""(players, partnerships) of every table shape."""

# Card points straight from the tables of RULES.md, independent of `Rules.card_points`.
SERBIAN_POINTS = {
    c: (c.rank in (1, 10, 11, 12, 13)) + (c.text in ("10D", "2C")) for c in tablic.CARDS
}
WILD_JACK_POINTS = {
    c: (c.rank == 1) + 3 * (c.text == "10D") + 2 * (c.text == "2C") for c in tablic.CARDS
}
PRESET_POINTS = {
    "serbian": SERBIAN_POINTS,
    "wild_jack": WILD_JACK_POINTS,
    "tabinet": WILD_JACK_POINTS,
    "tablanette": WILD_JACK_POINTS,
}


def c(text: str) -> Card:
    """One card from its text."""
    return Card.parse(text)


def cs(text: str) -> list[Card]:
    """Cards from a space-separated text."""
    return [Card.parse(t) for t in text.split()]


def fs(text: str) -> frozenset[Card]:
    """A frozenset of cards from a space-separated text."""
    return frozenset(cs(text))


def texts(cards: Iterable[Card]) -> list[str]:
    """Canonical texts in string order, for readable assertions."""
    return sorted(card.text for card in cards)


def capture_texts(found: Iterable[frozenset[Card]]) -> list[list[str]]:
    """A set of captures as sorted lists of sorted texts."""
    return sorted(texts(capture) for capture in found)


def build_deck(table: str, *hands: str, players: int = 2, filler: str = "") -> list[Card]:
    """A 52-card deck: `table` (4 cards), then one 6-card block per seat of the first deal.

    Hand blocks shorter than 6 cards are padded, and the rest of the deck filled, with the
    cards of `filler` first, then every other card in canonical order (kings first, so that
    padding rarely makes sums). Blocks after the first `players` ones continue the deck.
    """
    fixed = cs(table) + [card for hand in hands for card in cs(hand)]
    assert len(set(fixed)) == len(fixed), "a card appears twice"
    spare = [card for card in cs(filler) if card not in fixed]
    spare += [
        card for card in reversed(tablic.CANONICAL_DECK) if card not in fixed and card not in spare
    ]
    deck = cs(table)
    assert len(deck) == 4
    for hand in hands:
        block = cs(hand)
        while len(block) < 6:
            block.append(spare.pop(0))
        deck += block
    deck += spare
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


def trail_policy(state: MatchState) -> Move:
    """Always trail the lowest card (without generating the captures of a growing table)."""
    seat = state.current_seat
    assert seat is not None
    return Move(min(state.hand(seat)))


def greedy_policy(state: MatchState) -> Move:
    """Take the most cards possible (ties: first generated)."""
    return max(state.legal_moves(), key=lambda m: len(m.captured))


def random_policy(rng: random.Random) -> Callable[[MatchState], Move]:
    """Uniformly random legal moves from a seeded generator."""
    return lambda state: rng.choice(state.legal_moves())


def play_until(
    state: MatchState,
    policy: Callable[[MatchState], Move],
    stop: Callable[[MatchState], bool],
    limit: int = 100_000,
) -> MatchState:
    """Apply `policy` moves until `stop(state)` or the match ends."""
    for _ in range(limit):
        if state.is_over or stop(state):
            return state
        state = state.apply(policy(state))
    raise AssertionError("play_until: no end after the move limit")


def finish_hand(state: MatchState, policy: Callable[[MatchState], Move]) -> MatchState:
    """Play until the current hand is scored (the next hand starts or the match ends)."""
    hand = state.hand_no
    return play_until(state, policy, lambda s: s.hand_no != hand)


def is_last_card_of_hand(state: MatchState) -> bool:
    """Whether the next move plays the last card of the hand."""
    held = sum(len(state.hand(s)) for s in range(state.rules.players))
    return state.deck_remaining == 0 and held == 1


def rules_variants() -> list[tuple[str, Rules]]:
    """Every preset at every table shape, with readable ids."""
    out = []
    for preset in tablic.PRESETS:
        for players, partnerships in ALL_CONFIGS:
            rules = Rules.preset(preset, players=players, partnerships=partnerships)
            out.append((f"{preset}-{'2v2' if partnerships else players}", rules))
    return out
