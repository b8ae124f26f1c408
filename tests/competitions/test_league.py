"""Leagues hosted by the server: who may do what, tickets for the player's eyes only, and every
match settled and rated once (real servers, real Redis, the gRPC API)."""

from __future__ import annotations

import asyncio

import grpc
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment
from kafana.service.ratelimit import RateLimit
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import service_pb2
from kit import refusal

from .league_helpers import Site, Tickets, create_league, play_out, site


async def test_two_accounts_queue_play_and_are_rated_once(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        ana, bob = await s.account("ana"), await s.account("bob")
        mallory = await s.account("mallory")
        # only an organiser creates a league; anonymous queueing is refused
        denied = await refusal(create_league(node, ana, "spring"))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
        info = await create_league(node, org, "spring")
        assert info.organiser == "org" and info.spec.join_deadline_ms == 3000
        anonymous = await refusal(node.leagues.JoinQueue(pb.QueueRequest(league="spring")))
        assert anonymous.code() == grpc.StatusCode.UNAUTHENTICATED
        bad = await refusal(node.leagues.JoinQueue(pb.QueueRequest(league="x y"), metadata=ana))
        assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT

        streams = {"ana": Tickets(node, "spring", ana), "bob": Tickets(node, "spring", bob)}
        watcher = Tickets(node, "spring", mallory)  # in no match: sees no ticket
        try:
            for key in (ana, bob):
                status = await node.leagues.JoinQueue(
                    pb.QueueRequest(league="spring"), metadata=key
                )
                assert status.state in ("waiting", "paired")
            tickets = {p: (await t.next("ticket")).ticket for p, t in streams.items()}
            a, b = tickets["ana"], tickets["bob"]
            assert a.match == b.match and a.table_id == b.table_id and a.seat != b.seat
            assert a.seat_token and b.seat_token and a.seat_token != b.seat_token
            assert sorted(a.players) == ["ana", "bob"]
            # queueing again while paired is refused
            again = await refusal(
                node.leagues.JoinQueue(pb.QueueRequest(league="spring"), metadata=ana)
            )
            assert again.code() == grpc.StatusCode.FAILED_PRECONDITION
            # a stranger cannot take a seat: no key, or another account's key
            for seat in (0, 1):
                join = service_pb2.JoinTableRequest(table_id=a.table_id, seat=seat, name="m")
                err = await refusal(node.kafana.JoinTable(join))
                assert err.code() == grpc.StatusCode.UNAUTHENTICATED
                err = await refusal(node.kafana.JoinTable(join, metadata=mallory))
                assert err.code() in (
                    grpc.StatusCode.PERMISSION_DENIED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                )
            # the match is public, its secret is not (yet)
            match = await node.leagues.GetMatch(
                pb.GetMatchRequest(league="spring", match=a.match), metadata=mallory
            )
            assert match.state == "playing" and not match.secret and not match.record
            await asyncio.gather(play_out(node, a, ana), play_out(node, b, bob))
            settled = {p: (await t.next("settled")).settled for p, t in streams.items()}
            assert settled["ana"].rated and settled["ana"].ending == "score"
            assert watcher.of("ticket") == [] and watcher.of("settled") == []
            done = await node.leagues.GetMatch(
                pb.GetMatchRequest(league="spring", match=a.match, record=True), metadata=mallory
            )
            assert done.state == "settled" and check_commitment(done.secret, done.commitment)
            fair = FairRecord.from_text(done.record)
            assert fair.commitment == a.commitment
            board = await node.leagues.GetLeaderboard(
                pb.GetLeaderboardRequest(league="spring"), metadata=mallory
            )
            assert board.total == 2 and {r.player for r in board.rows} == {"ana", "bob"}
            for name in ("ana", "bob"):
                player = await node.leagues.GetPlayer(
                    pb.GetPlayerRequest(league="spring", player=name), metadata=mallory
                )
                assert player.games == 1 and len(player.history) == 1
                assert [m.match for m in player.matches] == [a.match]
            too_big = await refusal(
                node.leagues.GetLeaderboard(
                    pb.GetLeaderboardRequest(league="spring", page_size=201), metadata=mallory
                )
            )
            assert too_big.code() == grpc.StatusCode.INVALID_ARGUMENT
            # queueing again now that it is settled is allowed
            status = await node.leagues.JoinQueue(pb.QueueRequest(league="spring"), metadata=ana)
            assert status.state == "waiting"
            # a new season (organisers only) starts an empty board; the old one is kept
            season = pb.NewSeasonRequest(league="spring")
            denied = await refusal(node.leagues.NewSeason(season, metadata=ana))
            assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
            assert (await node.leagues.NewSeason(season, metadata=org)).season == 2
            for number, total in ((0, 0), (2, 0), (1, 2)):
                page = await node.leagues.GetLeaderboard(
                    pb.GetLeaderboardRequest(league="spring", season=number), metadata=ana
                )
                assert page.total == total
            future = await refusal(
                node.leagues.GetLeaderboard(
                    pb.GetLeaderboardRequest(league="spring", season=3), metadata=ana
                )
            )
            assert future.code() == grpc.StatusCode.NOT_FOUND
        finally:
            for t in (*streams.values(), watcher):
                t.close()


async def play_matches(s: Site, league: str, names: list[str]) -> dict[str, pb.MatchInfo]:
    """Every named player (new accounts) watches, queues and plays its ticket to the end,
    spread over the site's servers; each player's settled match."""
    keys = {name: await s.account(name) for name in names}
    nodes = {name: s.nodes[i % len(s.nodes)] for i, name in enumerate(names)}
    streams = {name: Tickets(nodes[name], league, keys[name]) for name in names}
    try:
        for name in names:
            request = pb.QueueRequest(league=league)
            await nodes[name].leagues.JoinQueue(request, metadata=keys[name])

        async def play(name: str) -> pb.MatchInfo:
            ticket = (await streams[name].next("ticket")).ticket
            await play_out(nodes[name], ticket, keys[name])
            return (await streams[name].next("settled", timeout=60)).settled

        settled = await asyncio.gather(*(play(name) for name in names))
        return dict(zip(names, settled, strict=True))
    finally:
        for stream in streams.values():
            stream.close()


async def test_results_are_not_lost_beyond_the_stream_cap(redis_url: str) -> None:
    # 4 matches at once on a server allowing 3 streams per caller: the referee holds none
    async with site(redis_url, rate_limit=RateLimit(max_streams=3)) as s:
        org = await s.account("org", "organiser")
        await create_league(s.nodes[0], org, "capped")
        names = [f"p{i}" for i in range(8)]
        settled = await play_matches(s, "capped", names)
        matches = {m.match for m in settled.values()}
        assert len(matches) == 4 and all(m.rated for m in settled.values())
        info = await s.nodes[0].leagues.GetLeague(
            pb.GetLeagueRequest(league="capped"), metadata=org
        )
        assert info.matches_made == 4 and info.matches_settled == 4
        board = await s.nodes[0].leagues.GetLeaderboard(
            pb.GetLeaderboardRequest(league="capped", page_size=3), metadata=org
        )
        assert board.total == 8 and [r.rank for r in board.rows] == [1, 2, 3]


async def test_two_servers_on_one_redis_settle_every_match_once(redis_url: str) -> None:
    async with site(redis_url, count=2) as s:
        org = await s.account("org", "organiser")
        await create_league(s.nodes[0], org, "shared")
        names = [f"q{i}" for i in range(8)]
        settled = await play_matches(s, "shared", names)
        assert all(m.rated for m in settled.values())
        info = await s.nodes[1].leagues.GetLeague(
            pb.GetLeagueRequest(league="shared"), metadata=org
        )
        assert info.matches_made == 4 and info.matches_settled == 4
        for name in names:  # rated once: one game, one history point, one match each
            player = await s.nodes[1].leagues.GetPlayer(
                pb.GetPlayerRequest(league="shared", player=name), metadata=org
            )
            assert player.games == 1 and len(player.history) == 1 and len(player.matches) == 1


async def test_a_no_show_forfeits_and_nobody_showing_is_not_rated(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        await create_league(node, org, "late", join_deadline_ms=1000)
        ana, bob = await s.account("ana"), await s.account("bob")
        stream = Tickets(node, "late", ana)  # ana shows up, bob never opens his stream
        try:
            for key in (ana, bob):
                await node.leagues.JoinQueue(pb.QueueRequest(league="late"), metadata=key)
            ticket = (await stream.next("ticket")).ticket
            settled = (await stream.next("settled")).settled
            assert settled.match == ticket.match and settled.ending == "no_show"
            assert settled.rated and list(settled.scores) == [
                1.0 if p == "ana" else 0.0 for p in settled.players
            ]
            assert any("no_show" in fault for fault in settled.faults)
        finally:
            stream.close()
        # now nobody shows up: settled, not rated
        for key in (ana, bob):
            await node.leagues.JoinQueue(pb.QueueRequest(league="late"), metadata=key)
        second = ticket.match + 1
        async with asyncio.timeout(30):
            while True:
                try:
                    match = await node.leagues.GetMatch(
                        pb.GetMatchRequest(league="late", match=second), metadata=ana
                    )
                except grpc.aio.AioRpcError as error:  # not made yet
                    assert error.code() == grpc.StatusCode.NOT_FOUND
                else:
                    if match.state == "settled":
                        break
                await asyncio.sleep(0.1)
        assert match.ending == "no_show" and not match.rated and match.secret
        player = await node.leagues.GetPlayer(pb.GetPlayerRequest(league="late"), metadata=bob)
        assert player.games == 1  # the first match only


async def test_a_seated_player_who_never_moves_forfeits_by_the_league_policy(
    redis_url: str,
) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        await create_league(node, org, "idle", move_ms=300, timeouts_to_forfeit=1)
        ana, bob = await s.account("ana"), await s.account("bob")
        streams = {"ana": Tickets(node, "idle", ana), "bob": Tickets(node, "idle", bob)}
        try:
            for key in (ana, bob):
                await node.leagues.JoinQueue(pb.QueueRequest(league="idle"), metadata=key)
            ticket = (await streams["ana"].next("ticket")).ticket
            await streams["bob"].next("ticket")  # bob shows up and plays nothing
            player = asyncio.create_task(play_out(node, ticket, ana))
            settled = (await streams["bob"].next("settled", timeout=60)).settled
            await player
        finally:
            for stream in streams.values():
                stream.close()
        assert settled.rated and settled.ending == "forfeit"
        assert list(settled.scores) == [1.0 if p == "ana" else 0.0 for p in settled.players]
        board = await node.leagues.GetLeaderboard(
            pb.GetLeaderboardRequest(league="idle"), metadata=ana
        )
        assert [r.player for r in board.rows] == ["ana", "bob"]


async def test_a_tac_league_of_three_rates_every_player_by_place(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        await create_league(node, org, "tac3", game="tac", players=3, target=0)
        names = ["t0", "t1", "t2"]
        keys = {name: await s.account(name) for name in names}
        streams = {name: Tickets(node, "tac3", keys[name]) for name in names}
        try:
            for name in names:
                await node.leagues.JoinQueue(pb.QueueRequest(league="tac3"), metadata=keys[name])
            tickets = {n: (await streams[n].next("ticket")).ticket for n in names}
            assert len({t.match for t in tickets.values()}) == 1
            assert sorted(t.seat for t in tickets.values()) == [0, 1, 2]
            await asyncio.gather(*(play_out(node, tickets[n], keys[n], "random") for n in names))
            settled = [(await streams[n].next("settled", timeout=60)).settled for n in names]
        finally:
            for stream in streams.values():
                stream.close()
        assert all(m.rated for m in settled) and len(settled[0].scores) == 3
        board = await node.leagues.GetLeaderboard(
            pb.GetLeaderboardRequest(league="tac3"), metadata=org
        )
        assert board.total == 3
