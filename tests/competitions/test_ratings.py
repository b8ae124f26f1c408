"""Ratings move the right way: winners up, losers down, uncertainty shrinks, teams together."""

from __future__ import annotations

import itertools

from kafana.competitions.local_runner import registry_bots, run_local
from kafana.competitions.ratings import RatingBook, RatingPolicy
from kafana.competitions.tournament import EventConfig, Kind, Tournament

POOL = "tablic/serbian-2"


def test_winner_up_loser_down_sigma_shrinks() -> None:
    book = RatingBook()
    book.rate(POOL, [["a"], ["b"]], [1, 0])
    a, b = book.get(POOL, "a"), book.get(POOL, "b")
    assert a.mu > 25 > b.mu
    assert a.sigma < 25 / 3 and b.sigma < 25 / 3
    assert a.conservative > b.conservative
    # an upset moves more than an expected result
    before_a, before_b = a.mu, b.mu
    expected = RatingBook.from_json(book.to_json())
    expected.rate(POOL, [["a"], ["b"]], [1, 0])
    book.rate(POOL, [["a"], ["b"]], [0, 1])
    assert before_a - book.get(POOL, "a").mu > expected.get(POOL, "a").mu - before_a
    assert book.get(POOL, "b").mu > before_b


def test_draw_pulls_ratings_together_and_pools_are_separate() -> None:
    book = RatingBook()
    for _ in range(3):
        book.rate(POOL, [["a"], ["b"]], [1, 0])
    gap = book.get(POOL, "a").mu - book.get(POOL, "b").mu
    book.rate(POOL, [["a"], ["b"]], [0.5, 0.5])
    assert 0 < book.get(POOL, "a").mu - book.get(POOL, "b").mu < gap
    assert book.get("tablic/wild_jack-2", "a").mu == 25  # another variant: unrated


def test_teams_move_together() -> None:
    book = RatingBook()
    pool = "tablic/serbian-2x2"
    book.rate(pool, [["a", "c"], ["b", "d"]], [101, 80])
    assert book.get(pool, "a").mu > 25 and book.get(pool, "c").mu > 25
    assert book.get(pool, "b").mu < 25 and book.get(pool, "d").mu < 25


def test_provisional_and_history() -> None:
    policy = RatingPolicy(min_games=3, max_sigma=8.0)
    book = RatingBook(policy)
    for i in range(4):
        book.rate(POOL, [["a"], ["b"]], [1, 0])
        assert policy.provisional(book.get(POOL, "a")) == (i < 2)
    assert RatingPolicy(min_games=3, max_sigma=7.0).provisional(book.get(POOL, "a"))  # sigma
    history = book.history[POOL]["a"]
    assert [p.game for p in history] == [1, 2, 3, 4]
    assert all(x.mu < y.mu for x, y in itertools.pairwise(history))
    assert [name for name, _ in book.leaderboard(POOL)] == ["a", "b"]
    assert RatingBook.from_json(book.to_json()).history == book.history


def test_a_strong_bot_ends_above_a_random_one() -> None:
    bots = {"strong": "heuristic", "weak": "random", "also": "heuristic", "lame": "random"}
    config = EventConfig("r", Kind.DUPLICATE, tuple(bots), boards=2, chosen_seed=2, target=51)
    event = run_local(Tournament(config), registry_bots(bots))
    strong, weak = (event.ratings.get(config.pool, n) for n in ("strong", "weak"))
    assert strong.games == weak.games == 6  # 3 rounds of 2 boards
    assert strong.mu > weak.mu


def test_more_than_two_sides_are_rated_by_place() -> None:
    book = RatingBook()
    pool = "tablic/serbian-4"
    book.rate(pool, [["a"], ["b"], ["c"], ["d"]], [1.0, 2 / 3, 2 / 3, 0.0])  # b and c tie
    mu = {p: book.get(pool, p).mu for p in "abcd"}
    assert mu["a"] > mu["b"] and mu["c"] > mu["d"] and abs(mu["b"] - mu["c"]) < 1e-9
    assert all(book.get(pool, p).games == 1 for p in "abcd")
    tac = "tac/standard-3"
    book.rate(tac, [["x"], ["y"], ["z"]], [0.0, 1.0, 0.5])
    assert book.get(tac, "y").mu > book.get(tac, "z").mu > book.get(tac, "x").mu
