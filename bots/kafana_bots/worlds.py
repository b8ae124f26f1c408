"""Sampled worlds: the hidden cards dealt at random, consistent with what a seat knows."""

from __future__ import annotations

import random
from itertools import accumulate
from math import log

from kafana.games.tablic import Card, View

from kafana_bots.knowledge import hidden_sizes, unseen
from kafana_bots.sim import HandSim

REDRAWS = 8
"""Rounds of weighted draws for a hand before the keys finish it (see `WorldSampler`)."""


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


def hands_known(view: View) -> bool:
    """True when the view fixes every hidden card: two seats and an empty deck."""
    return view.rules.players == 2 and view.deck_remaining == 0


class WorldSampler:
    """Samples the worlds of one decision: the position is built once, each world copies it
    and deals the unseen cards; a seat with card weights (`knowledge.hand_weights`) draws its
    hand with them (weighted sampling without replacement), the rest uniformly.

    A weighted hand is drawn card by card in proportion to the weights of the cards left
    (`random.choices` on cumulative weights, a card already dealt drawn again), which is the
    distribution of Efraimidis-Spirakis keys, at a few draws instead of a logarithm per unseen
    card; when the cards left weigh almost nothing next to those dealt (redrawn too often),
    the keys finish the hand."""

    def __init__(self, view: View, weights: dict[int, dict[int, float]] | None = None) -> None:
        sizes, self.deck_size = hidden_sizes(view)
        self.pool = [c.index for c in unseen(view)]
        empty: list[list[Card]] = [[] for _ in sizes]
        empty[view.seat if view.seat is not None else 0] = list(view.hand or ())
        self.base = sim_from_view(view, empty, [])
        self.sizes = [(s, n) for s, n in enumerate(sizes) if n]
        self.cumulative: dict[int, list[float]] = {}
        self.inverse: dict[int, dict[int, float]] = {}
        for seat, w in (weights or {}).items():
            if all(w[i] == 1.0 for i in self.pool):
                continue
            self.cumulative[seat] = list(accumulate(max(w[i], 1e-300) for i in self.pool))
            self.inverse[seat] = {i: 1.0 / w[i] if w[i] > 1e-300 else 1e300 for i in self.pool}
        assert sum(n for _, n in self.sizes) + self.deck_size == len(self.pool)

    def sample(self, rng: random.Random, fixed: dict[int, list[int]] | None = None) -> HandSim:
        """One world: a copy of the position with the hidden cards dealt (a seat in `fixed`
        given that hand, drawn from the unseen cards with its size)."""
        world = self.base.copy()
        hands = world.hands
        dealt: set[int] = set()
        fixed = fixed or {}
        for seat, hand in fixed.items():
            hands[seat] = sorted(hand)
            dealt.update(hand)
        for seat, size in self.sizes:
            cumulative = self.cumulative.get(seat)
            if cumulative is not None and seat not in fixed:
                hands[seat] = self._weighted(seat, size, cumulative, dealt, rng)
        random_ = rng.random
        pool = [c for c in self.pool if c not in dealt]
        pool.sort(key=lambda _: random_())  # twice as fast as a shuffle
        at = 0
        for seat, size in self.sizes:
            if seat not in self.cumulative and seat not in fixed:
                hands[seat] = sorted(pool[at : at + size])
                at += size
        world.deck = pool[at:]
        return world

    def _weighted(
        self,
        seat: int,
        size: int,
        cumulative: list[float],
        dealt: set[int],
        rng: random.Random,
    ) -> list[int]:
        """`size` cards for `seat`, none of `dealt` (which gets them too)."""
        hand: list[int] = []
        for _ in range(REDRAWS):
            for card in rng.choices(self.pool, cum_weights=cumulative, k=size - len(hand)):
                if card not in dealt:
                    dealt.add(card)
                    hand.append(card)
            if len(hand) == size:
                return sorted(hand)
        power = self.inverse[seat]  # Efraimidis-Spirakis keys for the rest, as logarithms
        left = [c for c in self.pool if c not in dealt]
        left.sort(key=lambda c: log(1.0 - rng.random()) * power[c], reverse=True)
        hand += left[: size - len(hand)]
        dealt.update(hand)
        return sorted(hand)
