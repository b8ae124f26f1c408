"""The fast greedy policy search plays out with, the static estimate where a playout stops,
and a hand's result for one side."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import erf, sqrt

from kafana.games.tablic import Rules
from kafana.games.tablic.capture import per_rules

from kafana_bots.sim import HandSim, SimMove, Values, fast_playout
from kafana_bots.values import CARD_WEIGHT, keep_cost

_TABLES: dict[int, tuple[Rules, tuple[Values, Values, Values]]] = {}


def value_tables(rules: Rules) -> tuple[Values, Values, Values]:
    """Per card index: the value of capturing it, of playing it to capture, of trailing it."""
    return per_rules(_TABLES, rules, _make_tables)


def _make_tables(rules: Rules) -> tuple[Values, Values, Values]:
    value = rules.points_by_index
    taken = tuple(value[i] + CARD_WEIGHT for i in range(52))
    played = tuple(value[i] + CARD_WEIGHT - keep_cost(rules, i) for i in range(52))
    trailed = tuple(-taken[i] - 0.5 * (taken[i] - played[i]) for i in range(52))
    return taken, played, trailed


Best = dict[int, tuple[float, int]]
"""Per card index: its best capture's (value, mask) on one table."""
_BEST: dict[int, tuple[Rules, dict[tuple[int, ...], Best]]] = {}
BEST_SIZE = 50_000
"""Tables the greedy policy's memo keeps per rules (emptied when full)."""


def _best_memo(rules: Rules) -> dict[tuple[int, ...], Best]:
    memo = per_rules(_BEST, rules, lambda _: {})
    if len(memo) > BEST_SIZE:
        memo.clear()
    return memo


def best_capture(sim: HandSim, card: int, tabla: int) -> tuple[float, int]:
    """The best capture of `card` on the table: (value, mask), (-1e9, 0) if it takes nothing.

    The first of equally good masks in the listing's order."""
    taken_value, played_value, _ = value_tables(sim.rules)
    table = sim.table
    full = (1 << len(table)) - 1
    best_value, best_mask = -1e9, 0
    for mask in sim.engine.listing(card // 4 + 1, sim.vector, sim.rules.rank_priority)[0]:
        v = played_value[card]
        for k, c in enumerate(table):
            if mask >> k & 1:
                v += taken_value[c]
        if mask == full:
            v += tabla
        if v > best_value:
            best_value, best_mask = v, mask
    return best_value, best_mask


def greedy_move(sim: HandSim) -> SimMove:
    """The greedy choice of the seat to move: the best immediate value, first on ties."""
    seat = sim.current
    assert seat is not None
    rules = sim.rules
    trailed_value = value_tables(rules)[2]
    last = not sim.deck and sum(len(h) for h in sim.hands) == 1
    tabla = rules.tabla_points if (rules.last_card_tabla or not last) else 0
    key = (tabla, *sim.table)
    memo = _best_memo(rules)
    known = memo.get(key)
    if known is None:
        known = memo[key] = {}
    best: SimMove | None = None
    best_value = -1e9
    best_trail: SimMove | None = None
    best_trail_value = -1e9
    for card in sim.hands[seat]:
        found = known.get(card)
        if found is None:
            found = known[card] = best_capture(sim, card, tabla)
        if found[0] > best_value:
            best_value = found[0]
            best = (card, found[1])
        trail = trailed_value[card]
        if trail > best_trail_value:
            best_trail, best_trail_value = (card, 0), trail
    if best is not None and (best_value >= best_trail_value or rules.must_capture):
        return best
    assert best_trail is not None
    return best_trail


def rollout(sim: HandSim) -> None:
    """Play the hand to its end with the greedy policy (mutates `sim`)."""
    if fast_playout(sim, -1, 0, value_tables(sim.rules)):  # the compiled build: in C
        return
    while sim.current is not None:
        card, mask = greedy_move(sim)
        sim.play(card, mask)


def utility(points: Sequence[float], side: int) -> float:
    """A side's result: its points minus the mean of the other sides'."""
    others = [p for s, p in enumerate(points) if s != side]
    return points[side] - sum(others) / len(others)


def truncated_rollout(sim: HandSim, plies: int) -> None:
    """Play at most `plies` greedy moves (mutates `sim`); see `estimate` for the rest."""
    if plies > 0 and fast_playout(sim, plies, 0, value_tables(sim.rules)):  # compiled: in C
        return
    while sim.current is not None and plies > 0:
        card, mask = greedy_move(sim)
        sim.play(card, mask)
        plies -= 1


def estimate(sim: HandSim) -> list[float]:
    """Points per side: final if the hand is over, else taken so far plus the cards' race."""
    if sim.current is None:
        return [float(p) for p in sim.final_points()]
    return score_estimate(sim.rules, sim.points, sim.tablas, sim.cards)


def score_estimate(
    rules: Rules, points: Sequence[int], tablas: Sequence[int], cards: Sequence[int]
) -> list[float]:
    """Points per side in the middle of a hand: card points and tablas taken, and each card's
    share of the most-cards race (the race's points once one of two sides has 27)."""
    out = [p + t * rules.tabla_points for p, t in zip(points, tablas, strict=True)]
    if len(cards) == 2 and max(cards) >= 27:
        out[0 if cards[0] >= 27 else 1] += rules.most_cards_points
        return [float(v) for v in out]
    return [v + CARD_WEIGHT * c for v, c in zip(out, cards, strict=True)]


RACE_SPREAD = 2.0
"""Variance of the cards still to be taken that go to one side, in units of a fair coin per
card (R / 4): captures come in clumps, so more than a coin's."""
DECK = 52


@cache
def race_chances(mine: int, theirs: int, spread: float = RACE_SPREAD) -> tuple[float, float]:
    """The chances that each of two sides ends the hand with 27 cards or more, having taken
    `mine` and `theirs`: the cards still to be taken (R) split as a normal law of mean R / 2
    and variance `spread` R / 4 (continuity-corrected).

    >>> race_chances(26, 20)[1], round(race_chances(26, 20)[0], 2)
    (0.0, 0.93)
    >>> race_chances(30, 10)
    (1.0, 0.0)
    """
    left = DECK - mine - theirs
    need, need_other = 27 - mine, 27 - theirs
    if left <= 0:
        return float(need <= 0), float(need_other <= 0)
    mean, sd = left / 2, sqrt(spread * left / 4)

    def below(x: float) -> float:
        return 0.5 * (1.0 + erf((x - mean) / (sd * sqrt(2.0))))

    first = 1.0 if need <= 0 else 0.0 if need > left else 1.0 - below(need - 0.5)
    second = (
        1.0 if need_other <= 0 else 0.0 if need_other > left else below(left - need_other + 0.5)
    )
    return first, second


def race_estimate(sim: HandSim) -> list[float]:
    """Points per side, as `estimate`, but with two sides the most-cards points are credited
    by each side's chance of reaching 27 cards (`race_chances`) rather than 0.15 a card: a
    side at 25 cards against 20 with 7 to take has most of the 3 points already."""
    if sim.current is None or len(sim.cards) != 2:
        return estimate(sim)
    rules = sim.rules
    first, second = race_chances(sim.cards[0], sim.cards[1])
    most = rules.most_cards_points
    (p0, p1), (t0, t1) = sim.points, sim.tablas
    return [
        p0 + t0 * rules.tabla_points + most * first,
        p1 + t1 * rules.tabla_points + most * second,
    ]
