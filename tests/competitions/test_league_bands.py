"""Rating bands (issue 30): a league's queue split by rating, each band under its own hash tag,
so no key that every player of a big league touches sits on one node. On real Redis: a
league pairs within its bands only, each band's keys have their own slot, a player is in one
queue and one match whatever joins and pairers race, moves band at its next join, and a
match whose settling stopped half-way is finished and rated once. On a real 3-node Redis
Cluster: one league's bands spread over the nodes and its matches settle across them."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from kafana.competitions.league.bands import MAX_BANDS, Bands
from kafana.competitions.league.keys import BandKeys, LeagueKeys, home
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.replies import text
from kafana.competitions.league.results import Outcome
from kafana.competitions.league.spec import dump, league_spec
from kafana.competitions.league.store import PAIRED, RATING, SETTLED, WAITING, LeagueStore
from kafana.errors import InvalidInputError
from kafana.service.tables import Tables
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.client import RedisClient, key_slot
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb
from kafana_client import AsyncClient, InvalidArgumentError
from kafana_client.leagues import Leagues, match_numbers
from kit import redis_cli, redis_cluster

from .hosted_helpers import Served
from .league_helpers import Tickets, bearer, play_out
from .test_hosted_cli import kafana
from .test_league_store import open_node

EDGES = (20.0, 30.0)
"""Three bands: below 20, 20 to 30, from 30."""
NOW = 1_000_000


async def made_league(
    leagues: LeagueStore, name: str, edges: tuple[float, ...] = EDGES
) -> pb.LeagueSpec:
    spec = league_spec(pb.LeagueSpec(target=11, band_edges=edges))
    assert await leagues.create(name, {"spec": dump(spec), "organiser": "org"})
    return spec


def match_fields(players: list[str]) -> dict[str, str]:
    return {"season": "1", "players": " ".join(players), "state": "playing", "join_by_ms": "0"}


async def queued_in(leagues: RedisLeagues, league: str, player: str) -> list[int]:
    """The bands whose queue holds `player`."""
    count = (await leagues.bands(league)).count
    found = []
    for band in range(count):
        key = BandKeys(league, band, count).queue_since
        if await leagues.client.call(key, "ZSCORE", key, player) is not None:
            found.append(band)
    return found


def test_edges_rise_strictly_and_make_at_most_16_bands() -> None:
    assert league_spec(pb.LeagueSpec()).band_edges == []  # the default: one band
    assert list(league_spec(pb.LeagueSpec(band_edges=EDGES)).band_edges) == list(EDGES)
    with pytest.raises(InvalidInputError, match=r"band_edges rise strictly: 30\.0, 20\.0"):
        league_spec(pb.LeagueSpec(band_edges=(30.0, 20.0)))
    with pytest.raises(InvalidInputError, match=r"at most 16 bands: 15 edges, not 16"):
        league_spec(pb.LeagueSpec(band_edges=range(MAX_BANDS)))
    with pytest.raises(InvalidInputError, match="finite"):
        league_spec(pb.LeagueSpec(band_edges=(float("nan"),)))


def test_each_band_has_its_own_slot_and_one_band_keeps_the_old_keys() -> None:
    assert BandKeys("big").queue_since == "{lg:big}:queue:since"  # as before bands
    assert BandKeys("big").match(7) == LeagueKeys("big").tag + ":match:7"
    slots = {key_slot(BandKeys("big", band, 4).queue_since) for band in range(4)}
    assert len(slots) == 4 and key_slot(LeagueKeys("big").meta) not in slots
    keys = BandKeys("big", 2, 4)
    assert len({key_slot(k) for k in [*keys.held(), keys.lease, keys.match(6)]}) == 1


async def test_a_league_pairs_within_its_bands(
    leagues: RedisLeagues, redis_store: RedisStore
) -> None:
    ratings = {"ana": 10.0, "bob": 11.0, "eve": 19.5, "fay": 20.5, "cid": 35.0, "dan": 36.0}
    for name, edges in (("banded", EDGES), ("whole", ())):
        spec = await made_league(leagues, name, edges)
        for player, mu in ratings.items():
            assert await leagues.join(name, player, mu, NOW) == (WAITING, 0)
        assert await leagues.waiting(name) == 6
    referee = Referee(leagues, Tables(redis_store), clock=lambda: NOW)
    made = await referee.pair("banded", spec)
    pairs = {tuple(sorted((await leagues.match("banded", n))["players"].split())): n for n in made}
    # eve (19.5) and fay (20.5) are close but on either side of the edge at 20: not paired
    assert set(pairs) == {("ana", "bob"), ("cid", "dan")}
    assert pairs["ana", "bob"] % 3 == 0 and pairs["cid", "dan"] % 3 == 2  # the band's number
    assert await queued_in(leagues, "banded", "eve") == [0]
    assert await queued_in(leagues, "banded", "fay") == [1]
    for pair, number in pairs.items():
        key = BandKeys("banded", number % 3, 3).match(number)
        assert await leagues.client.call(key, "EXISTS", key) == 1, pair
    whole = await referee.pair("whole", spec)  # one band: eve and fay are paired
    assert len(whole) == 3
    assert (await leagues.meta("banded"))["made"] == "2"


async def test_racing_pairers_and_claims_pair_nobody_twice(
    leagues: RedisLeagues, redis_store: RedisStore
) -> None:
    spec = await made_league(leagues, "race")
    rng = random.Random(30)
    players = [f"p{i}" for i in range(60)]
    for player in players:
        await leagues.join("race", player, rng.uniform(5.0, 45.0), NOW)
    tables = Tables(redis_store)
    referees = [Referee(leagues, tables, owner=f"r{i}", clock=lambda: NOW) for i in range(4)]
    made = [
        n for got in await asyncio.gather(*(r.pair("race", spec) for r in referees)) for n in got
    ]
    # and claims of overlapping random pairs, all at once, in every band
    claims = []
    for band in range(3):
        left = [w.player for w in await leagues.oldest("race", 100, band)]
        for _ in range(40):
            if len(left) >= 2:
                group = rng.sample(left, 2)
                claims.append(leagues.claim("race", group, match_fields(group), NOW, band))
    made += [n for n in await asyncio.gather(*claims) if n]
    seen: list[str] = []
    for number in made:
        match = await leagues.match("race", number)
        for player in match["players"].split():
            assert await leagues.status("race", player) == (PAIRED, number)
            assert await queued_in(leagues, "race", player) == []
            seen.append(player)
    assert len(seen) == len(set(seen)) == 2 * len(made)
    assert len(made) == len(set(made)) and len(made) >= 10
    assert await leagues.waiting("race") == len(players) - len(seen)


async def test_a_player_moves_band_at_its_next_join_never_while_playing(
    leagues: RedisLeagues, redis_store: RedisStore
) -> None:
    await made_league(leagues, "move")
    for player in ("ana", "bob"):
        await leagues.join("move", player, 19.0, NOW)
    number = await leagues.claim("move", ["ana", "bob"], match_fields(["ana", "bob"]), NOW, 0)
    assert number % 3 == 0
    # rated above the edge while still in its match: refused, and queued nowhere
    assert await leagues.join("move", "ana", 31.0, NOW) == (PAIRED, number)
    assert await queued_in(leagues, "move", "ana") == []
    match = await leagues.match("move", number)
    referee = Referee(leagues, Tables(redis_store), clock=lambda: NOW)
    spec = league_spec(pb.LeagueSpec(target=11, band_edges=EDGES))
    assert (
        await referee.settle("move", spec, number, match, Outcome("score", (11.0, 2.0))) == SETTLED
    )
    assert await leagues.join("move", "ana", 31.0, NOW) == (WAITING, 0)
    assert await queued_in(leagues, "move", "ana") == [2]
    assert await leagues.status("move", "ana") == (WAITING, 0)
    assert await leagues.join("move", "ana", 25.0, NOW) == (WAITING, 0)  # back down: moved
    assert await queued_in(leagues, "move", "ana") == [1]
    assert await leagues.leave("move", "ana") and await queued_in(leagues, "move", "ana") == []
    assert await leagues.status("move", "ana") == ("idle", 0)


async def test_racing_joins_of_one_player_leave_it_in_one_queue(leagues: RedisLeagues) -> None:
    await made_league(leagues, "joins")
    rng = random.Random(7)
    for _ in range(30):
        mus = [rng.choice((10.0, 25.0, 40.0)) for _ in range(6)]
        answers = await asyncio.gather(*(leagues.join("joins", "ana", mu, NOW) for mu in mus))
        assert all(a == (WAITING, 0) for a in answers)
        assert len(await queued_in(leagues, "joins", "ana")) == 1
    # a join that read the player's home before another moved it is refused in the old band
    home = "{lg:joins:p:ana}:band"
    band, epoch = (int(x) for x in text(await leagues.client.call(home, "GET", home)).split())
    other = (band + 1) % 3
    await leagues.join("joins", "ana", (5.0, 25.0, 40.0)[other], NOW)
    stale = await leagues._enter(BandKeys("joins", band, 3), "ana", 1.0, NOW, epoch)
    assert stale[0] == "moved" and await queued_in(leagues, "joins", "ana") == [other]


async def test_a_fence_ahead_of_the_home_band_does_not_lock_the_player_out(
    leagues: RedisLeagues,
) -> None:
    """A band fenced past the player's epoch by a move that stopped half-way, a server whose
    clock runs ahead, or a home key that expired: the next join takes the fence's epoch."""
    await made_league(leagues, "skew")
    band = BandKeys("skew", 1, 3)
    assert await leagues.join("skew", "ana", 25.0, NOW) == (WAITING, 0)
    await leagues.client.call(band.fence, "HSET", band.fence, "ana", NOW + 60_000)
    assert await leagues.join("skew", "ana", 25.0, NOW) == (WAITING, 0)  # not 'moved' for ever
    await leagues.client.call(home("skew", "bob"), "SET", home("skew", "bob"), "x")
    await leagues.client.call(home("skew", "bob"), "DEL", home("skew", "bob"))  # expired
    await leagues.client.call(band.fence, "HSET", band.fence, "bob", NOW + 60_000)
    assert await leagues.join("skew", "bob", 25.0, NOW) == (WAITING, 0)
    assert await queued_in(leagues, "skew", "ana") == await queued_in(leagues, "skew", "bob") == [1]


async def test_a_match_left_half_settled_is_finished_and_rated_once(
    leagues: RedisLeagues, redis_store: RedisStore
) -> None:
    spec = await made_league(leagues, "half")
    referee = Referee(leagues, Tables(redis_store), clock=lambda: NOW)
    for player in ("ana", "bob", "cid", "dan"):
        await leagues.join("half", player, 35.0, NOW)
    first = await leagues.claim("half", ["ana", "bob"], match_fields(["ana", "bob"]), NOW, 2)
    second = await leagues.claim("half", ["cid", "dan"], match_fields(["cid", "dan"]), NOW, 2)
    # 1. its referee fixed the result and died: the next look rates and settles it
    fixed = await leagues.fix(
        "half", first, {"ending": "score", "rated": "1", "scores": "[11.0, 4.0]"}
    )
    assert fixed["state"] == RATING
    again = await leagues.fix("half", first, {"rated": "0", "scores": "[]"})
    assert again["scores"] == "[11.0, 4.0]"  # the first result stays
    await referee.look("half", spec, first)
    # 2. rated, not marked settled (its referee died between): settled, not rated again
    match = await leagues.match("half", second)
    await referee.settle("half", spec, second, match, Outcome("score", (3.0, 11.0)))
    band = BandKeys("half", 2, 3)
    await leagues.client.call(band.match(second), "HSET", band.match(second), "state", RATING)
    await leagues.client.call(band.active, "HSET", band.active, "cid", second, "dan", second)
    await referee.look("half", spec, second)
    for number, players in ((first, ("ana", "bob")), (second, ("cid", "dan"))):
        assert (await leagues.match("half", number))["state"] == SETTLED
        for player in players:
            assert len(await leagues.history("half", 1, player, 10)) == 1, player
            assert await leagues.status("half", player) == ("idle", 0)
    assert (await leagues.meta("half"))["settled"] == "2"
    assert await leagues.rank("half", 1, "ana") < await leagues.rank("half", 1, "bob")


async def test_a_banded_league_spreads_over_a_redis_cluster(tmp_path: Path) -> None:
    edges = (10.0, 20.0, 30.0, 40.0)  # 5 bands
    with redis_cluster(tmp_path) as ports:
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        leagues = RedisLeagues(store.client)
        try:
            spec = await made_league(leagues, "spread", edges)
            bands = Bands(edges)
            nodes = {await store.client.node_of(BandKeys("spread", b, 5).tag) for b in range(5)}
            assert len(nodes) == 3  # the five bands' slots fall on every node
            referee = Referee(leagues, Tables(store), clock=lambda: NOW)
            mus = [5.0 + 10 * band + i * 0.1 for band in range(5) for i in range(4)]
            for i, mu in enumerate(mus):
                assert await leagues.join("spread", f"p{i}", mu, NOW) == (WAITING, 0)
            made = await referee.pair("spread", spec)
            assert sorted(bands.band_of(n) for n in made) == sorted([*range(5)] * 2)
            for number in made:
                match = await leagues.match("spread", number)
                band = {bands.of(mus[int(p[1:])]) for p in match["players"].split()}
                assert band == {bands.band_of(number)}  # paired within its band
                outcome = Outcome("score", (11.0, 5.0))
                assert await referee.settle("spread", spec, number, match, outcome) == SETTLED
            assert (await leagues.meta("spread"))["settled"] == "10"
            assert await leagues.board_size("spread", 1) == 20
            holding = [len(redis_cli(port, "keys", "*lg:spread:b*").split()) for port in ports]
            assert sum(holding) > 0 and sum(1 for n in holding if n) == 3, holding
        finally:
            await store.close()


async def test_a_banded_league_plays_through_the_service(redis_store: RedisStore) -> None:
    async with open_node(redis_store) as (node, accounts):
        keys = {}
        for name in ("ana", "bob"):
            key = new_key()
            assert await accounts.create(Account(name, "player", now_ms()), key_hash(key))
            keys[name] = bearer(key)
        spec = pb.LeagueSpec(target=11, move_ms=2000, band_edges=EDGES)
        made = await node.leagues.CreateLeague(pb.CreateLeagueRequest(league="bl", spec=spec))
        assert list(made.spec.band_edges) == list(EDGES)
        streams = {n: Tickets(node, "bl", k) for n, k in keys.items()}
        try:
            for key in keys.values():  # both unrated (mu 25): the middle band
                await node.leagues.JoinQueue(pb.JoinQueueRequest(league="bl"), metadata=key)
            tickets = {n: (await s.next("ticket")).ticket for n, s in streams.items()}
            assert tickets["ana"].match % 3 == 1
            await asyncio.gather(*(play_out(node, tickets[n], keys[n]) for n in keys))
            settled = [(await s.next("settled")).settled for s in streams.values()]
            assert all(m.rated and m.secret for m in settled)
        finally:
            for stream in streams.values():
                stream.close()
        board = await node.leagues.GetLeaderboard(pb.GetLeaderboardRequest(league="bl"))
        assert board.total == 2
        info = await node.leagues.GetLeague(pb.GetLeagueRequest(league="bl"))
        assert (info.matches_made, info.matches_settled, info.waiting) == (1, 1, 0)
        assert list(info.band_matches) == [0, 1, 0]  # numbered by band: n x 3 + 1
        assert match_numbers(info) == [tickets["ana"].match] == [4]


async def test_the_sdk_and_the_cli_make_a_banded_league(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        leagues = Leagues(client)
        made = await leagues.create("sdk", band_edges=[15, 25, 35])
        assert list(made.spec.band_edges) == [15.0, 25.0, 35.0]
        with pytest.raises(InvalidArgumentError, match="band_edges rise strictly"):
            await leagues.create("down", band_edges=[25, 15])
    at = ("--server", hosted.target)
    code, out = await asyncio.to_thread(
        kafana, "league", "create", "cli", *at, "--band-edges", "20, 30.5"
    )
    assert code == 0 and "3 rating bands, edges at 20, 30.5" in out, out
    code, out = await asyncio.to_thread(
        kafana, "league", "create", "x", *at, "--band-edges", "20,y"
    )
    assert code == 2 and "'y' is not a rating" in out and "Traceback" not in out, out


async def test_a_referee_renews_its_band_leases_at_half_their_time_not_every_round(
    redis_url: str, redis_store: RedisStore
) -> None:
    taken: list[int] = []

    class Counted(RedisLeagues):
        async def pair_lease(self, league: str, owner: str, ttl_ms: int, band: int = 0) -> bool:
            taken.append(band)
            return await super().pair_lease(league, owner, ttl_ms, band)

    client = RedisClient.from_url(redis_url)
    try:
        leagues = Counted(client)
        spec = await made_league(leagues, "lease")
        one = Referee(leagues, Tables(redis_store), lease_ms=4_000, clock=lambda: NOW)
        other = Referee(leagues, Tables(redis_store), lease_ms=4_000, clock=lambda: NOW)
        for _ in range(5):
            await one.pair("lease", spec)
        assert taken == [0, 1, 2]  # taken once, then held
        await other.pair("lease", spec)
        assert taken[3:] == [0, 1, 2]  # refused: the other asks every round
        await asyncio.sleep(2.1)  # past half the lease: renewed, still its own
        await one.pair("lease", spec)
        assert taken[6:] == [0, 1, 2]
        assert not await leagues.pair_lease("lease", other.owner, 4_000, 1)
    finally:
        await client.close()
