"""The league store on Redis: a match is settled and rated once however many referees settle
it at once; settled data expires after the league's retention; a league works in-process in
open mode."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.results import Outcome
from kafana.competitions.league.spec import dump, league_spec
from kafana.competitions.league.store import SETTLED, LeagueStore, RatingWrite, Settlement
from kafana.competitions.server import create_server
from kafana.service.settings import Settings
from kafana.service.tables import Tables
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc
from redis.asyncio import Redis

from .league_helpers import Node, Tickets, bearer, play_out


async def test_a_match_is_settled_and_rated_once(
    leagues: LeagueStore, redis_store: RedisStore
) -> None:
    spec = league_spec(pb.LeagueSpec(target=11, retention_days=2))
    assert await leagues.create("once", {"spec": dump(spec), "organiser": "org"})
    assert not await leagues.create("once", {"spec": dump(spec)})  # the name is taken
    for player in ("ana", "bob"):
        assert await leagues.join("once", player, 25.0, 1) == ("waiting", 0)
    fields = {"season": "1", "players": "ana bob", "secret": "00" * 32, "commitment": "c"}
    fields |= {"created_ms": "1", "join_by_ms": "2", "state": "playing"}
    number = await leagues.claim("once", ["ana", "bob"], fields, 0)
    assert number == 1 and await leagues.claim("once", ["ana", "bob"], fields, 0) == 0
    assert await leagues.join("once", "ana", 25.0, 2) == ("paired", 1)  # refused: paired
    referees = [Referee(leagues, Tables(redis_store)) for _ in range(4)]
    match = await leagues.match("once", number)
    outcome = Outcome("score", (11.0, 3.0), "side 0 won")
    answers = await asyncio.gather(
        *(r.settle("once", spec, number, match, outcome) for r in referees)
    )
    assert sorted(answers) == ["done", "done", "done", SETTLED]
    assert (await leagues.meta("once"))["settled"] == "1"
    assert [len(await leagues.history("once", 1, p, 10)) for p in ("ana", "bob")] == [1, 1]
    assert await leagues.rank("once", 1, "ana") == 1 and await leagues.rank("once", 1, "bob") == 2
    assert await leagues.status("once", "ana") == ("idle", 0)  # free to queue again
    assert await leagues.due("once", 10**15, 10, 1000) == []


async def test_a_claimed_match_comes_back_when_its_referee_dies(leagues: LeagueStore) -> None:
    await leagues.create("lease", {"spec": dump(league_spec(pb.LeagueSpec()))})
    for player in ("ana", "bob"):
        await leagues.join("lease", player, 25.0, 1)
    await leagues.join("lease", "cid", 25.0, 1)
    assert await leagues.status("lease", "cid") == ("waiting", 0)
    assert await leagues.leave("lease", "cid") and not await leagues.leave("lease", "cid")
    assert await leagues.status("lease", "cid") == ("idle", 0)
    assert await leagues.claim("lease", ["ana", "cid"], {"season": "1"}, 100) == 0  # cid left
    assert await leagues.waiting("lease") == 2
    number = await leagues.claim("lease", ["ana", "bob"], {"season": "1"}, 100)
    assert await leagues.due("lease", 99, 10, 1000) == []  # not due yet
    assert await leagues.due("lease", 100, 10, 1000) == [number]  # claimed, then it dies
    assert await leagues.due("lease", 500, 10, 1000) == []  # another referee: still leased
    assert await leagues.due("lease", 1100, 10, 1000) == [number]  # the lease ran out
    assert await leagues.pair_lease("lease", "one", 60_000)
    assert not await leagues.pair_lease("lease", "two", 60_000)  # pairing: one at a time
    assert await leagues.pair_lease("lease", "one", 60_000)  # renewed


async def test_a_settled_match_and_its_lists_expire(leagues: LeagueStore) -> None:
    await leagues.create("short", {"spec": dump(league_spec(pb.LeagueSpec()))})
    for player in ("ana", "bob"):
        await leagues.join("short", player, 25.0, 1)
    number = await leagues.claim("short", ["ana", "bob"], {"season": "1"}, 0)
    write = RatingWrite("ana", None, '{"mu": 26, "sigma": 8, "games": 1}', 2.0, '"mu": 26}')
    settlement = Settlement(1, ("ana", "bob"), {"ending": "score"}, (write,), retention_ms=200)
    assert await leagues.settle("short", number, settlement) == SETTLED
    assert await leagues.history("short", 1, "ana", 10) == ['{"game": 1, "mu": 26}']
    assert await leagues.recent("short", 1, "bob", 10) == [number]
    await asyncio.sleep(0.4)
    assert await leagues.match("short", number) == {}
    assert await leagues.history("short", 1, "ana", 10) == []
    assert await leagues.recent("short", 1, "bob", 10) == []
    assert await leagues.rank("short", 1, "ana") == 1  # the season's board is kept


async def test_a_match_whose_table_is_gone_is_settled_as_a_no_show(
    leagues: LeagueStore, redis_store: RedisStore
) -> None:
    spec = league_spec(pb.LeagueSpec())
    await leagues.create("gone", {"spec": dump(spec)})
    for player in ("ana", "bob"):
        await leagues.join("gone", player, 25.0, 1)
    fields = {"season": "1", "players": "ana bob", "secret": "00" * 32, "commitment": "c"}
    fields |= {"created_ms": "1", "join_by_ms": str(10**15), "state": "playing"}
    number = await leagues.claim("gone", ["ana", "bob"], fields, 0)
    await leagues.set_fields("gone", number, {"table": "0123456789abcdef admin", "token0": "t"})
    await Referee(leagues, Tables(redis_store)).look("gone", spec, number)  # no such table
    match = await leagues.match("gone", number)
    assert match["state"] == SETTLED and match["ending"] == "no_show"
    assert match["scores"] == "[1.0, 0.0]" and match["rated"] == "1"


async def test_settled_data_expires_after_the_retention(
    redis_url: str, redis_store: RedisStore
) -> None:
    client = RedisClient.from_url(redis_url)
    checker = Redis.from_url(redis_url)
    try:
        leagues = RedisLeagues(client)
        spec = league_spec(pb.LeagueSpec(retention_days=2))
        await leagues.create("kept", {"spec": dump(spec)})
        for player in ("ana", "bob"):
            await leagues.join("kept", player, 25.0, 1)
        fields = {"season": "1", "players": "ana bob", "secret": "00" * 32, "commitment": "c"}
        number = await leagues.claim("kept", ["ana", "bob"], fields | {"join_by_ms": "2"}, 0)
        match = await leagues.match("kept", number)
        referee = Referee(leagues, Tables(redis_store))
        await referee.settle("kept", spec, number, match, Outcome("score", (1.0, 0.0)))
        two_days = 2 * 86_400_000
        for key in (
            "{lg:kept}:match:1",
            "{lg:kept}:s:1:hist:ana",
            "{lg:kept}:s:1:matches:bob",
        ):
            assert two_days - 60_000 < await checker.pttl(key) <= two_days, key
    finally:
        await checker.aclose()
        await client.close()


@contextlib.asynccontextmanager
async def open_node(store: RedisStore) -> AsyncIterator[tuple[Node, RedisAccounts]]:
    """A server in this process in open mode (`kafana serve`'s default) on `store`."""
    from kafana.v1 import service_pb2_grpc

    accounts = RedisAccounts(store.client)
    server = create_server(store, Settings(clock_tick=0.05), accounts=accounts)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        node = Node(
            server,
            channel,
            leagues_pb2_grpc.LeaguesServiceStub(channel),
            service_pb2_grpc.KafanaServiceStub(channel),
        )
        yield node, accounts
    finally:
        await channel.close()
        await asyncio.wait_for(server.stop(0.5), 20)


async def test_a_league_plays_in_process_in_open_mode(redis_store: RedisStore) -> None:
    async with open_node(redis_store) as (node, accounts):
        keys = {}
        for name in ("ana", "bob"):
            key = new_key()
            assert await accounts.create(Account(name, "player", now_ms()), key_hash(key))
            keys[name] = bearer(key)
        spec = pb.LeagueSpec(target=11, move_ms=2000)
        await node.leagues.CreateLeague(pb.CreateLeagueRequest(league="local", spec=spec))
        anonymous = await node.leagues.JoinQueue(pb.JoinQueueRequest(league="local")).code()
        assert anonymous == grpc.StatusCode.UNAUTHENTICATED  # open mode: still an account
        streams = {n: Tickets(node, "local", k) for n, k in keys.items()}
        try:
            for key in keys.values():
                await node.leagues.JoinQueue(pb.JoinQueueRequest(league="local"), metadata=key)
            tickets = {n: (await s.next("ticket")).ticket for n, s in streams.items()}
            await asyncio.gather(*(play_out(node, tickets[n], keys[n]) for n in keys))
            settled = [(await s.next("settled")).settled for s in streams.values()]
            assert all(m.rated and m.secret for m in settled)
            heartbeat = await streams["ana"].next("heartbeat", timeout=20)
            assert heartbeat.heartbeat.time_ms > 0 and heartbeat.heartbeat.seq == 0
        finally:
            for stream in streams.values():
                stream.close()
        board = await node.leagues.GetLeaderboard(pb.GetLeaderboardRequest(league="local"))
        assert board.total == 2


async def test_a_players_history_keeps_the_points_it_can_show(redis_url: str) -> None:
    # A review (7 Dec): every rated game appended a history point for good (the match list
    # is trimmed to its 200), though GetPlayer shows the last 1,000 (`MAX_HISTORY`)
    from kafana.competitions.league import redis_store
    from kafana.competitions.league.keys import LeagueKeys
    from kafana.competitions.league.leagues import MAX_HISTORY

    client = RedisClient.from_url(redis_url)
    try:
        keys = LeagueKeys("long")
        names = [keys.ratings(1), keys.board(1), keys.games, keys.meta, keys.rated(1)]
        names += [keys.history(1, "ana"), keys.matches(1, "ana")]
        read = ""
        for number in range(MAX_HISTORY + 5):
            rating = f"r{number}"
            point = f'"mu": {number}, "sigma": 8.0}}'
            args = [str(number), "600000", "1", "ana", read, rating, "1.0", point, "1", "ana"]
            (answer,) = await client.run(redis_store._RATE, names, redis_store._encode(args))
            assert answer == b"rated"
            read = rating
        history = await RedisLeagues(client).history("long", 1, "ana", 10**6)
        assert len(history) == MAX_HISTORY
        assert history[-1].endswith(f'"mu": {MAX_HISTORY + 4}, "sigma": 8.0}}')  # the newest
    finally:
        await client.close()
