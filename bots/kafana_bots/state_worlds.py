"""Sampled worlds in the rules engine itself (`MatchState`), for rules the simulator does not
know: `building` (`kafana_bots.sim.HandSim` has no builds).

A seat's view shows the table's builds but not how to get a `MatchState` with them, so the
world is made by replaying the hand: a deck for one hand is laid out from what the seat saw
(the hand's opening table, each seat's cards of every deal so far: the ones it played, and for
the current deal the hand it holds, sampled for the other seats) and the sampled undealt cards;
a match of that one deck, its seats turned so that the hand's first seat is seat 0, replays the
hand's moves to the present. Other worlds of the same decision are that state with the hidden
cards dealt again (`MatchState.determinize`). Search in it plays the greedy policy of the
`greedy` bot (`greedy.greedy_value`) and scores a playout cut short as `rollout.estimate` does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from kafana.errors import IllegalMoveError
from kafana.games.cards import CARDS, Card
from kafana.games.tablic import MatchState, Rules, View, engine_for, new_match
from kafana.games.tablic.builds import build_values
from kafana.games.tablic.state import TABLE_SIZE, deal_size

from kafana_bots.greedy import greedy_value
from kafana_bots.knowledge import LoggedMove, PlayLog
from kafana_bots.rollout import score_estimate
from kafana_bots.sim import HandSim
from kafana_bots.worlds import WorldSampler

BUILD_TRIES = 50
"""Worlds drawn, with `building`, to find one where the other seats' builds were legal."""


class Replayed:
    """The hand replayed with one sampled world; `world(hands, deck)` deals another.

    Seats are turned by the hand's first seat (`virtual = (seat - first) % players`), since
    the one-hand match starts at seat 0; `seat`, `side` are this seat's in the replayed match.
    """

    def __init__(
        self,
        view: View,
        start_table: Sequence[Card],
        moves: Sequence[LoggedMove],
        hands: Sequence[Sequence[Card]],
        deck: Sequence[Card],
    ) -> None:
        rules = view.rules
        n = rules.players
        assert view.seat is not None
        self.first = view.hand_no % n
        self.rules = rules
        self.seat = self.virtual(view.seat)
        self.side = rules.side_of(self.seat)
        played: list[list[list[Card]]] = []  # per deal, per real seat: the cards it played
        left = len(rules.points_by_index) - TABLE_SIZE
        at = 0
        while True:
            size = n * deal_size(left, n)
            assert size, "no deal left: the hand is over"
            deal: list[list[Card]] = [[] for _ in range(n)]
            for seat, move, _ in moves[at : at + size]:
                deal[seat].append(move.card)
            played.append(deal)
            if len(moves) - at < size:
                break
            at += size
            left -= size
        layout: list[Card] = list(start_table)
        for k, deal in enumerate(played):
            for v in range(n):
                real = (v + self.first) % n
                cards = list(deal[real])
                if k == len(played) - 1:
                    cards += list(hands[real])
                layout += sorted(cards)
        layout += deck
        state = new_match(rules, decks=[layout])
        for seat, move, _ in moves:
            state = state.apply(move, self.virtual(seat))
        self.state = state

    def virtual(self, seat: int) -> int:
        """The replayed match's seat of a real seat."""
        return (seat - self.first) % self.rules.players

    def world(self, hands: Sequence[Sequence[Card]], deck: Sequence[Card]) -> MatchState:
        """The position with the hidden cards dealt so (hands by real seat, deck in order)."""
        n = self.rules.players
        turned = [hands[(v + self.first) % n] for v in range(n)]
        return self.state.determinize(turned, deck)


Need = tuple[int, frozenset[int]]
"""A seat that must hold a card of one of these ranks."""


def build_needs(view: View, deal: Sequence[LoggedMove]) -> list[Need]:
    """What the other seats' builds this deal say they hold: a build's value is the capture
    value of a card left in the maker's hand, so unless it played such a card later in the
    deal, it holds one still."""
    engine = engine_for(view.rules)
    by_rank = {rank: build_values(engine, rank) for rank in range(1, 14)}
    needs: list[Need] = []
    for k, (seat, move, _) in enumerate(deal):
        if seat == view.seat or not move.is_build:
            continue
        value = move.build_value
        later = [m.card.rank for s, m, _ in deal[k + 1 :] if s == seat]
        if any(value in by_rank[rank] for rank in later):
            continue
        needs.append((seat, frozenset(r for r, values in by_rank.items() if value in values)))
    return needs


def meets(world: HandSim, needs: Sequence[Need]) -> bool:
    """Whether a sampled world's hands hold what `build_needs` says."""
    return all(any(c // 4 + 1 in ranks for c in world.hands[seat]) for seat, ranks in needs)


def cards_of(world: HandSim) -> tuple[list[list[Card]], list[Card]]:
    """A sampled world's hands (by seat) and deck as cards."""
    return [[CARDS[i] for i in hand] for hand in world.hands], [CARDS[i] for i in world.deck]


def building_worlds(
    view: View, log: PlayLog, rng: random.Random, *, inference: bool = True
) -> tuple[Callable[[], MatchState], int] | None:
    """Sampled worlds of `view`'s position as engine states (with `building`), and the side
    of `view`'s seat in them; None where `log` was not told every move of the hand, or no
    world sampled replays it. Each world's hidden cards are dealt at random, with the other
    seats' card weights from `log` (`inference`), redrawn up to `BUILD_TRIES` times until
    the builds the others made this deal were legal for the hands drawn."""
    deal = log.deal_moves(view)
    if deal is None:
        return None
    sampler = WorldSampler(view, log.weights(view) if inference else None)
    needs = build_needs(view, deal)

    def sample() -> HandSim:
        for _ in range(BUILD_TRIES):
            world = sampler.sample(rng)
            if meets(world, needs):
                return world
        return world

    try:
        replayed = Replayed(view, log.opening, log.moves, *cards_of(sample()))
    except IllegalMoveError:
        return None
    return (lambda: replayed.world(*cards_of(sample()))), replayed.side


def state_playout(state: MatchState, plies: int) -> list[float]:
    """Points per side after at most `plies` greedy moves (`greedy_value`, the first of
    equally good moves): the hand's result if it ends, else `rollout.score_estimate`."""
    hand = len(state.hand_results)
    while plies > 0 and state.current_seat is not None and len(state.hand_results) == hand:
        view = state.view(state.current_seat)
        moves = state.legal_moves()
        best = max(range(len(moves)), key=lambda i: greedy_value(view, moves[i]))
        state = state.apply(moves[best])
        plies -= 1
    if len(state.hand_results) > hand:
        return [float(p) for p in state.hand_results[hand].points]
    return estimate_state(state)


def estimate_state(state: MatchState) -> list[float]:
    """`rollout.score_estimate` of a state in the middle of a hand."""
    rules: Rules = state.rules
    value = rules.points_by_index
    sides = range(rules.sides)
    piles = [state.captured(s) for s in sides]
    points = [sum(value[c.index] for c in pile) for pile in piles]
    return score_estimate(
        rules, points, [state.tablas(s) for s in sides], [len(pile) for pile in piles]
    )
