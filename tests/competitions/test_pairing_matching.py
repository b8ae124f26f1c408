"""Swiss pairings by maximum-weight matching: exact on small fields, bounded on any field."""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafana.competitions import matching, pairing
from kafana.competitions.tournament import EventConfig, Kind, Status, Tournament


def _no_show_swiss(n: int, rounds: int = 0) -> Tournament:
    """A Swiss of `n` entrants where seat 0 never shows up: seat 1 wins every game."""
    t = Tournament(EventConfig("no-show", Kind.SWISS, tuple(f"e{i}" for i in range(n)), rounds))
    while not t.finished:
        for g in t.next_round():
            t.adjudicate(g.game_id, 1)
    return t


@pytest.mark.timeout(60)
@pytest.mark.parametrize("n", [64, 128, 129])
def test_a_no_show_swiss_pairs_every_round_without_a_repeat(n: int) -> None:
    # the old backtracking search never came back from round 3 of 64 such entrants
    started = time.monotonic()
    t = _no_show_swiss(n)
    assert time.monotonic() - started < 30
    assert len(t.rounds) == t.total_rounds == math.ceil(math.log2(n)) and not t.end_reason
    met = [frozenset(g.seats) for r in t.rounds for g in r]
    assert len(met) == len(set(met))  # nobody met twice
    byes = [b.entrant for b in t.byes]
    assert len(byes) == (len(t.rounds) if n % 2 else 0) and len(set(byes)) == len(byes)
    assert {r.entrant for r in t.standings()} == set(t.config.entrants)


def _cost(
    pairs: Sequence[tuple[str, str]],
    bye: str | None,
    ranked: Sequence[str],
    played: set[frozenset[str]],
    balance: dict[str, int],
    byes: set[str],
) -> tuple[int, int, int, int, int]:
    """What a round costs, most important first: repeats, a second bye, seat clashes, how
    far above the bottom the bye is, the sum of squared rank distances."""
    rank = {p: i for i, p in enumerate(ranked)}
    return (
        sum(frozenset(p) in played for p in pairs),
        int(bye in byes),
        sum(matching.clash(a, b, balance) for a, b in pairs),
        len(ranked) - 1 - rank[bye] if bye is not None else 0,
        sum((rank[a] - rank[b]) ** 2 for a, b in pairs),
    )


def _rounds(players: list[str]) -> Iterator[tuple[list[tuple[str, str]], str | None]]:
    """Every possible round of `players` (brute force: small fields only)."""
    if len(players) % 2:
        for bye in players:
            for pairs, _ in _rounds([p for p in players if p != bye]):
                yield pairs, bye
        return
    if not players:
        yield [], None
        return
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for pairs, _ in _rounds(rest[:i] + rest[i + 1 :]):
            yield [(top, other), *pairs], None


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 9),
    seed=st.integers(0, 10**6),
    density=st.floats(0.0, 0.9),
)
def test_the_matching_is_the_best_round_by_brute_force(n: int, seed: int, density: float) -> None:
    rng = random.Random(seed)
    ranked = [f"p{i}" for i in range(n)]
    played = {frozenset(c) for c in itertools.combinations(ranked, 2) if rng.random() < density}
    balance = {p: rng.choice([-3, -2, -1, 0, 1, 2, 3]) for p in ranked}
    byes = {p for p in ranked if rng.random() < 0.3}
    pairs, bye, repeats = matching.pair_swiss(ranked, played=played, balance=balance, byes=byes)
    assert sorted([p for pair in pairs for p in pair] + ([bye] if bye else [])) == sorted(ranked)
    got = _cost(pairs, bye, ranked, played, balance, byes)
    best = min(_cost(p, b, ranked, played, balance, byes) for p, b in _rounds(ranked))
    assert got == best and repeats == got[0]


def test_no_repeat_free_round_is_told_at_once() -> None:
    # two triangles of entrants who have not met, every pair across them has: any round of
    # six pairs someone across, so one pair must repeat
    ranked = list("abcdef")
    played = {frozenset((x, y)) for x in "abc" for y in "def"}
    pairs, bye, repeats = matching.pair_swiss(ranked, played=played, balance={}, byes=set())
    assert repeats == 1 and bye is None and len(pairs) == 3
    with pytest.raises(ValueError, match="without a repeat"):
        pairing.swiss(ranked, played=played, balance={}, byes=set())


def test_seats_byes_and_closeness() -> None:
    # a and b both need seat 1 (two more games in seat 0): kept apart, each with a neighbour
    pairs, bye = pairing.swiss(list("abcd"), played=set(), balance={"a": 2, "b": 2}, byes=set())
    assert pairs == [("c", "a"), ("d", "b")] and bye is None
    # the bye: the lowest ranked who has not had one
    pairs, bye = pairing.swiss(list("abcde"), played=set(), balance={}, byes={"e"})
    assert bye == "d" and pairs == [("a", "b"), ("c", "e")]


def test_a_large_field_is_matched_in_blocks_and_an_exhausted_budget_pairs_greedily() -> None:
    n = 3 * matching.BLOCK + 1  # three blocks and a bye
    t = _no_show_swiss(n, rounds=4)
    assert len(t.rounds) == 4 and not t.end_reason and t.status is Status.RUNNING
    met = [frozenset(g.seats) for r in t.rounds for g in r]
    assert len(met) == len(set(met))
    ranked = [row.entrant for row in t.standings()]
    played = set(met)
    byes = {b.entrant for b in t.byes}
    pairs, bye, repeats = matching.pair_swiss(
        ranked, played=played, balance={}, byes=byes, budget_s=0.0
    )
    assert repeats == 0 and bye is not None and bye not in byes
    assert sorted(p for pair in pairs for p in pair) == sorted(set(ranked) - {bye})
