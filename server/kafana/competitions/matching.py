"""Swiss pairings of two-seat tables by maximum-weight matching (Edmonds' blossom, rustworkx).

A round is a perfect matching of the ranked field (plus a bye when it is odd) that, in this
order of importance: repeats fewest pairs, gives no entrant a second bye, keeps fewest pairs of
entrants who both need the same seat, gives the bye to the lowest ranked, and pairs entrants
close in the ranking (the sum of squared rank distances is least). Each weight is an exact
integer, each criterion worth more than everything after it together, so one matching decides
them all in polynomial time: no search that can run long, whatever the field.

The blossom algorithm is cubic in the players it matches, so a large field is matched in
blocks of about `BLOCK` down the ranking (the top of a score group stays near its neighbours):
a block's pairs that would repeat go on to the next block, where other opponents are. A field
of up to 1.5 x `BLOCK` is one block: its answer is exact. When `budget_s` runs out, the rest is
paired greedily (each from the top with the nearest entrant not met yet).

>>> pair_swiss(["a", "b", "c", "d"], played={frozenset("ab")}, balance={}, byes=set())
([('a', 'c'), ('b', 'd')], None, 0)
>>> pair_swiss(["a", "b", "c"], played=set(), balance={}, byes={"c"})
([('a', 'c')], 'b', 0)
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import rustworkx as rx

Pair = tuple[str, str]
BLOCK = 128
"""Entrants matched at once: a block of 256 takes ~0.2 s (docs/competitions.md)."""
BUDGET_S = 5.0
"""Seconds the matchings of one round may take before the rest is paired greedily."""


def clash(a: str, b: str, balance: Mapping[str, int]) -> bool:
    """True when both need the same seat (a seat-0 imbalance of 2 or more the same way)."""
    x, y = balance.get(a, 0), balance.get(b, 0)
    return (x >= 2 and y >= 2) or (x <= -2 and y <= -2)


def pair_swiss(
    ranked: Sequence[str],
    *,
    played: set[frozenset[str]],
    balance: Mapping[str, int],
    byes: set[str],
    budget_s: float = BUDGET_S,
) -> tuple[list[Pair], str | None, int]:
    """The pairs (in ranking order, unseated), the bye (None for an even field) and how many
    pairs repeat an earlier game (0 whenever a repeat-free round exists within a block)."""
    order = list(ranked)
    if len(order) % 2 and len(order) > BLOCK:  # the bye's taker must be in the last block
        tail = order[-(BLOCK // 2) :]
        if all(p in byes for p in tail):
            taker = next((p for p in reversed(order) if p not in byes), None)
            if taker is not None:
                order.remove(taker)
                order.append(taker)
    deadline = time.monotonic() + budget_s
    met: dict[str, set[str]] = {}
    for pair in played:
        for p in pair:
            met.setdefault(p, set()).update(pair)
    pairs: list[Pair] = []
    bye: str | None = None
    carry: list[str] = []
    rest = order
    while rest or carry:
        if time.monotonic() > deadline:
            more, bye = _greedy(carry + rest, played, byes)
            pairs += more
            break
        take = max(BLOCK - len(carry), BLOCK // 2)
        last = len(rest) - take < BLOCK // 2
        block = carry + (rest if last else rest[:take])
        rest = [] if last else rest[take:]
        if not last and len(block) % 2:
            rest.insert(0, block.pop())
        found, bye = _match(block, met, balance, byes, odd=last and len(block) % 2 == 1)
        carry = []
        for a, b in found:
            if not last and frozenset((a, b)) in played and len(carry) < BLOCK // 2:
                carry += [a, b]  # try other opponents in the next block
            else:
                pairs.append((a, b))
        if last:
            break
    rank = {p: i for i, p in enumerate(order)}
    pairs.sort(key=lambda pair: rank[pair[0]])
    repeats = sum(frozenset(pair) in played for pair in pairs)
    return pairs, bye, repeats


def _match(
    block: list[str],
    met: Mapping[str, set[str]],
    balance: Mapping[str, int],
    byes: set[str],
    *,
    odd: bool,
) -> tuple[list[Pair], str | None]:
    """The best pairs of one block (and its bye when `odd`), by one maximum-weight matching."""
    m = len(block)
    # each criterion outweighs everything after it together (the squared distances of a
    # round add up to less than `rank_step`); every weight stays far below 2**62
    rank_step = (m // 2 + 1) * m * m + 1
    clashing = m * rank_step
    second_bye = (m // 2 + 1) * clashing
    repeat = 2 * second_bye
    top = (m // 2 + 1) * repeat
    graph: rx.PyGraph[int, int] = rx.PyGraph()
    graph.add_nodes_from(range(m + odd))
    edges: list[tuple[int, int, int]] = []
    for i, a in enumerate(block):
        opponents = met.get(a, set())
        for j in range(i + 1, m):
            b = block[j]
            cost = (j - i) ** 2
            if b in opponents:
                cost += repeat
            if clash(a, b, balance):
                cost += clashing
            edges.append((i, j, top - cost))
        if odd:  # vertex m is the bye
            edges.append((i, m, top - rank_step * (m - 1 - i) - (second_bye if a in byes else 0)))
    graph.add_edges_from(edges)
    matched = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    pairs: list[Pair] = []
    bye: str | None = None
    for x, y in matched:
        i, j = min(x, y), max(x, y)
        if j == m:
            bye = block[i]
        else:
            pairs.append((block[i], block[j]))
    return pairs, bye


def _greedy(
    players: list[str], played: set[frozenset[str]], byes: set[str]
) -> tuple[list[Pair], str | None]:
    """Each from the top with the nearest not met yet (or the nearest): the budget's end."""
    left = list(players)
    bye: str | None = None
    if len(left) % 2:
        bye = next((p for p in reversed(left) if p not in byes), left[-1])
        left.remove(bye)
    pairs: list[Pair] = []
    while left:
        top = left.pop(0)
        other = next((p for p in left if frozenset((top, p)) not in played), left[0])
        left.remove(other)
        pairs.append((top, other))
    return pairs, bye
