"""Built-in bots seated in the server process: they play whole matches through `Tables.play`,
each decision in a worker thread, and are told every event of the table."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from kafana.games import tablic
from kafana.service.bot_seats import play_seat
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.base import FINISHED, TableStore
from kafana_bots import Bot, HandEnded, HandStarted, MatchEnded, MovePlayed, registry
from kafana_bots.events import Event
from kafana_play import config


class Watched(Bot):
    """A greedy bot that notes where it decides and what it is told."""

    name = "watched"

    def __init__(self, seat: int, rules: tablic.Rules) -> None:
        self.inner = registry.create("greedy", seat=seat, rules=rules, rng=random.Random(seat))
        self.threads: set[str] = set()
        self.told: list[Event] = []

    def choose(self, view: tablic.View, legal_moves: Sequence[tablic.Move]) -> tablic.Move:
        self.threads.add(threading.current_thread().name)
        return self.inner.choose(view, legal_moves)

    def observe(self, event: Event) -> None:
        self.told.append(event)
        self.inner.observe(event)


@dataclass
class Seated:
    """A two-seat table with both seats taken, on the domain layer."""

    tables: Tables
    feed: Feed
    table_id: str
    tokens: list[str]
    rules: tablic.Rules


async def seated(store: TableStore, target: int, seed: int) -> Seated:
    """A new table on `store` (a feed told of this process's changes), both seats taken."""
    tables = Tables(store)
    feed = Feed(store, block_ms=200)
    tables.listeners.append(feed.notify)
    table_id, _admin, session = await tables.create(config(seed=seed, target=target))
    tokens = [(await tables.join(table_id, seat, f"p{seat}"))[1] for seat in (0, 1)]
    rules = tablic.Rules.from_json(session.stored.rules_json)
    return Seated(tables, feed, table_id, tokens, rules)


async def test_two_bots_play_a_match_in_process(store: TableStore) -> None:
    t = await seated(store, target=21, seed=3)
    bots = [Watched(seat, t.rules) for seat in (0, 1)]
    seats = [play_seat(t.tables, t.feed, t.table_id, s, t.tokens[s], bots[s]) for s in (0, 1)]
    finals = await asyncio.wait_for(asyncio.gather(*seats), 60)
    assert all(f.status == FINISHED for f in finals)
    final = await t.tables.session(t.table_id)
    assert max(final.match.scores) >= 21
    for seat, bot in enumerate(bots):
        assert threading.main_thread().name not in bot.threads  # decided in worker threads
        assert isinstance(bot.told[0], HandStarted)
        assert bot.told[-1] == MatchEnded(final.match.scores)
        played = [(e.seat, e.move) for e in bot.told if isinstance(e, MovePlayed)]
        assert played == final.full_match().moves(), seat  # every move, in order, once
        ended = [e.result for e in bot.told if isinstance(e, HandEnded)]
        assert ended == list(final.match.hand_results)
        assert sum(isinstance(e, HandStarted) for e in bot.told) == len(ended)
    await t.feed.close()


async def test_a_seat_without_a_bot_plays_default_moves(store: TableStore) -> None:
    t = await seated(store, target=11, seed=5)
    bot = registry.create("greedy", seat=0, rules=t.rules, rng=random.Random(0))
    await asyncio.wait_for(
        asyncio.gather(
            play_seat(t.tables, t.feed, t.table_id, 0, t.tokens[0], bot),
            play_seat(t.tables, t.feed, t.table_id, 1, t.tokens[1], None),
        ),
        60,
    )
    final = await t.tables.session(t.table_id)
    assert final.status == FINISHED and final.ending is None
    await t.feed.close()
