"""The `kafana.v1.LeaguesService` service, on the `Leagues` domain layer and the server's
`Tables` (ticket streams).

Every refusal is a `KafanaError` mapped to its `google.rpc.Status` and changes nothing: a bad
name INVALID_ARGUMENT, a bad page token INVALID_PAGE_TOKEN, an unknown league or match
NOT_FOUND, a league name taken ALREADY_EXISTS, joining with a match not settled WRONG_STATE,
queue calls without an account API_KEY_MISSING. Creating a league and
starting a season need the organiser role (`kafana.service.auth.PERMISSIONS`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.competitions.league import convert
from kafana.competitions.league.leagues import Leagues, QueueView, account_of
from kafana.competitions.league.spec import load
from kafana.competitions.league.store import IDLE, PAIRED, WAITING, LeagueStore
from kafana.competitions.league.tickets import Waiters, watch
from kafana.competitions.quota import CreationQuota
from kafana.service.auth import caller_of
from kafana.service.errors import unary
from kafana.service.inputs import page_token, read_page_token
from kafana.service.ratelimit import charge
from kafana.service.tables import Tables
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]
log = logging.getLogger(__name__)
MAX_PAGE_SIZE = 200
PAGE_SIZE = 50
POINTS_A_TOKEN = 100
MATCHES_A_TOKEN = 10
"""History points and matches a GetPlayer shows that cost the caller one token, as one more
call: 1,000 points took 3.5 ms, 200 matches 8 ms more (a GetLeague 0.4 ms)."""
LEAGUES_A_TOKEN = 2
"""Leagues a ListLeagues page shows that cost the caller one token, as one more call (each is
read: its meta, and a GET and a ZCARD per band; 81 leagues, 40 of 16 bands, took 12.6 ms)."""
QUEUE_STATES = {
    WAITING: pb.QUEUE_STATE_WAITING,
    PAIRED: pb.QUEUE_STATE_PAIRED,
    IDLE: pb.QUEUE_STATE_IDLE,
}


class LeaguesServiceServicer(leagues_pb2_grpc.LeaguesServiceServicer):
    """The wire of leagues: requests in, messages out; every decision is `Leagues`' (the
    domain layer), the ticket streams `tickets.watch`."""

    def __init__(
        self, store: LeagueStore, tables: Callable[[], Tables], wake: Callable[[], None]
    ) -> None:
        self.store = store
        self.tables = tables  # the server's, once it started
        self.waiters = Waiters()
        self.leagues = Leagues(store, wake, self.waiters.wake)
        self.stopping = asyncio.Event()
        self._leaving: set[asyncio.Future[None]] = set()

    @property
    def quota(self) -> CreationQuota:
        """Leagues created per account (`Leagues.quota`)."""
        return self.leagues.quota

    @unary
    async def CreateLeague(
        self, request: pb.CreateLeagueRequest, context: Context
    ) -> pb.LeagueInfo:
        """A new league with its rules, clock and fault policy fixed."""
        made = await self.leagues.create(request.league, request.spec, caller_of(context))
        return convert.league_info(made.name, made.meta, made.waiting)

    @unary
    async def GetLeague(self, request: pb.GetLeagueRequest, context: Context) -> pb.LeagueInfo:
        """The league's spec, season and counts."""
        found = await self.leagues.get(request.league)
        return convert.league_info(found.name, found.meta, found.waiting)

    @unary
    async def ListLeagues(
        self, request: pb.ListLeaguesRequest, context: Context
    ) -> pb.ListLeaguesResponse:
        """Every league in name order, a page at a time (AIP-158; a league gone meanwhile is
        left out)."""
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        after = read_page_token(request.page_token, "leagues")[1] if request.page_token else ""
        found, last = await self.leagues.page(size, after)
        charge(len(found) / LEAGUES_A_TOKEN)
        out = pb.ListLeaguesResponse(
            leagues=[convert.league_info(x.name, x.meta, x.waiting) for x in found]
        )
        if last is not None:
            out.next_page_token = page_token((0, last), "leagues")
        return out

    @unary
    async def NewSeason(self, request: pb.NewSeasonRequest, context: Context) -> pb.LeagueInfo:
        """The next season: ratings and board begin afresh (its organiser or an operator)."""
        found = await self.leagues.new_season(request.league, caller_of(context))
        return convert.league_info(found.name, found.meta, found.waiting)

    @unary
    async def JoinQueue(self, request: pb.JoinQueueRequest, context: Context) -> pb.QueueStatus:
        """Wait for a match; refused while the caller has a match not settled."""
        return _queue_status(await self.leagues.join(request.league, caller_of(context)))

    @unary
    async def LeaveQueue(self, request: pb.LeaveQueueRequest, context: Context) -> pb.QueueStatus:
        """Stop waiting (a match already made is still to be played)."""
        return _queue_status(await self.leagues.leave(request.league, caller_of(context)))

    @unary
    async def WatchTickets(  # type: ignore[override]  # streams with context.write
        self, request: pb.WatchTicketsRequest, context: Context
    ) -> None:
        """The caller's tickets and settled matches, and a heartbeat, until it closes."""
        player = account_of(caller_of(context), "WatchTickets")
        spec = load((await self.leagues.meta(request.league))["spec"])

        async def write(update: pb.TicketUpdate) -> None:
            await context.write(update)

        try:
            await watch(
                self.store,
                self.tables(),
                self.waiters,
                request.league,
                player,
                spec.move_ms,
                write,
                lambda: self.stopping.is_set() or context.done(),
            )
        finally:  # the player is gone (its process died, or it closed its stream)
            if not self.stopping.is_set():
                gone = asyncio.ensure_future(self._gone(request.league, player))
                self._leaving.add(gone)
                gone.add_done_callback(self._leaving.discard)

    async def _gone(self, league: str, player: str) -> None:
        """Take a player whose last ticket stream in this process ended out of the queue: a
        dead client is never paired (and rated) for a match it cannot play. A match already
        made is left to the referee (a no-show)."""
        if self.waiters.watched(league, player):
            return  # another stream of the player is open here
        with contextlib.suppress(Exception):  # the store is down: the join deadline decides
            if (await self.store.status(league, player))[0] == WAITING:
                await self.store.leave(league, player)
                log.debug("league %s: %s left the queue with its ticket stream", league, player)

    @unary
    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: Context
    ) -> pb.LeaderboardPage:
        """A page of a season's board, best first (AIP-158: the token holds the next rank and
        the season, so a new season does not shift a board being paged)."""
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        filters = f"board {request.league} {request.season}"
        start, shown = 0, None
        if request.page_token:
            start, text = read_page_token(request.page_token, filters)
            shown = int(text) if text.isascii() and text.isdigit() and len(text) < 10 else -1
        page = await self.leagues.board(request.league, request.season, start, size, shown)
        out = pb.LeaderboardPage(
            league=page.league,
            season=page.season,
            total=page.total,
            rows=[
                pb.BoardRow(rank=page.start + i + 1, player=p, rating=r)
                for i, (p, r) in enumerate(page.rows)
            ],
        )
        if page.next_start is not None:
            out.next_page_token = page_token((page.next_start, str(page.season)), filters)
        return out

    @unary
    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Context) -> pb.PlayerInfo:
        """A player's rating, rank, history and recent matches in a season."""
        view = await self.leagues.player(
            request.league, request.season, request.player, caller_of(context), request.matches
        )
        charge(len(view.history) / POINTS_A_TOKEN + len(view.matches) / MATCHES_A_TOKEN)
        rating = view.rating
        return pb.PlayerInfo(
            league=view.league,
            player=view.player,
            season=view.season,
            mu=rating.mu,
            sigma=rating.sigma,
            rating=rating.conservative,
            games=rating.games,
            provisional=view.provisional,
            rank=view.rank,
            history=[pb.RatingPoint(**point) for point in view.history],
            matches=[convert.match_info(m.league, m.number, m.fields) for m in view.matches],
        )

    @unary
    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.MatchInfo:
        """One match; its secret, result and record once settled."""
        m = await self.leagues.match(request.league, request.match)
        return convert.match_info(m.league, m.number, m.fields, record=request.record)


def _queue_status(view: QueueView) -> pb.QueueStatus:
    """A queue state as a message."""
    return pb.QueueStatus(
        league=view.league,
        player=view.player,
        state=QUEUE_STATES.get(view.state, pb.QUEUE_STATE_UNSPECIFIED),
        waiting=view.waiting,
        mu=view.rating.mu,
        rating=view.rating.conservative,
    )
