"""The consistency checks of `bench_league_scale.py`, over what the server publishes and what the
players were told.

1. settled once, rated once: every match made is settled and its fair record verifies
   (`kafana.competitions.verify`: the secret, the deals, every move) with the match's players,
   secret and scores; each player was told of its end at most once; each rated match is one
   rated game on each player's history, every player's game count is the number of rated
   matches they played;
2. no seat taken by anyone else: every table's seats are taken by the match's players, in its
   order (the table's seats and its SEAT_TAKEN events), and every ticket went to the player of
   its seat;
3. the leaderboard is the rated results replayed: the ratings recomputed from the settled
   results in the order the matches were made (a player has one match at a time, so that is
   each player's own order; match numbers are not, in a league of rating bands) equal the
   board's, row by row, and its order.

Each check returns a list of problems (empty: it holds).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kafana.competitions.envelope import FairRecord
from kafana.competitions.ratings import RatingBook
from kafana.competitions.verify import VerificationError, verify
from kafana.errors import KafanaError
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kafana.v1 import leagues_pb2 as pb
from kafana_client.aio import AsyncClient
from kafana_client.leagues import Leagues, match_numbers

T = TypeVar("T")
SCORE = state_pb2.RESULT_REASON_SCORE


def no_show(m: pb.MatchInfo) -> bool:
    """A match settled because a seat was not taken (nobody came, or a forfeit): no record."""
    return (
        m.ending == state_pb2.RESULT_REASON_NO_SHOW
        or m.forfeit_reason == state_pb2.EVENT_REASON_NO_SHOW
    )


TOLERANCE = 1e-6
POOL = "league"
SHOWN = 10  # problems listed per check


@dataclass
class Published:
    """What the server shows of a league after the run."""

    info: pb.LeagueInfo
    matches: dict[int, pb.MatchInfo] = field(default_factory=dict)
    tables: dict[int, state_pb2.TableInfo] = field(default_factory=dict)
    records: dict[int, service_pb2.GetRecordResponse] = field(default_factory=dict)
    board: list[pb.BoardRow] = field(default_factory=list)
    players: dict[str, pb.PlayerInfo] = field(default_factory=dict)


async def spread(
    clients: Sequence[AsyncClient],
    items: Sequence[T],
    call: Callable[[AsyncClient, T], Awaitable[Any]],
) -> list[Any]:
    """`call(client, item)` for every item, the clients taking turns (each account's calls stay
    under the per-caller rate limit), 64 at a time."""
    gate = asyncio.Semaphore(64)

    async def one(i: int, item: T) -> Any:
        async with gate:
            return await call(clients[i % len(clients)], item)

    return await asyncio.gather(*(one(i, item) for i, item in enumerate(items)))


async def published(clients: Sequence[AsyncClient], league: str) -> Published:
    """Every match (with its table and record), the whole board and every player on it."""
    info = await Leagues(clients[0]).get(league)
    found = Published(info)
    numbers = match_numbers(info)

    async def fetch(client: AsyncClient, number: int) -> pb.MatchInfo:
        return await Leagues(client).match(league, number, record=True)

    for m in await spread(clients, numbers, fetch):
        found.matches[m.match] = m
    settled = [m for m in found.matches.values() if m.table_id]
    tables = await spread(clients, settled, lambda c, m: c.get_table(m.table_id))
    records = await spread(clients, settled, lambda c, m: c.record(m.table_id))
    for m, table, record in zip(settled, tables, records, strict=True):
        found.tables[m.match] = table
        found.records[m.match] = record
    token = ""
    while True:
        rows = await Leagues(clients[0]).board(
            league, season=info.season, page_size=200, page_token=token
        )
        found.board += rows.rows
        token = rows.next_page_token
        if not token:
            break
    names = sorted({p for m in found.matches.values() for p in m.players})
    answers = await spread(
        clients, names, lambda c, p: Leagues(c).player(league, p, season=info.season, matches=200)
    )
    found.players = {p.player: p for p in answers}
    return found


def _shown(problems: list[str]) -> list[str]:
    more = len(problems) - SHOWN
    return problems[:SHOWN] + ([f"... and {more} more"] if more > 0 else [])


def record_problem(m: pb.MatchInfo) -> str | None:
    """What is wrong with a settled match's fair record (None: it verifies and agrees)."""
    try:
        done = verify(FairRecord.from_text(m.record))
    except (VerificationError, KafanaError, ValueError) as error:
        return f"match {m.match}: the fair record is rejected: {error}"
    fair = FairRecord.from_text(m.record)
    if fair.get("match") != str(m.match) or list(done.seats) != list(m.players):
        return f"match {m.match}: the record is of match {fair.get('match')} {done.seats}"
    if done.secret != m.secret:
        return f"match {m.match}: the record's secret is not the match's"
    if m.ending == SCORE and [float(f) for f in done.figures] != list(m.scores):
        return f"match {m.match}: record scores {done.figures}, match {list(m.scores)}"
    return None


def settled_once(data: Published, told: list[dict[str, Any]]) -> list[str]:
    """Check 1: every match settled, its record verified; told once per player; rated once on
    every history."""
    problems = []
    for number, m in sorted(data.matches.items()):
        if m.state != pb.MATCH_STATE_SETTLED:
            state = pb.MatchState.Name(m.state).removeprefix("MATCH_STATE_").lower()
            problems.append(f"match {number} is {(m.state and state) or 'missing'}, not settled")
        elif m.record and (problem := record_problem(m)) is not None:
            problems.append(problem)
        elif not m.record and m.table_id and not no_show(m):
            ending = state_pb2.ResultReason.Name(m.ending).removeprefix("RESULT_REASON_").lower()
            problems.append(f"match {number} ({ending}) has no fair record")
    for (number, account), count in Counter((t["match"], t["account"]) for t in told).items():
        if count > 1:
            problems.append(f"{account} was told {count} times that match {number} is settled")
        theirs = data.matches.get(number)
        if theirs is None or account not in theirs.players:
            problems.append(f"{account} was told of match {number}, not one of theirs")
    rated = [m for m in data.matches.values() if m.rated]
    played: Counter[str] = Counter(p for m in rated for p in m.players)
    games: Counter[int] = Counter()
    for name, player in data.players.items():
        if player.games != played[name]:
            problems.append(f"{name}: {player.games} rated games, {played[name]} rated matches")
        seen = [point.game for point in player.history]
        if len(seen) != len(set(seen)):
            problems.append(f"{name}: a rated game twice in the history {seen}")
        games.update(seen)
    seats = {len(m.players) for m in rated} or {2}
    if len(games) != len(rated):
        problems.append(f"{len(games)} rated games on the histories, {len(rated)} rated matches")
    for game, count in games.items():
        if count not in seats:
            problems.append(f"rated game {game} is on {count} histories")
    return _shown(problems)


def seats_kept(data: Published, tickets: list[dict[str, Any]]) -> list[str]:
    """Check 2: each table's seats taken only by the match's players, in seat order."""
    problems = []
    for number, m in sorted(data.matches.items()):
        table = data.tables.get(number)
        if table is None:
            problems.append(f"match {number}: no table")
            continue
        for seat in table.seats:
            if seat.taken and seat.name != m.players[seat.seat]:
                problems.append(
                    f"match {number}: seat {seat.seat} taken by {seat.name!r}, "
                    f"the match's player is {m.players[seat.seat]}"
                )
        for event in data.records[number].events:
            taken = event.kind == events_pb2.EVENT_KIND_SEAT_TAKEN
            if taken and event.name != m.players[event.seat]:
                problems.append(
                    f"match {number}: seat {event.seat} taken by {event.name!r} "
                    f"(the match's player is {m.players[event.seat]})"
                )
    for t in tickets:
        made = data.matches.get(t["match"])
        if made is None:
            problems.append(f"a ticket for match {t['match']}, which the league does not have")
        elif t["players"][t["seat"]] != t["account"] or list(made.players) != t["players"]:
            problems.append(
                f"{t['account']} got a ticket for seat {t['seat']} of match {t['match']} "
                f"({' - '.join(t['players'])})"
            )
        elif t["table"] != made.table_id:
            problems.append(f"match {t['match']}: ticket table {t['table']}, {made.table_id}")
    return _shown(problems)


def board_replayed(data: Published) -> list[str]:
    """Check 3: the board equals the rated results replayed in the order they were made."""
    book = RatingBook()
    for _number, m in sorted(data.matches.items(), key=lambda kv: (kv[1].created_ms, kv[0])):
        if m.rated:
            book.rate(POOL, [[p] for p in m.players], list(m.scores))
    expected = book.leaderboard(POOL)
    problems = []
    if len(expected) != len(data.board):
        problems.append(f"{len(data.board)} players on the board, {len(expected)} rated")
    ratings = {name: rating for name, rating in expected}
    for i, row in enumerate(data.board):
        want = ratings.get(row.player)
        if want is None:
            problems.append(f"{row.player} is on the board with no rated match")
            continue
        if not math.isclose(row.rating, want.conservative, abs_tol=TOLERANCE):
            problems.append(
                f"{row.player}: board {row.rating:.6f}, replayed {want.conservative:.6f}"
            )
        if row.rank != i + 1:
            problems.append(f"{row.player}: rank {row.rank} at row {i + 1}")
        if i and data.board[i - 1].rating < row.rating - TOLERANCE:
            problems.append(f"{row.player} ({row.rating:.3f}) below a lower rating")
        player = data.players.get(row.player)
        if player is not None and not (
            math.isclose(player.mu, want.mu, abs_tol=TOLERANCE)
            and math.isclose(player.sigma, want.sigma, abs_tol=TOLERANCE)
        ):
            problems.append(
                f"{row.player}: mu/sigma {player.mu:.6f}/{player.sigma:.6f}, replayed "
                f"{want.mu:.6f}/{want.sigma:.6f}"
            )
    return _shown(problems)


def first_moves_ms(data: Published) -> list[int]:
    """Per match, ms from its creation (the ticket) to the first move on its table."""
    waits = []
    for number, m in data.matches.items():
        record = data.records.get(number)
        if record is None:
            continue
        first = next((e for e in record.events if e.kind == events_pb2.EVENT_KIND_MOVE), None)
        if first is not None and m.created_ms:
            waits.append(int(first.time_ms - m.created_ms))
    return waits


def endings(data: Published) -> dict[str, int]:
    """How many matches ended each way (rated or not)."""
    counts: dict[str, int] = defaultdict(int)
    for m in data.matches.values():
        ending = state_pb2.ResultReason.Name(m.ending).removeprefix("RESULT_REASON_").lower()
        state = pb.MatchState.Name(m.state).removeprefix("MATCH_STATE_").lower()
        counts[((m.ending and ending) or state) + ("" if m.rated else " (not rated)")] += 1
    return dict(sorted(counts.items()))
