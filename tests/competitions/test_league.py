"""Leagues in Redis: the queue pairs players and creates tables; ratings reach the board."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from client.kafana_client_live import LiveServer
from kafana.cli import main
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment
from kafana.competitions.league.keys import LeagueKeys
from kafana.competitions.league.leaderboard import Leaderboard
from kafana.competitions.league.matchmaking import Matchmaker, Window, no_table
from kafana.competitions.league.referee import referee
from kafana.competitions.league.tables import store_tables
from kafana.competitions.ratings import Rating
from kafana.competitions.verify import verify
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.client import RedisClient
from kafana.store.redis_server import redis_server
from kafana_bots import registry
from kafana_client import AsyncClient, rules_of
from kafana_client.bots import run_bot
from redis import Redis as SyncRedis
from redis.asyncio import Redis


class Clock:
    """A clock the test moves by hand (ms)."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


async def test_queue_pairs_by_rating_and_creates_tables(
    server: LiveServer, league: RedisClient, tables: tuple[Tables, Feed]
) -> None:
    clock = Clock()
    async with AsyncClient.connect(server.target) as client:
        maker = store_tables(tables[0], league="spring", target=31)
        queue = Matchmaker(league, "spring", maker, window=Window(2.0, 1.0, 50.0), clock=clock)
        for player, rating in {"a": 10.0, "b": 30.0, "c": 11.0, "d": 31.5, "e": 45.0}.items():
            await queue.join(player, rating)
            clock.now += 10
        made = await queue.tick()
        assert sorted(sorted(p.players) for p in made) == [["a", "c"], ["b", "d"]]
        assert await queue.waiting() == 1  # e is 13.5 away from anyone left: nobody
        assert await queue.tick() == []
        for pairing in made:
            info = await client.get_table(pairing.table_id)  # the table exists on the server
            assert rules_of(info).target == 31
            for player in pairing.players:
                assert await queue.assignment(player) == pairing.table_id
            stored = await queue.match(pairing.match)
            assert stored["table"] == pairing.table_id
            assert check_commitment(await queue.reveal(pairing.match), stored["commitment"])
        # the window widens with waiting: e is paired once both have waited long enough
        await queue.join("f", 30.0)
        assert await queue.tick() == []
        clock.now += 14_000
        (late,) = await queue.tick()
        assert sorted(late.players) == ["e", "f"] and await queue.waiting() == 0

        # play one match on its table with bots and rate it on the league's board
        pairing = made[0]
        info = await client.get_table(pairing.table_id)
        seats = [
            await client.join(pairing.table_id, seat=i, name=p)
            for i, p in enumerate(pairing.players)
        ]
        rules = rules_of(info)
        finals = await asyncio.gather(
            *(
                run_bot(
                    seat,
                    registry.create("greedy", seat=seat.seat, rules=rules, rng=random.Random(i)),
                )
                for i, seat in enumerate(seats)
            )
        )
        scores = list(finals[0].tablic.scores)
        board = Leaderboard(league, "spring")
        await board.record([[p] for p in pairing.players], scores)
        winner = pairing.players[scores.index(max(scores))]
        assert await board.rank(winner) == 1
        assert (await board.rating(winner)).mu > 25
        assert len(await board.history(winner)) == 1


async def test_leaderboard_pages_ranks_and_seasons(league: RedisClient, redis: Redis) -> None:
    board = Leaderboard(league, "autumn")
    ratings = {f"p{i:03}": Rating(20 + i / 10, 2.0, 12) for i in range(250)}
    await board.seed_ratings(ratings)
    assert await board.size() == 250
    assert await board.rank("p249") == 1 and await board.rank("p000") == 250
    assert await board.rank("nobody") is None
    page = await board.page(2, size=100)
    assert [row.rank for row in page] == list(range(101, 201))
    assert page[0].player == "p149" and page[0].rating == pytest.approx(
        ratings["p149"].conservative
    )
    # a rated game moves the board
    await board.record([["p000"], ["p249"]], [1, 0])
    assert await board.rank("p000") < 250 and await board.rank("p249") > 1
    assert (await board.rating("p000")).games == 13
    # a new season starts empty, the old one is kept
    assert await board.new_season() == 2
    assert await board.size() == 0 and await board.size(season=1) == 250
    keys = LeagueKeys("autumn")
    assert all(key.startswith(b"{lg:autumn}") for key in await redis.keys("*"))  # one tag
    assert await redis.exists(keys.board(1))


async def test_two_matchmakers_never_pair_a_player_twice(league: RedisClient) -> None:
    clock = Clock()
    ratings = {f"q{i}": float(i % 7) for i in range(60)}
    one = Matchmaker(league, "race", no_table, clock=clock)
    two = Matchmaker(league, "race", no_table, clock=clock)
    await one.join_many(ratings)
    a, b = await asyncio.gather(one.tick(), two.tick())
    players = [p for pairing in a + b for p in pairing.players]
    assert len(players) == len(set(players))
    assert len(players) + await one.waiting() == 60


async def test_pairs_nearest_ratings_even_with_a_wide_window(league: RedisClient) -> None:
    clock = Clock()
    queue = Matchmaker(league, "wide", no_table, window=Window(100.0, 0.0, 100.0), clock=clock)
    order = list(range(40))
    random.Random(3).shuffle(order)
    for i in order:  # joining order unrelated to rating
        await queue.join(f"r{i:02}", float(i))
        clock.now += 1
    made = await queue.tick()
    assert len(made) >= 18  # greedy by waiting time may leave a far-apart pair for later
    gaps = [abs(float(p.players[0][1:]) - float(p.players[1][1:])) for p in made]
    # nearest available neighbours, not the lowest ratings in the (wide) window
    assert max(gaps) <= 8 and sum(gaps) / len(gaps) <= 3
    made += await queue.tick()
    assert len(made) == 20 and await queue.waiting() == 0


async def test_a_league_season_with_the_referee(
    server: LiveServer, league: RedisClient, tables: tuple[Tables, Feed]
) -> None:
    ratings = {"ana": 24.0, "bob": 26.0, "cid": 10.0, "dan": 11.0}
    domain, feed = tables
    async with AsyncClient.connect(server.target) as client:
        board = Leaderboard(league, "summer")
        queue = Matchmaker(league, "summer", store_tables(domain, league="summer", target=31))
        stop = asyncio.Event()
        ref = asyncio.create_task(referee(domain, feed, board, queue, interval=0.05, stop=stop))

        async def player(name: str) -> None:
            await queue.join(name, ratings[name])
            while (ticket := await queue.ticket(name)) is None:
                await asyncio.sleep(0.05)
            table_id, seat_no = ticket
            seat = await client.join(table_id, seat=seat_no, name=name)
            rules = rules_of(await client.get_table(table_id))
            bot = registry.create("greedy", seat=seat_no, rules=rules, rng=random.Random(name))
            await run_bot(seat, bot)

        await asyncio.wait_for(asyncio.gather(*(player(n) for n in ratings)), 120)
        await asyncio.sleep(0.2)
        stop.set()
        settled = await asyncio.wait_for(ref, 60)
    assert settled == 2
    for number in (1, 2):
        match = await queue.match(number)
        assert sorted(match["players"].split()) in (["ana", "bob"], ["cid", "dan"])
        fair = FairRecord.from_text(match["record"])
        assert fair.commitment == match["commitment"]
        assert verify(fair).finished  # seed revealed, deals and moves check out
    assert await board.size() == 4
    for name in ratings:
        assert (await board.rating(name)).games == 1
        assert len(await board.history(name)) == 1
    # each match's winner went up, its loser down: the two winners top the board
    winners = set()
    for number in (1, 2):
        record = FairRecord.from_text((await queue.match(number))["record"]).match_record()
        players = (await queue.match(number))["players"].split()
        assert record.scores is not None
        winners.add(players[record.scores.index(max(record.scores))])
    assert {row.player for row in await board.page(1, 2)} == winners


def test_league_run_makes_its_tables_in_the_servers_store(
    server: LiveServer, redis_url: str, tmp_path: Path
) -> None:
    """The league's Redis and the servers' table store are two servers: `--tables` says where."""
    with redis_server(tmp_path / "league") as league_redis:
        league = ("--redis", league_redis.url)
        cli = CliRunner()
        for player in ("ana", "bob"):
            assert cli.invoke(main, ["league", "join", "two", player, *league]).exit_code == 0
        args = ["league", "run", "two", *league, "--tables", redis_url, "--interval", "0.1",
                "--target", "11", "--for-seconds", "4"]  # fmt: skip
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            referee_run = pool.submit(cli.invoke, main, args)
            sync = SyncRedis.from_url(league_redis.url)
            deadline = time.monotonic() + 30
            while any(b"pending" in (sync.hget("{lg:two}:assigned", p) or b"pending")
                      for p in ("ana", "bob")):  # fmt: skip
                assert time.monotonic() < deadline, "the league never paired the queue"
                time.sleep(0.1)
            bots = []
            for player in ("ana", "bob"):
                table, seat = (sync.hget("{lg:two}:assigned", player) or b"").decode().split()
                argv = [sys.executable, "-m", "kafana.cli", "bot", "run", "greedy",
                        "--server", server.target, "--table", table, "--seat", seat]  # fmt: skip
                bots.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL))
            for bot in bots:
                assert bot.wait(timeout=60) == 0  # the server found the table in its store
            outcome = referee_run.result(timeout=60)
        assert outcome.exit_code == 0 and "1 matches settled" in outcome.output, outcome.output
        record = FairRecord.from_text((sync.hget("{lg:two}:match:1", "record") or b"").decode())
        assert verify(record).finished
        assert not [k for k in sync.keys("*") if not k.startswith(b"{lg:two}")]  # no table here


async def test_two_reports_at_once_lose_no_update(league: RedisClient) -> None:
    board = Leaderboard(league, "busy")
    await asyncio.gather(*(board.record([["ana"], ["bob"]], [1, 0]) for _ in range(8)))
    assert (await board.rating("ana")).games == 8 and (await board.rating("bob")).games == 8
    points = await board.history("ana")
    assert sorted(p.game for p in points) == list(range(1, 9))
