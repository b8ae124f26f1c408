"""What `ismcts` infers from the other seats' moves: the play log, card weights, weighted worlds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from math import log

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana.games.tablic import Card, Move, Rules, View
from kafana_bots import Bot, registry
from kafana_bots.events import Event, HandStarted, MovePlayed
from kafana_bots.ismcts import SearchBot
from kafana_bots.knowledge import (
    PlayLikelihood,
    PlayLog,
    follow_values,
    hand_weights,
    max_shares,
    move_values,
    reply_values,
    unseen,
)
from kafana_bots.play import play
from kafana_bots.worlds import WorldSampler


class Recorder(Bot):
    """Plays greedy and keeps, at each of its decisions, its view and its log's deal moves."""

    name = "recorder"

    def __init__(self, seat: int, rules: Rules, rng: random.Random) -> None:
        super().__init__(seat, rules, rng)
        self.inner = registry.create("greedy", seat=seat, rules=rules, rng=rng)
        self.log = PlayLog()
        self.seen: list[tuple[View, list[tuple[int, Move, tuple[Card, ...]]] | None]] = []

    def observe(self, event: Event) -> None:
        self.log.observe(event)

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        self.seen.append((view, self.log.deal_moves(view)))
        return self.inner.choose(view, legal_moves)


@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_the_log_holds_this_deals_moves(players: int, partnerships: bool) -> None:
    rules = Rules.preset("serbian", players=players, partnerships=partnerships)
    bots = [Recorder(s, rules, random.Random(s)) for s in range(players)]
    state = play(tablic.new_match(rules, seed=11), bots, hands=1)
    history = state.moves()
    for bot in bots:
        assert bot.seen
        for view, deal in bot.seen:
            assert deal is not None
            for seat in range(players):
                played = sum(1 for s, _, _ in deal if s == seat)
                assert played + view.hand_sizes[seat] in (4, 6)
            # the moves are the last ones played
            done = view.move_count
            assert [(s, m) for s, m, _ in deal] == history[done - len(deal) : done]


def test_a_log_that_missed_events_says_so() -> None:
    rules = Rules.preset("serbian")
    state = tablic.new_match(rules, seed=3)
    assert state.current_seat is not None
    view = state.view(state.current_seat)
    assert PlayLog().deal_moves(view) is None  # never told the hand started
    log = PlayLog()
    log.observe(HandStarted(state.hand_no, state.table))
    assert log.deal_moves(view) == []
    trail = next(m for m in state.legal_moves() if m.is_trail)
    state = state.apply(trail)  # a move the log is not told of
    assert state.current_seat is not None
    assert log.deal_moves(state.view(state.current_seat)) is None


def _position() -> tuple[View, list[tuple[int, Move, tuple[Card, ...]]]]:
    """Seat 1 trailed the 3 of clubs onto a table holding the 10 of diamonds and a king."""
    rules = Rules.preset("serbian")
    table = (Card(10, "D"), Card(13, "S"))
    move = Move(Card(3, "C"), [])
    view = View(
        rules=rules,
        seat=0,
        hand=(Card(2, "H"), Card(5, "H"), Card(6, "H"), Card(7, "H"), Card(9, "H")),
        table=(*table, Card(3, "C")),
        current_seat=0,
        hand_no=1,
        dealer=1,
        move_count=1,
        hand_sizes=(5, 5),
        deck_remaining=39,
        captured=(frozenset(), frozenset()),
        tablas=(0, 0),
        last_capturer=None,
        scores=(0, 0),
        hand_results=(),
        is_over=False,
    )
    return view, [(1, move, table)]


def test_a_seat_that_trailed_probably_holds_no_card_that_would_have_captured() -> None:
    view, deal = _position()
    weights = hand_weights(view, deal)[1]
    tens = [Card(10, s).index for s in "CHS"]
    kings = [Card(13, s).index for s in "CDH"]
    for i in tens + kings:
        assert weights[i] < 0.1
    assert weights[Card(8, "C").index] == 1.0  # an 8 takes nothing there
    assert min(weights[Card(10, "C").index], 1.0) < weights[Card(13, "C").index]  # 2 pts > 1
    # the other seat (the viewer) gets no weights
    assert set(hand_weights(view, deal)) == {1}


def test_weighted_worlds_are_consistent_and_follow_the_weights() -> None:
    view, deal = _position()
    sampler = WorldSampler(view, hand_weights(view, deal))
    pool = {c.index for c in unseen(view)}
    rng = random.Random(5)
    tens = {Card(10, s).index for s in "CHS"}
    with_ten = 0
    for _ in range(400):
        world = sampler.sample(rng)
        assert world.hands[0] == sorted(c.index for c in view.hand or ())
        assert len(world.hands[1]) == 5 and len(world.deck) == 39
        assert sorted(world.hands[1] + world.deck) == sorted(pool)
        with_ten += bool(tens & set(world.hands[1]))
    # uniform: 1 - C(41,5) / C(44,5), 31% of the worlds hold a ten; weighted, far fewer
    assert with_ten < 0.1 * 400
    uniform = WorldSampler(view)
    with_ten = sum(bool(tens & set(uniform.sample(rng).hands[1])) for _ in range(400))
    assert with_ten > 0.25 * 400


def test_the_likelihood_of_a_trail_falls_with_each_card_that_would_have_captured() -> None:
    view, deal = _position()
    likelihood = PlayLikelihood(view, deal, [move_values(view.rules, t) for _, _, t in deal])
    assert likelihood
    ten, king, eight = Card(10, "C").index, Card(13, "C").index, Card(8, "C").index
    quiet = [Card(r, "D").index for r in (4, 5, 6, 7)]
    me = [c.index for c in view.hand or ()]
    # five cards that take nothing there: a trail of the 3 was among the likeliest choices
    assert likelihood.weight([me, [eight, *quiet]]) > 0.15
    with_king = likelihood.weight([me, [king, *quiet]])
    with_ten = likelihood.weight([me, [ten, *quiet]])
    with_both = likelihood.weight([me, [ten, king, *quiet[:3]]])
    assert with_both < with_ten < with_king < likelihood.weight([me, [eight, *quiet]])
    assert with_ten < 0.01  # a ten takes 3 points and more there: few seats would trail
    assert all(0 < w <= 1 for w in (with_king, with_ten, with_both))
    # only the other seat's moves count: our own hand changes nothing
    assert likelihood.weight([[], [eight, *quiet]]) == likelihood.weight([me, [eight, *quiet]])


def test_max_shares_are_the_chances_of_the_best_card_of_a_drawn_hand() -> None:
    shares = max_shares(6, 3)
    hands = list(combinations(range(6), 3))  # card j is the j-th best: min(hand) is the best
    assert shares == pytest.approx([sum(min(h) == j for h in hands) / len(hands) for j in range(6)])
    assert max_shares(4, 0) == [0.0] * 4


def test_reply_values_look_at_what_a_move_leaves_the_next_seat() -> None:
    rules = Rules.preset("serbian")
    table = (Card(5, "C"),)
    pool = [c.index for c in tablic.CARDS if c not in table]
    assert reply_values(rules, table, pool, 6, 0.0) == move_values(rules, table)[0]
    greedy = move_values(rules, table)[0]
    ahead = reply_values(rules, table, pool, 6, 1.75)
    five, two = Card(5, "D").index, Card(2, "D").index
    # taking the 5 clears the table (the next seat can only trail); trailing a 2 leaves a
    # 5 and a 2, a tabla for any 7
    assert ahead[five] - ahead[two] > greedy[five] - greedy[two] + 0.5


def _three_moves_logged() -> tuple[PlayLog, tablic.MatchState, View]:
    """A log of a hand's first three moves, the match, and the view of the seat to move (the
    other seat made the first and third)."""
    rules = Rules.preset("serbian")
    state = tablic.new_match(rules, decks=[tablic.shuffled_deck(1, 3)])
    log = PlayLog()
    log.observe(HandStarted(state.hand_no, state.table))
    for _ in range(3):
        assert state.current_seat is not None
        seat, move = state.current_seat, state.legal_moves()[0]
        state = state.apply(move)
        log.observe(MovePlayed(seat, move))
    assert state.current_seat is not None
    return log, state, state.view(state.current_seat)


def test_the_log_values_the_other_seats_moves_two_plies_deep_once() -> None:
    log, state, view = _three_moves_logged()
    flat, ahead = log.likelihood(view), log.likelihood(view, reply=1.75)
    assert flat and ahead
    assert sorted(log.replies) == [(0, 1.75), (2, 1.75)]  # the other seat's moves only
    assert log.likelihood(view, reply=1.75) and len(log.replies) == 2  # computed once
    hand = [c.index for c in state.hand(1 - view.seat)]
    assert flat.weight([[], hand]) != ahead.weight([[], hand])


def test_follow_values_are_the_next_turns_values_on_the_table_a_move_leaves() -> None:
    rules = Rules.preset("serbian")
    table = (Card(10, "D"), Card(13, "S"))
    follow = follow_values(rules, table)
    three, other_three, king = Card(3, "C").index, Card(3, "D").index, Card(13, "C").index
    assert set(follow) == {c.index for c in tablic.CARDS if c not in table}
    # trailing the 3 leaves 10D KS 3C: the other 3 takes it back next turn
    after = move_values(rules, (*table, Card(3, "C")))[0]
    assert list(follow[three]) == [after[i] for i in range(len(tablic.CARDS))]
    assert follow[three][other_three] > 0 > follow[king][other_three]  # the king took KS


def test_the_follow_model_makes_a_trail_likelier_from_a_hand_that_takes_it_back() -> None:
    view, deal = _position()
    values = [move_values(view.rules, t) for _, _, t in deal]
    follows = [follow_values(view.rules, t) for _, _, t in deal]
    flat = PlayLikelihood(view, deal, values, 2.0)
    ahead = PlayLikelihood(view, deal, values, 2.0, follows, 0.4)
    assert ahead and not ahead.terms  # the move is weighed with its follow-up
    quiet = [Card(r, "D").index for r in (4, 5, 6, 7)]
    back = [Card(3, "D").index, *quiet]
    plain = [Card(8, "C").index, *quiet]
    assert all(0 < x.weight([[], h]) <= 1 for x in (flat, ahead) for h in (back, plain))
    # holding the other 3 explains the trail of the 3 better once the next turn counts
    assert ahead.weight([[], back]) / ahead.weight([[], plain]) > flat.weight(
        [[], back]
    ) / flat.weight([[], plain])
    # with no weight on the follow-up, the model is the flat one
    same = PlayLikelihood(view, deal, values, 2.0, follows, 0.0)
    assert same.weight([[], back]) == flat.weight([[], back])


def test_the_log_computes_each_moves_follow_values_once() -> None:
    log, state, view = _three_moves_logged()
    ahead = log.likelihood(view, 2.0, follow=0.4)
    assert ahead and sorted(log.follows) == [0, 2]
    assert log.likelihood(view, 2.0, follow=0.4) and sorted(log.follows) == [0, 2]
    hand = [c.index for c in state.hand(1 - view.seat)]
    assert 0 < ahead.weight([[], hand]) <= 1


def test_resampled_hands_follow_the_likelihood() -> None:
    view, deal = _position()
    likelihood = PlayLikelihood(view, deal, [move_values(view.rules, t) for _, _, t in deal])
    sampler = WorldSampler(view)
    pool = {c.index for c in unseen(view)}
    tens = {Card(10, s).index for s in "CHS"}
    rng = random.Random(9)
    with_ten = 0
    for _ in range(400):
        hand, weight = likelihood.draw(sampler.pool, 1, 5, 8, rng)
        assert len(set(hand)) == 5 and set(hand) <= pool and 0 < weight <= 1
        world = sampler.sample(rng, {1: hand})
        assert world.hands[1] == sorted(hand)
        assert world.hands[0] == sorted(c.index for c in view.hand or ())
        assert sorted(world.hands[1] + world.deck) == sorted(pool)
        with_ten += bool(tens & set(hand))
    # uniform: 31% of the hands hold a ten; picked by the likelihood among 8, far fewer
    assert with_ten < 0.12 * 400


def test_a_deal_of_our_own_moves_only_weighs_every_world_alike() -> None:
    view, deal = _position()
    mine = [(0, move, table) for _, move, table in deal]
    likelihood = PlayLikelihood(view, mine, [move_values(view.rules, t) for _, _, t in mine])
    assert not likelihood
    assert likelihood.weight([[], [Card(10, "C").index]]) == 1.0


def test_ismcts_with_inference_replays() -> None:
    rules = Rules.preset("serbian")

    def hand() -> list[tuple[int, Move]]:
        bots = [
            registry.create("ismcts", seat=s, rules=rules, rng=random.Random(s), iterations=20)
            for s in range(2)
        ]
        return play(tablic.new_match(rules, seed=8), bots, hands=1).moves()

    assert hand() == hand()


def test_ismcts_can_weigh_worlds_by_the_other_seats_answer_and_follow_up() -> None:
    # Two players, `LIKELIHOOD_REPLY` and `LIKELIHOOD_FOLLOW` on (off by default): the
    # likelihood values each of the other seat's moves two plies deep and with its follow-up
    # (each move's tables computed once, kept in the log), and the hand replays.
    rules = Rules.preset("serbian")
    ahead = type(
        "Ahead",
        (SearchBot,),
        {"LIKELIHOOD_BETA": 2.0, "LIKELIHOOD_REPLY": 1.5, "LIKELIHOOD_FOLLOW": 0.8},
    )

    def hand() -> tuple[list[tuple[int, Move]], list[SearchBot]]:
        bots = [ahead(s, rules, random.Random(s), iterations=20) for s in range(2)]
        return play(tablic.new_match(rules, seed=8), bots, hands=1).moves(), bots

    moves, bots = hand()
    assert moves == hand()[0]
    for bot in bots:
        assert bot.log.follows and bot.log.replies
        assert {k for k, _ in bot.log.replies} == set(bot.log.follows)
        assert all(bot.log.moves[k][0] != bot.seat for k in bot.log.follows)  # the other's
    plain = SearchBot(0, rules, random.Random(0), iterations=20)
    play(
        tablic.new_match(rules, seed=8),
        [plain, SearchBot(1, rules, random.Random(1), iterations=20)],
        hands=1,
    )
    assert not plain.log.follows  # off by default


def _keyed_hand(
    pool: list[int], weights: dict[int, float], size: int, rng: random.Random
) -> set[int]:
    """The reference: Efraimidis-Spirakis keys u ** (1 / w), the `size` largest (as
    logarithms, which do not underflow)."""
    return set(sorted(pool, key=lambda c: log(1.0 - rng.random()) / weights[c])[-size:])


@pytest.mark.parametrize("levels", [(1.0, 0.5, 0.3), (1.0, *(1e-12,) * 12)])
def test_weighted_hands_follow_the_keys_distribution(levels: tuple[float, ...]) -> None:
    # Each card's chance of being in the weighted hand is the keys' (within sampling noise),
    # also when only a few cards weigh anything (the redraws give up and the keys finish).
    view, _ = _position()
    pool = [c.index for c in unseen(view)]
    pick = random.Random(3)
    weights = {c: pick.choice(levels) for c in pool}
    sampler = WorldSampler(view, {1: weights})
    rng = random.Random(4)
    rounds = 3000
    ours = dict.fromkeys(pool, 0)
    keyed = dict.fromkeys(pool, 0)
    for _ in range(rounds):
        world = sampler.sample(rng)
        assert len(set(world.hands[1])) == 5 and sorted(world.hands[1] + world.deck) == pool
        for c in world.hands[1]:
            ours[c] += 1
        for c in _keyed_hand(pool, weights, 5, rng):
            keyed[c] += 1
    worst = max(abs(ours[c] - keyed[c]) / rounds for c in pool)
    assert worst < 0.04, worst
