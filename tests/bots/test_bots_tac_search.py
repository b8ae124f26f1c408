"""Tač `search`: registered, plays legal games from its view only, replays from its seeds."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from kafana.games import tac
from kafana_bots import registry
from kafana_bots.clock import Deadline
from kafana_bots.play import play
from kafana_bots.tac_search import (
    Memory,
    TacSearchBot,
    best_line,
    loader_move,
    playout,
    sample_world,
    score,
    turnover_piles,
    unseen,
)


def game(players: int, seed: int) -> tac.GameState:
    rules = tac.Rules(players=players)
    bots = [
        registry.create(
            "search" if seat == 0 else "loader",
            seat=seat,
            rules=rules,
            rng=random.Random(seed * 10 + seat),
            **({"iterations": 2} if seat == 0 else {}),
        )
        for seat in range(players)
    ]
    return play(tac.new_game(rules, seed=seed), bots)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_plays_whole_games_and_replays(players: int) -> None:
    state = game(players, 3)
    assert state.is_over
    assert game(players, 3).record().to_text() == state.record().to_text()


def test_sampled_worlds_agree_with_the_view() -> None:
    rules = tac.Rules(players=3)
    state = tac.new_game(rules, seed=4)
    rng = random.Random(0)
    for _ in range(60):
        if state.is_over:
            break
        seat = state.current_seat
        assert seat is not None
        view = state.view(seat)
        world = sample_world(view, rng)
        seen = world.view(seat)
        assert (seen.central, seen.discards, seen.turned) == (
            view.central,
            view.discards,
            view.turned,
        )
        assert seen.closed_sizes == view.closed_sizes
        assert set(world.legal_moves()) == set(state.legal_moves())
        hidden = Counter(c for s in range(3) for c in state.closed(s))
        assert Counter(unseen(view)) == hidden
        state = state.apply(state.in_order_moves()[-1])


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="iterations"):
        TacSearchBot(0, tac.Rules(), random.Random(0), iterations=0)
    bot = registry.create("search", seat=1, rules=tac.Rules(), rng=random.Random(0), budget_ms=5)
    assert isinstance(bot, TacSearchBot) and bot.budget_ms == 5


def true_claims(rules: tac.Rules, seed: int, me: int) -> int:
    """Play deal `seed` with loader's policy; from the views of `me`'s moves, check every pile
    its memory says it knows against the real one (and the worlds it samples): the number of
    piles it knew."""
    state = tac.new_game(rules, seed=seed)
    memory = Memory(rules.players)
    known = 0
    while not state.is_over:
        if state.current_seat == me:
            view = state.view(me)
            memory.update(view)
            for seat, pile in enumerate(memory.known(view)):
                if pile is not None:
                    real = state.closed(seat)
                    assert len(pile) == len(real)
                    assert all(c is None or c == r for c, r in zip(pile, real, strict=True))
                    known += 1
            world = sample_world(view, random.Random(0), memory.known(view))
            for seat, pile in enumerate(memory.known(view)):
                if pile is not None:
                    drawn = world.closed(seat)
                    assert all(c is None or c == r for c, r in zip(pile, drawn, strict=True))
        state = state.apply(loader_move(state))
    return known


@pytest.mark.parametrize(("players", "decks"), [(2, 1), (3, 1), (4, 1), (2, 2), (4, 2), (8, 2)])
def test_memory_knows_only_true_closed_piles(players: int, decks: int) -> None:
    """From the views of one seat's moves, every pile it says it knows is the real one, and
    it knows some (the piles turned over); with two decks too (every card twice)."""
    rules = tac.Rules(players=players, decks=decks)
    seeds = range(6 if decks == 1 else 3)
    assert sum(true_claims(rules, seed, seed % players) for seed in seeds) > 0


def test_memory_sees_a_turnover_that_left_the_pile_as_large() -> None:
    """Four players, one deck, deal 61, seat 1: seat 2 flipped its last card (KH), turned its
    discard pile over and flipped two more, so its closed pile still has one card, now 7S.
    Every turn flips at least one card: a pile the same size was turned over (the memory
    used to keep claiming KH, which another seat's turnover had put face down again)."""
    assert true_claims(tac.Rules(players=4), 61, 1) > 0


def test_two_decks_a_turnover_is_read_from_the_discard_pile() -> None:
    """The owner turned [9H, 10S, 4C] over, flipped 9H (its turn ended with it on the emptied
    discard pile) and others put 10D, JC on it: its closed pile is [10S, 4C]. Had KC come
    after 9H, the owner put it there itself (others' cards follow the top): no turnover."""
    cards = [tac.Card.parse(c) for c in ("9H", "10S", "4C", "10D", "JC", "KC")]
    nine, ten, four, ten_d, jack, king = cards
    hidden = Counter([ten, four, king])
    old = (nine, ten, four)
    assert turnover_piles(old, (nine, ten_d, jack), 2, hidden, 2, False, False, False) == {
        (ten, four)
    }
    assert turnover_piles(old, (nine, king), 2, hidden, 2, True, False, False) == set()
    # a card others may have put on it first: [9H, 9H, 4C] flipped once or twice fits too
    fits = turnover_piles(
        (nine, nine, four), (nine,), 2, Counter([nine, four]), 2, True, False, False
    )
    assert fits == {(nine, four), (four, None)}  # two piles fit: the memory claims neither


def test_a_playout_past_its_deadline_is_dropped() -> None:
    state = tac.new_game(tac.Rules(players=2), seed=1)
    assert playout(state, deadline=Deadline(0.0)) is None
    end = playout(state)
    assert end is not None and end.is_over


def test_memory_forgets_a_finished_game() -> None:
    rules = tac.Rules(players=2)
    state = tac.new_game(rules, seed=2)
    memory = Memory(2)
    for _ in range(300):
        if state.is_over:
            break
        memory.update(state.view(state.current_seat or 0))
        state = state.apply(loader_move(state))
    memory.update(tac.new_game(rules, seed=3).view(0))
    assert memory.piles == [None, None]


@pytest.mark.parametrize("players", [2, 3])
def test_best_line_is_at_least_the_loader_line(players: int) -> None:
    rules = tac.Rules(players=players)
    for seed in range(3):
        state = tac.new_game(rules, seed=seed)
        end = playout(state)
        assert end is not None
        plain = score(end, 0, players)
        assert best_line(state, 0, 0, None) == plain
        best = best_line(state, 0, 2, None)
        assert best is not None and best >= plain
        assert best_line(state, 0, 2, Deadline(0.0)) is None
