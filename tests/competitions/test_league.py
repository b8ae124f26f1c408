"""Leagues hosted by the server: who may do what, tickets for the player's eyes only, and every
match settled and rated once (real servers, real Redis, the gRPC API)."""

from __future__ import annotations

import asyncio

import grpc
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import service_pb2
from kit import refusal

from .league_helpers import Tickets, create_league, play_out, site


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
        finally:
            for t in (*streams.values(), watcher):
                t.close()
