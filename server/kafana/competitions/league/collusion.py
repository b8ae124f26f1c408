"""A league's collusion report: pairs of players whose results against each other are
improbable for their ratings.

Two accounts of one person (or two friends) can feed one of them wins: one loses on purpose
whenever they meet. Their games against each other then go one way far more often than their
ratings predict. For every pair that met at least `min_games` times in rated matches, the
report fits every player's strength **without the pair's own games** (so the dumped games do
not explain themselves, as the winner's inflated rating would): a Bradley-Terry fit of all the
season's other head-to-head results at once (`strengths`), each strength with its
uncertainty. It then takes the chance of at least as many wins by the pair's winner if both
played to their strengths (`improbability`: the binomial tail, averaged over the
uncertainty of their gap, so two players nobody knows much about are not suspects for a run
of wins). A pair is flagged when that chance is below `alpha` divided by the number of pairs
looked at (Bonferroni: an honest league of any size is flagged with probability at most
`alpha`). Draws count half a win to each; at tables of 3 or 4 every two players at a table
are a head-to-head result by their scores. It is evidence to look at (records, timing,
accounts), not a verdict.

Cost: one fit per pair looked at (pairs with `min_games` or more meetings; a rematch limit
keeps those few), each over the distinct pairs that met (not the matches).

>>> games = [Played(n, ("ana", "bob"), (0.0, 1.0)) for n in range(1, 9)]
>>> report(games, min_games=5)  # 8 wins of 8 between two unrated players: could be skill
[]
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PRIOR = 2.0
"""The prior's spread of strengths (logit scale: 2 is a 88% favourite at one sd apart)."""
MIN_GAMES = 5
ALPHA = 0.01


@dataclass(frozen=True)
class Played:
    """One rated match: its number (the order it was rated in), players and rated scores
    (per seat, higher is better)."""

    number: int
    players: tuple[str, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True, order=True)
class Suspect:
    """A pair whose results are improbable for their strengths (ordered by `p_value`)."""

    p_value: float  # P(at least `wins` wins) if both played to their strengths
    winner: str  # the one the results favour
    loser: str
    games: int  # rated matches between them
    wins: float  # the winner's wins against the loser (a draw half)
    expected: float  # the winner's expected wins at strengths fitted without these games
    threshold: float  # alpha over the pairs looked at


def from_export(text: str) -> list[Played]:
    """The rated matches of a season's `matches.jsonl` (`kafana league export`), in order."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = json.loads(line)
        if not m.get("rated") or len(m.get("scores", ())) != len(m.get("players", ())):
            continue
        out.append(
            Played(int(m["match"]), tuple(m["players"]), tuple(float(s) for s in m["scores"]))
        )
    return sorted(out, key=lambda p: p.number)


Strength = tuple[float, float]
"""A player's fitted strength (logit scale) and its information (precision)."""


def strengths(
    results: Mapping[tuple[str, str], Sequence[float]], prior: float = PRIOR, rounds: int = 200
) -> dict[str, Strength]:
    """Each player's Bradley-Terry strength from head-to-head results ((a, b) -> a's results,
    1 / 0.5 / 0), P(a beats b) = 1 / (1 + exp(b - a)), fitted all at once (so the order of the
    games and early luck do not matter, unlike a running rating), with a N(0, `prior`^2)
    prior that keeps an unbeaten player finite; and each one's information (the curvature:
    1 / information is its variance).

    >>> fit = strengths({("a", "b"): [1.0] * 6 + [0.0] * 2})
    >>> round(fit["a"][0] - fit["b"][0], 2) > 0
    True
    """
    games: dict[str, list[tuple[str, int, float]]] = {}
    for (a, b), scores in results.items():
        won = sum(scores)
        games.setdefault(a, []).append((b, len(scores), won))
        games.setdefault(b, []).append((a, len(scores), len(scores) - won))
    theta = dict.fromkeys(games, 0.0)
    info = dict.fromkeys(games, 1 / prior**2)
    for _ in range(rounds):
        moved = 0.0
        for player, met in games.items():
            gain, curve = -theta[player] / prior**2, 1 / prior**2
            for other, n, won in met:
                chance = 1 / (1 + math.exp(theta[other] - theta[player]))
                gain += won - n * chance
                curve += n * chance * (1 - chance)
            step = gain / curve
            theta[player] += step
            info[player] = curve
            moved = max(moved, abs(step))
        if moved < 1e-6:
            break
    return {p: (theta[p], info[p]) for p in games}


def win_chance(a: Strength, b: Strength) -> float:
    """The chance that `a` beats `b` (a draw counted half) at their fitted strengths."""
    return 1 / (1 + math.exp(b[0] - a[0]))


def improbability(a: Strength, b: Strength, n: int, k: int, points: int = 121) -> float:
    """P(`a` wins `k` or more of `n` games against `b`) if both play to their strengths: each
    game won with chance 1 / (1 + exp(-t)) for their true gap t, itself uncertain, t ~
    N(a - b, 1 / info_a + 1 / info_b) and shared by all `n` games (a binomial at the fitted
    chance alone would call a pair improbable whose strengths are merely unsure). Integrated
    on a grid of `points` over +-6 standard deviations.

    >>> even = (0.0, 1e6)
    >>> round(improbability(even, even, 8, 8), 4), round(improbability((0, 1), (0, 1), 8, 8), 3)
    (0.0039, 0.082)
    """
    mean, spread = a[0] - b[0], math.sqrt(1 / a[1] + 1 / b[1])
    total = weight = 0.0
    for i in range(points):
        z = -6 + 12 * i / (points - 1)
        w = math.exp(-z * z / 2)
        total += w * tail(n, k, 1 / (1 + math.exp(-(mean + z * spread))))
        weight += w
    return min(1.0, total / weight)


def tail(n: int, k: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p).

    >>> round(tail(8, 8, 0.5), 6), tail(8, 0, 0.3)
    (0.003906, 1.0)
    """
    if k <= 0:
        return 1.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def _head_to_head(matches: Sequence[Played]) -> dict[tuple[str, str], list[float]]:
    """(a, b) with a < b -> a's result in each match they both played (1, 0.5, 0)."""
    out: dict[tuple[str, str], list[float]] = {}
    for m in matches:
        for (i, a), (j, b) in itertools.combinations(enumerate(m.players), 2):
            if a == b:
                continue
            mine, theirs = m.scores[i], m.scores[j]
            result = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            if a > b:
                a, b, result = b, a, 1.0 - result
            out.setdefault((a, b), []).append(result)
    return out


def pairs_met(matches: Sequence[Played], min_games: int = MIN_GAMES) -> int:
    """How many pairs met in `min_games` rated matches or more (the pairs `report` looks at)."""
    return sum(1 for v in _head_to_head(matches).values() if len(v) >= min_games)


def report(
    matches: Sequence[Played], min_games: int = MIN_GAMES, alpha: float = ALPHA
) -> list[Suspect]:
    """The pairs whose results against each other are improbable for their strengths, most
    improbable first.

    A pair that dumps games lowers its loser's strength, which makes that player's honest
    wins against others look improbable too. So the pairs that look suspect at first (below
    ten times the threshold, each at strengths fitted without its own games) are taken again
    from the most one-sided (share of wins) down, each at strengths fitted also without the
    games of the pairs flagged before it: once the dumped games leave the fit, the loser's
    honest results look as they are."""
    met = _head_to_head(matches)
    pairs = {k: v for k, v in met.items() if len(v) >= min_games}
    if not pairs:
        return []
    threshold = alpha / len(pairs)
    first = {k: _suspect(met, k, v, threshold, ()) for k, v in pairs.items()}
    near = [s for s in first.values() if s.p_value < 10 * threshold]
    near.sort(key=lambda s: (-s.wins / s.games, s.p_value))
    flagged: list[tuple[str, str]] = []
    out = []
    for s in near:
        pair = (min(s.winner, s.loser), max(s.winner, s.loser))
        again = _suspect(met, pair, pairs[pair], threshold, flagged)
        if again.p_value < threshold:
            out.append(again)
            flagged.append(pair)
    return sorted(out)


def _suspect(
    met: Mapping[tuple[str, str], Sequence[float]],
    pair: tuple[str, str],
    results: Sequence[float],
    threshold: float,
    without: Sequence[tuple[str, str]],
) -> Suspect:
    """How improbable `pair`'s results are, at strengths fitted without its games (and
    without those of the pairs `without`)."""
    left = {k: v for k, v in met.items() if k != pair and k not in without}
    fit = strengths(left)
    a, b = pair
    ra, rb = fit.get(a, (0.0, 1 / PRIOR**2)), fit.get(b, (0.0, 1 / PRIOR**2))
    n, won = len(results), sum(results)
    if won * 2 < n:  # the results favour b
        a, b, ra, rb, won = b, a, rb, ra, n - won
    p_value = improbability(ra, rb, n, math.floor(won))
    return Suspect(p_value, a, b, n, won, round(n * win_chance(ra, rb), 3), threshold)


def report_csv(suspects: Sequence[Suspect]) -> str:
    """The report as CSV: winner, loser, games, wins, expected, p_value, threshold."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("winner", "loser", "games", "wins", "expected", "p_value", "threshold"))
    for s in suspects:
        p, t = f"{s.p_value:.3g}", f"{s.threshold:.3g}"
        writer.writerow((s.winner, s.loser, s.games, s.wins, s.expected, p, t))
    return out.getvalue()
