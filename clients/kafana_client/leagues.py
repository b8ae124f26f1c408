"""Leagues hosted by the service (`kafana.v1.LeaguesService`), from the SDK: an API key is all a
player needs.

Example (inside an `async def`)::

    from kafana_client import AsyncClient
    from kafana_client.leagues import Leagues, play_league

    async with AsyncClient.connect("kafana.example:443", key=organiser_key) as client:
        await Leagues(client).create("spring", target=51, move_ms=5000)
    async with AsyncClient.connect("kafana.example:443", key=ana_key) as client:
        settled = await play_league(client, "spring", make_bot, matches=10)
        page = await Leagues(client).board("spring")

`play_league` opens the account's ticket stream, joins the queue, plays each ticket's seat with
the SDK's seat loop (`kafana_client.remote.play_seat`) and joins again once the match is settled.
Names stand for the API's enums as in `kafana_client.tournaments` (game "tac" is `GAME_TAC`,
preset "wild_jack" `TABLIC_PRESET_WILD_JACK`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import traceback
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import aclosing
from typing import Any

from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc, rules_pb2

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.blocking import Client, _Blocking, mirror, stream
from kafana_client.errors import FailedPreconditionError, RpcError
from kafana_client.paging import every, first
from kafana_client.remote import AnyBotMaker, BotMaker, play_table_seat
from kafana_client.tournaments import enum_value

Update = Callable[[pb.TicketUpdate], None]
SEAT_END_S = 10.0
"""How long a settled match's seat loop may take to see the table's end."""


def match_numbers(info: pb.LeagueInfo) -> list[int]:
    """Every match number the league has made (`LeagueInfo`): 1 to `matches_made`, or in a
    league of rating bands band i's n x bands + i (some may have expired since).

    >>> match_numbers(pb.LeagueInfo(matches_made=3))
    [1, 2, 3]
    >>> match_numbers(pb.LeagueInfo(matches_made=3, band_matches=[1, 2]))
    [2, 3, 5]
    """
    if not info.band_matches:
        return list(range(1, info.matches_made + 1))
    bands = len(info.band_matches)
    return sorted(
        n * bands + band for band, made in enumerate(info.band_matches) for n in range(1, made + 1)
    )


class Leagues:
    """The Leagues service over an `AsyncClient`'s connection (its key is the account)."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client
        self._stub: Any = leagues_pb2_grpc.LeaguesServiceStub(client.channel)

    async def _call(self, method: str, request: Any, *, retry: bool = False) -> Any:
        return await self.client._call(method, request, None, retry=retry, stub=self._stub)

    async def create(
        self,
        league: str,
        *,
        game: str = "",
        preset: str = "",
        target: int = 0,
        players: int = 0,
        move_ms: int = 0,
        timeouts_to_forfeit: int = 0,
        join_deadline_ms: int = 0,
        retention_days: int = 0,
        disconnect_grace_ms: int = 0,
        illegal_limit: int = 0,
        rematch_limit: int = 0,
        rules: rules_pb2.RulesSpec | None = None,
        clock: rules_pb2.ClockSpec | None = None,
        band_edges: Sequence[float] = (),
    ) -> pb.LeagueInfo:
        """Create a league (organiser role); 0 or "" leaves a setting at the server's default.

        `rules`: the tables' rules as a table's `RulesSpec` (every switch; `convert.rules_spec`
        builds one), instead of `game`, `preset`, `target` and `players`; `clock`: the tables'
        clock as a table's `ClockSpec`, instead of `move_ms`, `timeouts_to_forfeit`,
        `disconnect_grace_ms` and `illegal_limit` (the server refuses both at once).
        `rematch_limit`: two players are not paired again within each one's last N matches
        (0: 2; 1 to 8) until both have waited 60 s. `band_edges`: rising ratings that split the
        queue into bands paired apart (a big league spread over a Redis Cluster's nodes;
        empty: one band)."""
        spec = pb.LeagueSpec(
            game=enum_value(rules_pb2.Game, "GAME_", game),
            preset=enum_value(rules_pb2.TablicPreset, "TABLIC_PRESET_", preset),
            target=target,
            players=players,
            move_ms=move_ms,
            timeouts_to_forfeit=timeouts_to_forfeit,
            join_deadline_ms=join_deadline_ms,
            retention_days=retention_days,
            disconnect_grace_ms=disconnect_grace_ms,
            illegal_limit=illegal_limit,
            rematch_limit=rematch_limit,
            rules=rules,
            clock=clock,
            band_edges=band_edges,
        )
        info: pb.LeagueInfo = await self._call(
            "CreateLeague", pb.CreateLeagueRequest(league=league, spec=spec)
        )
        return info

    async def get(self, league: str) -> pb.LeagueInfo:
        """The league: its spec, season, queue length and matches made and settled."""
        info: pb.LeagueInfo = await self._call(
            "GetLeague", pb.GetLeagueRequest(league=league), retry=True
        )
        return info

    async def list(self, limit: int = 50) -> list[pb.LeagueInfo]:
        """Up to `limit` leagues, in name order (as many pages as it takes)."""

        async def page(token: str) -> tuple[Iterable[pb.LeagueInfo], str]:
            request = pb.ListLeaguesRequest(page_size=min(limit, 200), page_token=token)
            answer = await self._call("ListLeagues", request, retry=True)
            return answer.leagues, answer.next_page_token

        return await first(every(page), limit)

    async def new_season(self, league: str) -> pb.LeagueInfo:
        """Start the next season (organiser role); the old boards are kept."""
        info: pb.LeagueInfo = await self._call("NewSeason", pb.NewSeasonRequest(league=league))
        return info

    async def join(self, league: str) -> pb.QueueStatus:
        """The caller's account waits for a match (refused while one is not yet settled).

        Retried on UNAVAILABLE: joining twice leaves the account waiting once."""
        request = pb.JoinQueueRequest(league=league)
        status: pb.QueueStatus = await self._call("JoinQueue", request, retry=True)
        return status

    async def leave(self, league: str) -> pb.QueueStatus:
        """The caller's account stops waiting (retried on UNAVAILABLE, as leaving is)."""
        request = pb.LeaveQueueRequest(league=league)
        status: pb.QueueStatus = await self._call("LeaveQueue", request, retry=True)
        return status

    async def board(
        self, league: str, *, season: int = 0, page_size: int = 50, page_token: str = ""
    ) -> pb.LeaderboardPage:
        """A page of a season's leaderboard (0: the current season), best first; the next
        page with `page_token` = this page's `next_page_token` ("" on the last page)."""
        request = pb.GetLeaderboardRequest(
            league=league, season=season, page_size=page_size, page_token=page_token
        )
        board: pb.LeaderboardPage = await self._call("GetLeaderboard", request, retry=True)
        return board

    async def player(
        self, league: str, player: str = "", *, season: int = 0, matches: int = 0
    ) -> pb.PlayerInfo:
        """A player's rating, rank, history and latest matches ("": the caller's account)."""
        request = pb.GetPlayerRequest(league=league, player=player, season=season, matches=matches)
        info: pb.PlayerInfo = await self._call("GetPlayer", request, retry=True)
        return info

    async def match(self, league: str, match: int, *, record: bool = False) -> pb.MatchInfo:
        """One match; with `record`, its fair record once settled (`kafana verify` checks it)."""
        request = pb.GetMatchRequest(league=league, match=match, record=record)
        info: pb.MatchInfo = await self._call("GetMatch", request, retry=True)
        return info

    async def tickets(
        self, league: str, on_reopen: Callable[[], None] | None = None
    ) -> AsyncIterator[pb.TicketUpdate]:
        """The caller's tickets and settled matches (and heartbeats), until the caller stops.

        A dropped stream, or one the server ended (it stops: another process or its restart
        carries on), is reopened; a ticket may then come again: key on `match`. The server
        takes a player whose stream ended out of the queue: `on_reopen` is called at the first
        message of a reopened stream (join again there).
        """
        opened = 0

        def open_call(failures: int) -> Any:
            nonlocal opened
            opened += 1
            return self._stub.WatchTickets(pb.WatchTicketsRequest(league=league))

        told = 1  # the openings whose first message was passed on
        items = self.client._reopened("WatchTickets", open_call, reopen_at_end=True, paced=False)
        async with aclosing(items):
            async for update in items:
                if opened > told and on_reopen is not None:
                    on_reopen()
                told = opened
                yield update


class BlockingLeagues(_Blocking):
    """The Leagues calls over a blocking `Client` (the same calls as `Leagues`)."""

    def __init__(self, client: Client) -> None:
        self._loop = client._loop

        async def make() -> Leagues:
            return Leagues(client.aio)

        self._async = self._loop.run(make())

    create = mirror(Leagues.create)
    get = mirror(Leagues.get)
    list = mirror(Leagues.list)
    new_season = mirror(Leagues.new_season)
    join = mirror(Leagues.join)
    leave = mirror(Leagues.leave)
    board = mirror(Leagues.board)
    player = mirror(Leagues.player)
    match = mirror(Leagues.match)
    tickets = stream(Leagues.tickets)


def received_ms() -> int:
    """Wall-clock milliseconds (what a ticket's `created_ms` is compared with)."""
    return int(time.time() * 1000)


async def play_ticket(
    client: AsyncClient,
    ticket: pb.Ticket,
    make_bot: BotMaker | AnyBotMaker,
    *,
    poll: float = 2.0,
) -> None:
    """Play a ticket's seat to the end with a bot from `make_bot(seat, rules)`, given the
    rules of the match's table (Tablić or Tač: the league's game).

    A bot's exception is printed with its traceback on stderr (the seat is then left to the
    league's fault policy: its clock runs out); an RPC failure is printed on one line.
    """
    who = ticket.players[ticket.seat] if len(ticket.players) > ticket.seat else ""
    seat = AsyncSeat(client, ticket.table_id, ticket.seat, ticket.seat_token, who)
    try:
        await play_table_seat(seat, make_bot, poll=poll)
    except asyncio.CancelledError:
        raise
    except RpcError as error:
        print(f"league match {ticket.match}: {error}", file=sys.stderr, flush=True)
    except Exception as error:  # the bot's own: its author needs the traceback
        print(f"league match {ticket.match}: the bot failed:", file=sys.stderr)
        traceback.print_exception(error, file=sys.stderr)
        sys.stderr.flush()


async def play_league(
    client: AsyncClient,
    league: str,
    make_bot: BotMaker | AnyBotMaker,
    *,
    matches: int = 0,
    on_update: Update | None = None,
    poll: float = 2.0,
) -> list[pb.MatchInfo]:
    """Play league matches for the client's account until `matches` are settled (0: for ever).

    Opens the ticket stream, joins the queue, plays each ticket's seat in its own task
    (`play_ticket`) and joins again after each settled match. `on_update` is told every ticket
    and settled match. Returns the settled matches, in the order they were settled; on the way
    out (cancelled, or a failure) the account leaves the queue.
    """
    leagues = Leagues(client)
    settled: list[pb.MatchInfo] = []
    playing: dict[int, asyncio.Task[None]] = {}
    seen: set[int] = set()  # a reopened stream may bring a ticket again
    done: set[int] = set()
    updates: asyncio.Queue[pb.TicketUpdate | BaseException] = asyncio.Queue()

    joins: set[asyncio.Task[None]] = set()

    def rejoin() -> None:  # the server took us out of the queue when the stream dropped
        if not playing and (not matches or len(settled) < matches):
            task = asyncio.create_task(_join(leagues, league))
            joins.add(task)
            task.add_done_callback(joins.discard)

    async def read() -> None:
        try:
            async for update in leagues.tickets(league, rejoin):
                updates.put_nowait(update)
        except BaseException as error:  # handed to the loop below
            updates.put_nowait(error)
            raise

    reader = asyncio.create_task(read())
    try:
        await _join(leagues, league)
        while not matches or len(settled) < matches:
            update = await updates.get()
            if isinstance(update, BaseException):
                raise update
            kind = update.WhichOneof("update")
            if kind == "ticket" and update.ticket.match not in seen:
                ticket = update.ticket
                seen.add(ticket.match)
                playing[ticket.match] = asyncio.create_task(
                    play_ticket(client, ticket, make_bot, poll=poll)
                )
            if kind in ("ticket", "settled") and on_update is not None:
                on_update(update)
            if kind == "settled" and update.settled.match not in done:
                done.add(update.settled.match)
                settled.append(update.settled)
                task = playing.pop(update.settled.match, None)
                if task is not None:  # its seat loop sees the end too, in a moment
                    await asyncio.wait([task], timeout=SEAT_END_S)
                    task.cancel()
                if not matches or len(settled) < matches:
                    await _join(leagues, league)
        return settled
    finally:
        reader.cancel()
        for task in (*playing.values(), *joins):
            task.cancel()
        for task in (reader, *playing.values(), *joins):
            with contextlib.suppress(asyncio.CancelledError, RpcError):
                await task
        if not matches or len(settled) < matches:
            with contextlib.suppress(RpcError):
                await asyncio.shield(leagues.leave(league))


async def _join(leagues: Leagues, league: str) -> None:
    """Join the queue; a match still open (a restart mid-match) is played first, its ticket
    coming on the stream; benched after a no-show (the client was away when its match was
    made), wait the bench out and join then."""
    while True:
        try:
            await leagues.join(league)
            return
        except FailedPreconditionError:
            if (await leagues.leave(league)).state != pb.QUEUE_STATE_PAIRED:  # refused otherwise
                raise
            return
        except RpcError as error:
            if error.metadata.get("quota") != "no_show" or error.retry_after is None:
                raise
            await asyncio.sleep(error.retry_after)
