"""The all-seeing `oracle`: it plays in the arena only, sees the true deal, and searches it."""

from __future__ import annotations

import random

import click
import pytest
from kafana.cli.bot_spec import load
from kafana.competitions.hosted.event import entrant_value
from kafana.competitions.local_runner import registry_bots
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.games.tablic import MatchState, Move
from kafana_bots import BotError, registry
from kafana_bots.arena import ArenaConfig, play_deal, share_of_bound, share_text
from kafana_bots.oracle import OracleBot, undealt
from kafana_bots.play import play
from kafana_bots.tac_oracle import TacOracleBot

RULES = tablic.Rules.preset("serbian", players=2)


def test_the_registry_lends_the_oracle_to_the_arena_only() -> None:
    assert "oracle" not in registry.names() and "oracle" in registry.names(arena=True)
    with pytest.raises(InvalidInputError, match="plays only in the arena"):
        registry.create("oracle", seat=0, rules=RULES, rng=random.Random(0))
    with pytest.raises(InvalidInputError, match="plays only in the arena"):
        registry.entry("oracle")
    bot = registry.create("oracle", seat=0, rules=RULES, rng=random.Random(0), arena=True)
    assert isinstance(bot, OracleBot)


def test_events_local_tournaments_and_remote_seats_refuse_the_oracle() -> None:
    with pytest.raises(InvalidInputError, match="plays only in the arena"):
        entrant_value("oracle", "")  # a hosted event's entrant
    make = registry_bots({"ana": "oracle"})  # a tournament played in-process
    with pytest.raises(InvalidInputError, match="plays only in the arena"):
        make("ana", 0, RULES, random.Random(0))
    with pytest.raises(click.ClickException):
        load("oracle")  # `kafana bot run oracle`: no such bot for a table


def test_the_oracle_refuses_a_match_it_was_not_shown() -> None:
    state = tablic.new_match(RULES, seed=4)
    bot = OracleBot(0, RULES, random.Random(0), iterations=10)
    with pytest.raises(InvalidInputError, match="not shown this match"):
        bot.choose(state.view(0), state.legal_moves())
    other = tablic.new_match(RULES, seed=5)
    bot.see(other)  # another deal than the one it is asked about
    with pytest.raises(InvalidInputError, match="not shown this match"):
        bot.choose(state.view(0), state.legal_moves())


@pytest.mark.parametrize("preset", ["serbian", "wild_jack"])  # wild_jack: jacks off the table
@pytest.mark.parametrize("players", [2, 3, 4])
def test_undealt_is_the_order_the_next_deals_come_in(preset: str, players: int) -> None:
    rules = tablic.Rules.preset(preset, players=players)
    deals = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = tablic.new_match(rules, seed=seed)
        while not state.hand_results:
            ahead = undealt(state)
            assert len(ahead) == state.deck_remaining
            after = state.apply(rng.choice(state.legal_moves()))
            if ahead and after.deck_remaining < state.deck_remaining:  # this move dealt
                per = len(after.hand(0))
                first = after.hand_no % players
                for k in range(players):
                    seat = (first + k) % players
                    assert sorted(after.hand(seat)) == sorted(ahead[k * per : (k + 1) * per])
                deals += 1
            state = after
    assert deals >= 6 * (48 // (6 * players) - 1)


def _paranoid(state: MatchState, side: int, hand: int) -> float:
    """The side's result with every other side playing against it, by brute force on the
    rules' own state (no simulator)."""
    if len(state.hand_results) > hand:
        points = state.hand_results[hand].points
        others = [p for s, p in enumerate(points) if s != side]
        return points[side] - sum(others) / len(others)
    seat = state.current_seat
    assert seat is not None
    values = [_paranoid(state.apply(m), side, hand) for m in state.legal_moves()]
    return max(values) if state.rules.side_of(seat) == side else min(values)


def _four_player_ending(seed: int) -> MatchState:
    rules = tablic.Rules.preset("serbian", players=4, partnerships=True)
    rng = random.Random(seed)
    state = tablic.new_match(rules, seed=seed)
    while state.deck_remaining or sum(len(state.hand(s)) for s in range(4)) > 7:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def test_the_oracle_plays_the_best_move_for_the_cards_it_cannot_see() -> None:
    """In 2 against 2 endings the other hands are hidden from every seat: the oracle plays the
    best move for the true hands (brute force), and a different move when they differ."""
    differ = 0
    for seed in range(8):
        state = _four_player_ending(seed)
        seat = state.current_seat
        assert seat is not None
        others = [s for s in range(4) if s != seat and state.hand(s)]
        hands = [list(state.hand(s)) for s in range(4)]
        swapped = [list(h) for h in hands]  # the same view for the seat, other hidden hands
        a, b = others[0], others[1]
        pool = hands[a] + hands[b]
        random.Random(seed).shuffle(pool)
        swapped[a], swapped[b] = pool[: len(hands[a])], pool[len(hands[a]) :]
        picks: list[Move] = []
        for truth in (state, state.determinize(swapped, [])):
            bot = OracleBot(seat, truth.rules, random.Random(0), iterations=5000)
            bot.see(truth)
            moves = truth.legal_moves()
            picked = bot.choose(truth.view(seat), moves)
            side = truth.rules.side_of(seat)
            best = max(_paranoid(truth.apply(m), side, truth.hand_no) for m in moves)
            assert _paranoid(truth.apply(picked), side, truth.hand_no) == best, seed
            assert bot.stats["exact"] == 1
            picks.append(picked)
        differ += picks[0] != picks[1]
    assert differ >= 1


def test_the_arena_shows_the_oracle_the_deal() -> None:
    config = ArenaConfig(bots=("heuristic", "oracle"), hands=1, iterations=20)
    result = play_deal(config, 0)
    assert [len(t) for t in result.times] == [48, 48]
    with pytest.raises(BotError, match=r"raised InvalidInputError in choose: .*not shown"):
        bot = OracleBot(1, RULES, random.Random(0), iterations=20)  # nobody shows it the deal
        greedy = registry.create("greedy", seat=0, rules=RULES, rng=random.Random(0))
        play(tablic.new_match(RULES, seed=1), [greedy, bot], hands=1)


def test_a_share_of_the_bound_and_its_interval() -> None:
    share, low, high = share_of_bound([1.0, 2.0, 3.0, 2.0], [2.0, 4.0, 6.0, 4.0])
    assert share == pytest.approx(0.5) and low == pytest.approx(0.5) and high == pytest.approx(0.5)
    share, low, high = share_of_bound([0.0, 2.0, -1.0, 3.0], [2.0, 3.0, 1.0, 4.0])
    assert low <= share <= high and share == pytest.approx(0.4)
    with pytest.raises(ValueError, match="same deals"):
        share_of_bound([1.0], [1.0, 2.0])


def test_an_oracle_that_loses_gives_no_share_and_says_why() -> None:
    line = share_text("ismcts", [1.0, 0.0], [-1.0, -0.5])
    assert (
        line
        == "no share: the oracle's margin is -0.75 over 2 deals (not above zero: no bound here)"
    )
    assert share_text("ismcts", [1.0, 2.0, 3.0, 2.0], [2.0, 4.0, 6.0, 4.0]) == (
        "share of the oracle's margin: ismcts 50% [50%, 50%] over 4 deals"
    )


def test_tacs_oracle_is_lent_to_the_arena_only_and_sees_every_closed_pile() -> None:
    rules = tac.Rules(players=3)
    assert "oracle" not in registry.names("tac") and "oracle" in registry.names("tac", arena=True)
    with pytest.raises(InvalidInputError, match="plays only in the arena"):
        registry.create("oracle", seat=0, rules=rules, rng=random.Random(0))
    bots = [
        registry.create("oracle", seat=0, rules=rules, rng=random.Random(0), arena=True),
        registry.create("loader", seat=1, rules=rules, rng=random.Random(1)),
        registry.create("loader", seat=2, rules=rules, rng=random.Random(2)),
    ]
    oracle = bots[0]
    assert isinstance(oracle, TacOracleBot)
    state = tac.new_game(rules, seed=3)
    with pytest.raises(InvalidInputError, match="not shown this game"):
        oracle.choose(state.view(0), state.legal_moves_for(0))
    searched = 0
    while not state.is_over:
        oracle.see(state)
        if state.current_seat == 0:
            piles = oracle.known_piles(state.view(0))
            assert piles == [state.closed(seat) for seat in range(3)]
        state = play(state, bots, max_moves=state.move_count + 1)
        searched = oracle.stats["decisions"]
    assert searched > 0 and state.places() is not None
