"""The league from the SDK: accounts on one shared channel play, rejoin, read boards and
records; a bot's exception reaches its author."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import verify
from kafana.games import tablic
from kafana.v1 import leagues_pb2 as pb
from kafana_bots import Bot, registry
from kafana_client import Client
from kafana_client.errors import FailedPreconditionError, PermissionDeniedRpcError
from kafana_client.keyed import keyed_client
from kafana_client.leagues import BlockingLeagues, Leagues, play_league

from .leagues_support import league_server

ROLES = {"org": "organiser", "ana": "bot", "bob": "bot"}


def random_bot(seat: int, rules: tablic.Rules) -> Bot:
    """A random-move bot (seeded per seat)."""
    return registry.create("random", seat=seat, rules=rules, rng=random.Random(seat))


class Broken(Bot):
    """A bot whose author made a mistake."""

    def choose(self, view: tablic.View, legal: Sequence[tablic.Move]) -> tablic.Move:
        raise ZeroDivisionError("the bot's own bug")


async def test_two_accounts_on_one_channel_play_and_rejoin(redis_url: str) -> None:
    async with league_server(redis_url, **ROLES) as served:
        channel = served.options().aio_channel()
        try:
            org, ana, bob = (keyed_client(channel, served.keys[n]) for n in ("org", "ana", "bob"))
            with pytest.raises(PermissionDeniedRpcError):  # a bot account may not organise
                await Leagues(ana).create("cup")
            made = await Leagues(org).create("cup", target=11, move_ms=3000)
            assert made.organiser == "org" and made.spec.target == 11
            # Each call carries its own account's key, though all share one channel.
            assert (await Leagues(ana).player("cup")).player == "ana"
            assert (await Leagues(bob).player("cup")).player == "bob"
            told: list[str] = []
            games = await asyncio.gather(
                play_league(ana, "cup", random_bot, matches=2, on_update=lambda u: told.append(
                    u.WhichOneof("update") or "")),
                play_league(bob, "cup", random_bot, matches=2),
            )  # fmt: skip
            assert [m.match for m in games[0]] == [m.match for m in games[1]] == [1, 2]
            assert told == ["ticket", "settled", "ticket", "settled"]  # rejoined after each
            for m in games[0]:
                assert (
                    m.state == pb.MATCH_STATE_SETTLED
                    and m.rated
                    and sorted(m.players) == ["ana", "bob"]
                )
            info = await Leagues(ana).get("cup")
            assert (info.matches_made, info.matches_settled, info.waiting) == (2, 2, 0)
            board = await Leagues(bob).board("cup")
            assert board.total == 2 and {r.player for r in board.rows} == {"ana", "bob"}
            me = await Leagues(ana).player("cup")
            assert (
                me.games == 2 and len(me.history) == 2 and [m.match for m in me.matches] == [2, 1]
            )
            settled = await Leagues(ana).match("cup", 1, record=True)
            checked = verify(FairRecord.from_text(settled.record))
            assert checked.finished and settled.secret and settled.commitment
        finally:
            await channel.close()


async def test_a_bots_exception_is_printed_with_its_traceback(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with league_server(redis_url, **ROLES) as served:
        channel = served.options().aio_channel()
        try:
            org, ana, bob = (keyed_client(channel, served.keys[n]) for n in ("org", "ana", "bob"))
            await Leagues(org).create("cup", target=11, move_ms=200, timeouts_to_forfeit=2)

            def broken(seat: int, rules: tablic.Rules) -> Bot:
                return Broken(seat, rules, random.Random(seat))

            games = await asyncio.wait_for(
                asyncio.gather(
                    play_league(ana, "cup", broken, matches=1),
                    play_league(bob, "cup", random_bot, matches=1),
                ),
                60,
            )
        finally:
            await channel.close()
    (ana_match,), (bob_match,) = games
    assert ana_match.match == bob_match.match == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err, err
    assert "ZeroDivisionError: the bot's own bug" in err and "in choose" in err
    # The seat is left to the league's fault policy (ana's clock runs out) and play goes on.
    assert ana_match.state == bob_match.state == pb.MATCH_STATE_SETTLED


async def test_a_match_not_settled_is_played_before_joining_again(
    redis_url: str,
) -> None:
    async with league_server(redis_url, **ROLES) as served:
        channel = served.options().aio_channel()
        try:
            org, ana, bob = (keyed_client(channel, served.keys[n]) for n in ("org", "ana", "bob"))
            await Leagues(org).create("cup", target=11, move_ms=3000)
            assert (await Leagues(ana).join("cup")).state == pb.QUEUE_STATE_WAITING
            assert (await Leagues(ana).leave("cup")).state == pb.QUEUE_STATE_IDLE
            await Leagues(ana).join("cup")
            await Leagues(bob).join("cup")
            deadline = asyncio.get_running_loop().time() + 20
            while (await Leagues(ana).get("cup")).matches_made < 1:
                assert asyncio.get_running_loop().time() < deadline, "never paired"
                await asyncio.sleep(0.1)
            with pytest.raises(FailedPreconditionError, match="not settled"):
                await Leagues(ana).join("cup")
            # A player that comes back (a restart mid-match) plays the open match first.
            games = await asyncio.wait_for(
                asyncio.gather(
                    play_league(ana, "cup", random_bot, matches=1),
                    play_league(bob, "cup", random_bot, matches=1),
                ),
                60,
            )
            assert [m.match for g in games for m in g] == [1, 1]
        finally:
            await channel.close()

        def blocking() -> tuple[int, int]:
            with Client.connect(served.target, key=served.keys["bob"]) as client:
                leagues = BlockingLeagues(client)
                return leagues.get("cup").matches_made, leagues.board("cup").total

        assert await asyncio.to_thread(blocking) == (1, 2)


async def test_play_goes_on_across_a_server_restart(redis_url: str) -> None:
    async with league_server(redis_url, **ROLES) as served:
        channel = served.options().aio_channel()
        try:
            org, ana, bob = (keyed_client(channel, served.keys[n]) for n in ("org", "ana", "bob"))
            # A clock long enough that the restart (seconds on a loaded machine) cannot make
            # both seats time out turn after turn: that abandons the match, unrated.
            await Leagues(org).create("cup", target=11, move_ms=10_000)
            restarted = asyncio.Event()

            def told(update: pb.TicketUpdate) -> None:
                if update.WhichOneof("update") == "ticket" and not restarted.is_set():
                    restarted.set()
                    asyncio.get_running_loop().create_task(served.restart())

            games = await asyncio.wait_for(
                asyncio.gather(
                    play_league(ana, "cup", random_bot, matches=2, on_update=told),
                    play_league(bob, "cup", random_bot, matches=2),
                ),
                90,
            )
        finally:
            await channel.close()
    assert restarted.is_set()
    assert [m.match for m in games[0]] == [m.match for m in games[1]] == [1, 2]
    assert all(m.rated for m in games[0])
