"""Pairings: round robin and Swiss, for tables of 2, 3 or 4 seats (or 2 against 2).

Two seats: round robin by the circle method seated as Berger tables, Swiss without repeats,
with seat balance and byes. More seats: a round robin plays every group of k entrants once
(with partnerships, every four in each of their three splits), packed into rounds of
disjoint tables; a Swiss groups neighbours in the standings, never the same k entrants
twice (with partnerships, never the same two partners twice). Round 1 of a Swiss puts the
top of the entry ranking (by rating) against the bottom: table i takes one entrant from each
tier.

>>> round_robin(["a", "b", "c", "d"])[0]
[('a', 'd'), ('b', 'c')]
>>> swiss(["a", "b", "c", "d"], played={frozenset("ab")}, balance={}, byes=set())
([('a', 'c'), ('b', 'd')], None)
>>> round_robin_tables(["a", "b", "c", "d"], seats=4, partnerships=True)
[[('a', 'b', 'c', 'd')], [('b', 'd', 'a', 'c')], [('d', 'c', 'a', 'b')]]
>>> max_rounds("swiss", 4), max_rounds("swiss", 5), max_rounds("swiss", 6, seats=3)
(3, 5, 10)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from kafana.competitions import matching
from kafana.errors import InvalidInputError

Pair = tuple[str, str]  # (seat 0, seat 1)
Table = tuple[str, ...]  # entrant per seat; with partnerships seats 0, 2 against 1, 3
MAX_GAMES = 2000
"""The most games a round robin of tables may have (every group of k entrants plays once)."""
MAX_SCHEDULED_GAMES = 8192
"""The most games of a fixed schedule (a round robin, a duplicate event): a two-seat round
robin of 128 entrants; a snapshot keeps every game (a 1,024-entrant round robin was 523,776)."""
SEARCH_BUDGET = 200_000
"""Tables a Swiss grouping tries before it gives up (then no grouping is left)."""
Seating = Literal["berger", "greedy"]
"""How a two-seat round robin is seated (`round_robin`)."""
SEATING: Seating = "berger"
"""The seating of new events; "greedy" only for events begun before (their snapshots)."""


def round_robin(entrants: Sequence[str], seating: Seating = SEATING) -> list[list[Pair]]:
    """Every round of a single round robin; an odd field gives each entrant one bye.

    A bye shows as a pair with "" (the entrant is left out of that round's list). Seats:
    `_berger_seats` (the bye the staying player), so everyone is first in half its games (of an
    odd number: one more or one fewer); "greedy" (`_balance`, the entrant first staying) is
    how events begun before were seated, and their snapshots keep it.
    """
    players: list[str] = list(entrants)
    if seating == "greedy":
        return _balance(_circle(players + [""] * (len(players) % 2)))
    return _berger(_circle([""] * (len(players) % 2) + players))


def _circle(players: list[str]) -> list[list[Pair]]:
    """The circle method: `players[0]` stays, the rest turn one place a round; table i pairs
    `players[i]` with `players[n - 1 - i]`, so table 0 is the staying player's."""
    n = len(players)
    rounds: list[list[Pair]] = []
    for _ in range(n - 1):
        rounds.append([(players[i], players[n - 1 - i]) for i in range(n // 2)])
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def _berger(rounds: list[list[Pair]]) -> list[list[Pair]]:
    """`_circle`'s rounds seated as Berger tables seat them (`_berger_seats`); pairs with the
    bye ("") left out."""
    return [
        [_berger_seats(pair, r, i) for i, pair in enumerate(pairs) if "" not in pair]
        for r, pairs in enumerate(rounds)
    ]


def _berger_seats(pair: Pair, round_index: int, table: int) -> Pair:
    """Table 0: the staying player first in rounds 0, 2, 4, ...; any other table: its left
    player first at an odd table, its right one at an even table. So a turning player is
    first at its odd places (1, 3, ...) and changes seat as it turns one place a round."""
    first = round_index % 2 == 0 if table == 0 else table % 2 == 1
    return pair if first else (pair[1], pair[0])


def _balance(rounds: list[list[Pair]]) -> list[list[Pair]]:
    """Seats swapped greedily toward even first-seat counts (it misses: at 10 entrants one
    is first in 3 of its 9 games, another in 6); pairs with the bye ("") left out."""
    first: dict[str, int] = {}
    out: list[list[Pair]] = []
    for pairs in rounds:
        seated: list[Pair] = []
        for a, b in pairs:
            if "" in (a, b):
                continue
            if first.get(b, 0) < first.get(a, 0):
                a, b = b, a
            first[a] = first.get(a, 0) + 1
            seated.append((a, b))
        out.append(seated)
    return out


def swiss(
    ranked: Sequence[str],
    *,
    played: set[frozenset[str]],
    balance: Mapping[str, int],
    byes: set[str],
    budget_s: float = matching.BUDGET_S,
) -> tuple[list[Pair], str | None]:
    """One Swiss round: pairs (top of the ranking first) and the entrant with the bye.

    `ranked` is the current ranking (best first); `balance` is each entrant's games in seat 0
    minus games in seat 1. Nobody meets an opponent twice; the bye goes to the lowest-ranked
    entrant who has not had one; the entrant with the lower balance gets seat 0, and two
    entrants who both need the same seat (balance 2 or more the same way) are kept apart
    when any other pairing exists; entrants close in the ranking meet. One maximum-weight
    matching decides it all (`kafana.competitions.matching`: polynomial, within `budget_s`).
    Raises ValueError when no pairing without repeats exists.
    """
    pairs, bye, repeats = matching.pair_swiss(
        ranked, played=played, balance=balance, byes=byes, budget_s=budget_s
    )
    if repeats:
        raise ValueError("no Swiss pairing without a repeat is left")
    return [_seat(a, b, balance) for a, b in pairs], bye


def _seat(a: str, b: str, balance: Mapping[str, int]) -> Pair:
    return (b, a) if balance.get(b, 0) < balance.get(a, 0) else (a, b)


def groups(entrants: Sequence[str], seats: int, partnerships: bool = False) -> list[Table]:
    """Every table of a round robin of `seats`-seat tables, seated in entry order."""
    out: list[Table] = []
    for combo in itertools.combinations(entrants, seats):
        if partnerships:
            a, b, c, d = combo
            out += [(a, b, c, d), (a, c, b, d), (a, b, d, c)]  # a with c, with b, with d
        else:
            out.append(combo)
    return out


def round_robin_games(entrants: int, seats: int = 2, partnerships: bool = False) -> int:
    """How many games a round robin of `entrants` has at `seats`-seat tables."""
    if seats == 2 and not partnerships:
        return math.comb(entrants, 2)
    return math.comb(entrants, seats) * (3 if partnerships else 1)


def round_robin_tables(
    entrants: Sequence[str],
    seats: int = 2,
    partnerships: bool = False,
    seating: Seating = SEATING,
) -> list[list[Table]]:
    """Every round of a round robin of `seats`-seat tables (two seats: `round_robin`, seated
    by `seating`).

    Tables are packed greedily into rounds of disjoint tables; entrants left out of a round
    have a bye. Seats rotate so each entrant holds each seat about as often as the others.
    """
    if seats == 2 and not partnerships:
        return [list(pairs) for pairs in round_robin(entrants, seating)]
    games = round_robin_games(len(entrants), seats, partnerships)
    if games > MAX_GAMES:
        raise InvalidInputError(
            f"a round robin of {len(entrants)} entrants at {seats}-seat tables has {games} games,"
            f" more than {MAX_GAMES}: choose a Swiss"
        )
    remaining = groups(entrants, seats, partnerships)
    rounds: list[list[Table]] = []
    counts: dict[tuple[str, int], int] = {}
    while remaining:
        used: set[str] = set()
        this: list[Table] = []
        rest: list[Table] = []
        for table in remaining:
            if used.isdisjoint(table):
                this.append(rotate(table, counts))
                used.update(table)
            else:
                rest.append(table)
        rounds.append(this)
        remaining = rest
    return _even_seats(rounds, counts)


def _even_seats(
    rounds: list[list[Table]], counts: dict[tuple[str, int], int], budget: int = 20_000
) -> list[list[Table]]:
    """The tables turned so nobody holds a seat more than its share (games / seats, rounded
    up), when a short search finds such turns; else as `rotate` turned them."""
    tables = [table for pairs in rounds for table in pairs]
    if not tables:
        return rounds
    seats = len(tables[0])
    games = Counter(e for table in tables for e in table)
    cap = {e: -(-n // seats) for e, n in games.items()}
    held: dict[tuple[str, int], int] = {}
    chosen: list[Table] = []
    left = budget
    # A depth-first search over the tables, one turn each, with its own stack (`tried`: the
    # turns tried at each table so far): a recursion as deep as the tables (up to MAX_GAMES)
    # passed Python's limit (RecursionError for 3 seats and 20-23 entrants: no event started).
    tried = [0] * len(tables)
    i = 0
    while i < len(tables):
        table = tables[i]
        while tried[i] < seats:
            shift = tried[i]
            tried[i] += 1
            left -= 1
            if left < 0:
                return rounds
            turned = table[shift:] + table[:shift]
            if any(held.get((e, s), 0) >= cap[e] for s, e in enumerate(turned)):
                continue
            for s, e in enumerate(turned):
                held[(e, s)] = held.get((e, s), 0) + 1
            chosen.append(turned)
            i += 1
            if i < len(tables):
                tried[i] = 0
            break
        else:  # no turn fits: take back the table before's and try its next turn
            i -= 1
            if i < 0:
                return rounds
            for s, e in enumerate(chosen.pop()):
                held[(e, s)] -= 1
    counts.clear()
    counts.update(held)
    found = iter(chosen)
    return [[next(found) for _ in pairs] for pairs in rounds]


def rotate(table: Table, counts: dict[tuple[str, int], int]) -> Table:
    """`table` turned so its entrants hold the seats they have held least; counts updated.

    A rotation keeps partnerships (seats 0 and 2, 1 and 3) together.
    """
    n = len(table)
    turns = [table[shift:] + table[:shift] for shift in range(n)]
    best = min(turns, key=lambda t: sum(counts.get((e, seat), 0) for seat, e in enumerate(t)))
    for seat, entrant in enumerate(best):
        counts[(entrant, seat)] = counts.get((entrant, seat), 0) + 1
    return best


def max_rounds(
    kind: str, entrants: int | Sequence[str], seats: int = 2, partnerships: bool = False
) -> int:
    """The most rounds an event of `kind` can have for its field.

    Round robin and duplicate: the rounds of the schedule. Swiss: as many rounds as there are
    tables without a repeat (two seats: n - 1 for an even field, n for an odd one), an upper
    bound; a Swiss may still find no grouping earlier, and then ends with full standings.
    """
    n = entrants if isinstance(entrants, int) else len(entrants)
    if n < seats:
        return 0
    if kind != "swiss":
        return len(round_robin_tables([str(i) for i in range(n)], seats, partnerships))
    if partnerships:
        return math.comb(n, 2) // (2 * (n // 4))
    return math.comb(n, seats) // (n // seats)


def swiss_tables(
    ranked: Sequence[str],
    *,
    history: Sequence[Table],
    byes: Mapping[str, int],
    seats: int = 2,
    partnerships: bool = False,
) -> tuple[list[Table], list[str]]:
    """One Swiss round: its tables (best ranked first) and the entrants with a bye.

    `ranked` is the current ranking (round 1: by rating), `history` every table so far and
    `byes` each entrant's byes so far. Byes go to the lowest ranked with the fewest byes.
    Raises ValueError when no round without a repeat is left.
    """
    order = list(ranked)
    spare = len(order) % seats
    if not history:
        out = order[len(order) - spare :] if spare else []
        rest = order[: len(order) - spare]
        tiers = len(rest) // seats
        folded = [rest[t + tier * tiers] for t in range(tiers) for tier in range(seats)]
        tables = [tuple(folded[i : i + seats]) for i in range(0, len(folded), seats)]
        return [_split(t) if partnerships else t for t in tables], out
    if seats == 2 and not partnerships:
        played = {frozenset(t) for t in history}
        balance: dict[str, int] = {}
        for a, b in history:
            balance[a] = balance.get(a, 0) + 1
            balance[b] = balance.get(b, 0) - 1
        pairs, bye = swiss(order, played=played, balance=balance, byes=set(byes))
        return list(pairs), [bye] if bye is not None else []
    out = sorted(reversed(order), key=lambda e: byes.get(e, 0))[:spare]
    rest = [e for e in order if e not in out]
    found = _group(rest, seats, partnerships, history)
    counts: dict[tuple[str, int], int] = {}
    for table in history:
        for seat, entrant in enumerate(table):
            counts[(entrant, seat)] = counts.get((entrant, seat), 0) + 1
    return [rotate(t, counts) for t in found], out


def _split(members: Sequence[str]) -> Table:
    """Four members in rank order seated as 1 and 4 against 2 and 3."""
    a, b, c, d = members
    return (a, b, d, c)


def _group(
    players: list[str], seats: int, partnerships: bool, history: Sequence[Table]
) -> list[Table]:
    played = {frozenset(t) for t in history}
    partners = {frozenset(t[i::2]) for t in history for i in (0, 1)} if partnerships else set()
    budget = [SEARCH_BUDGET]

    def arrange(members: Sequence[str]) -> Table | None:
        if not partnerships:
            return None if frozenset(members) in played else tuple(members)
        a, b, c, d = members
        for (w, x), (y, z) in (((a, d), (b, c)), ((a, c), (b, d)), ((a, b), (c, d))):
            if frozenset((w, x)) not in partners and frozenset((y, z)) not in partners:
                return (w, y, x, z)
        return None

    def search(rest: list[str]) -> list[Table] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for combo in itertools.combinations(range(len(others)), seats - 1):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            table = arrange([top, *(others[i] for i in combo)])
            if table is None:
                continue
            tail = search([o for i, o in enumerate(others) if i not in combo])
            if tail is not None:
                return [table, *tail]
        return None

    found = search(players)
    if found is None:
        raise ValueError("no Swiss round without a repeat table is left")
    return found
