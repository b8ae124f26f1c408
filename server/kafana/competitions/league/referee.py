"""The league's referee: run the matchmaker, and settle each match when its table ends.

Tables are followed on the service's domain layer (`Tables` over the store every server of the
league's tables serves), never through a server. Settling waits for the table's end, rates the
result on the season's board, reveals the seed and stores the match's fair record with the match
(`{lg:<league>}:match:<n>`, field `record`).
"""

from __future__ import annotations

import asyncio
import contextlib

from kafana.competitions.envelope import FairRecord
from kafana.competitions.league.leaderboard import Leaderboard
from kafana.competitions.league.matchmaking import Matchmaker, Pairing
from kafana.service import convert
from kafana.service.feed import Feed
from kafana.service.follow import until_over
from kafana.service.tables import Tables


async def settle(
    tables: Tables, feed: Feed, board: Leaderboard, queue: Matchmaker, pairing: Pairing
) -> FairRecord:
    """Wait for the match's end, rate it, and publish its fair record (the seed revealed)."""
    session = await until_over(tables, feed, pairing.table_id)
    result = convert.result(session)
    if result.reason == "score":
        scores: list[float] = [float(s) for s in result.scores]
    elif result.HasField("winner_side"):  # a forfeit: the winner ranks first
        scores = [
            1.0 if side == result.winner_side else 0.0 for side in range(len(pairing.players))
        ]
    else:  # closed without a result: not rated
        scores = []
    if scores:
        await board.record([[p] for p in pairing.players], scores)
    seed = await queue.reveal(pairing.match)
    fair = FairRecord(
        pairing.commitment,
        seed,
        session.record_text(),
        (
            ("league", queue.keys.league),
            ("match", str(pairing.match)),
            ("table", pairing.table_id),
            ("seats", " ".join(pairing.players)),
            ("ending", f"{result.reason} {result.detail}".strip()),
        ),
    )
    key = queue.keys.match(pairing.match)
    await queue.client.call(
        key, "HSET", key, "record", fair.to_text(), "result", result.reason, "seed", seed
    )
    return fair


async def referee(
    tables: Tables,
    feed: Feed,
    board: Leaderboard,
    queue: Matchmaker,
    *,
    interval: float = 1.0,
    stop: asyncio.Event | None = None,
) -> int:
    """Tick the matchmaker every `interval` seconds and settle every match it makes.

    Runs until `stop` is set, then waits for the matches in play; returns how many it settled.
    """
    stop = stop or asyncio.Event()
    settling: set[asyncio.Task[FairRecord]] = set()
    while not stop.is_set():
        for pairing in await queue.tick():
            task = asyncio.create_task(settle(tables, feed, board, queue, pairing))
            settling.add(task)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
    done = await asyncio.gather(*settling, return_exceptions=True)
    return sum(1 for item in done if isinstance(item, FairRecord))
