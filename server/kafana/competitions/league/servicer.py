"""The `kafana.v1.LeaguesService` service over a `LeagueStore` and the server's `Tables`.

Every refusal is a `KafanaError` mapped to its `google.rpc.Status` and changes nothing: a bad
name INVALID_ARGUMENT, a bad page token INVALID_PAGE_TOKEN, an unknown league or match
NOT_FOUND, a league name taken ALREADY_EXISTS, joining with a match not settled WRONG_STATE,
queue calls without an account API_KEY_MISSING. Creating a league and
starting a season need the organiser role (`kafana.service.auth.PERMISSIONS`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.competitions.league import convert
from kafana.competitions.league.results import load_rating
from kafana.competitions.league.spec import dump, league_name, league_spec, load
from kafana.competitions.league.store import IDLE, PAIRED, WAITING, LeagueStore, now_ms
from kafana.competitions.league.tickets import Waiters, watch
from kafana.competitions.quota import DAY_MS, LEAGUES_PER_DAY, CreationQuota
from kafana.competitions.ratings import RatingPolicy
from kafana.errors import (
    AlreadyExistsError,
    ApiKeyMissing,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    WrongStateError,
)
from kafana.service.auth import caller_of
from kafana.service.errors import unary
from kafana.service.inputs import ACCOUNT, check, page_token, read_page_token
from kafana.service.tables import Tables
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]
log = logging.getLogger(__name__)
MAX_PAGE_SIZE = 200
PAGE_SIZE = 50
MAX_START = 200_000_000
QUEUE_STATES = {
    WAITING: pb.QUEUE_STATE_WAITING,
    PAIRED: pb.QUEUE_STATE_PAIRED,
    IDLE: pb.QUEUE_STATE_IDLE,
}
MATCHES = 20
MAX_MATCHES = 200
MAX_HISTORY = 1000


class LeagueError(WrongStateError):
    """What the league's state does not allow now (WRONG_STATE)."""


def _account(context: Context, rpc: str) -> str:
    """The caller's account; API_KEY_MISSING for an anonymous caller."""
    account = caller_of(context).account
    if not account:
        raise ApiKeyMissing(
            f"{rpc} needs an account: send its API key (authorization: Bearer <key>)"
        )
    return account


def _retention(meta: dict[str, str]) -> int:
    """The league's retention in ms (its spec's `retention_days`)."""
    return load(meta["spec"]).retention_days * DAY_MS


def _check_owner(context: Context, meta: dict[str, str], league: str, action: str) -> None:
    """PermissionDeniedError unless the caller organises `league` or is an operator (a league
    made without a key, in `--auth open` mode, is anyone's)."""
    caller = caller_of(context)
    owner = meta.get("organiser", "")
    if owner and caller.account != owner and caller.role != "operator":
        raise PermissionDeniedError(
            f"only league {league!r}'s organiser ({owner!r}) or an operator may {action} it"
        )


class LeaguesServiceServicer(leagues_pb2_grpc.LeaguesServiceServicer):
    """Leagues: create, queue, tickets, boards, players and matches."""

    def __init__(
        self, store: LeagueStore, tables: Callable[[], Tables], wake: Callable[[], None]
    ) -> None:
        self.store = store
        self.tables = tables  # the server's, once it started
        self.wake = wake
        self.waiters = Waiters()
        self.stopping = asyncio.Event()
        self._leaving: set[asyncio.Future[None]] = set()
        self.policy = RatingPolicy()
        # leagues created per account (counted in the server's shared counters once started)
        self.quota = CreationQuota("leagues", LEAGUES_PER_DAY, DAY_MS, "day")

    async def _meta(self, league: str) -> dict[str, str]:
        meta = await self.store.meta(league_name(league))
        if not meta.get("spec"):
            raise NotFoundError(f"no league {league!r}", resource="league")
        return meta

    async def _season(self, meta: dict[str, str], season: int, league: str) -> int:
        current = int(meta.get("season", "1"))
        if season > current:
            raise NotFoundError(
                f"league {league!r} has seasons 1 to {current}, not {season}", resource="season"
            )
        return season or current

    @unary
    async def CreateLeague(
        self, request: pb.CreateLeagueRequest, context: Context
    ) -> pb.LeagueInfo:
        """A new league with its rules, clock and fault policy fixed."""
        name = league_name(request.league)
        spec = league_spec(request.spec)
        caller = caller_of(context)
        organiser = caller.account or ""
        now = now_ms()
        if await self.store.meta(name):
            raise AlreadyExistsError(f"a league named {name!r} exists", resource="league")
        await self.quota.admit(caller, now)
        fields = {"spec": dump(spec), "organiser": organiser, "created_ms": str(now)}
        if not await self.store.create(name, fields):
            raise AlreadyExistsError(f"a league named {name!r} exists", resource="league")
        await self.store.keep(name, 1, spec.retention_days * DAY_MS)
        self.wake()
        return convert.league_info(name, await self._meta(name), 0)

    @unary
    async def GetLeague(self, request: pb.GetLeagueRequest, context: Context) -> pb.LeagueInfo:
        """The league's spec, season and counts."""
        meta = await self._meta(request.league)
        waiting = await self.store.waiting(request.league)
        return convert.league_info(request.league, meta, waiting)

    @unary
    async def ListLeagues(
        self, request: pb.ListLeaguesRequest, context: Context
    ) -> pb.ListLeaguesResponse:
        """Every league in name order, a page at a time (AIP-158; a league gone meanwhile is
        left out)."""
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        after = read_page_token(request.page_token, "leagues")[1] if request.page_token else ""
        names = sorted(n for n in await self.store.leagues() if n > after)
        out = pb.ListLeaguesResponse()
        for name in names[:size]:
            meta = await self.store.meta(name)
            if meta.get("spec"):
                out.leagues.append(convert.league_info(name, meta, await self.store.waiting(name)))
        if len(names) > size:
            out.next_page_token = page_token((0, names[size - 1]), "leagues")
        return out

    @unary
    async def NewSeason(self, request: pb.NewSeasonRequest, context: Context) -> pb.LeagueInfo:
        """The next season: ratings and board begin afresh (its organiser or an operator)."""
        meta = await self._meta(request.league)
        _check_owner(context, meta, request.league, "start a new season of")
        season = await self.store.new_season(request.league)
        await self.store.keep(request.league, season, _retention(meta))
        meta = await self._meta(request.league)
        return convert.league_info(request.league, meta, await self.store.waiting(request.league))

    async def _queue_status(self, league: str, player: str, state: str) -> pb.QueueStatus:
        meta = await self._meta(league)
        season = int(meta.get("season", "1"))
        (raw,) = await self.store.ratings(league, season, [player])
        rating = load_rating(raw)
        return pb.QueueStatus(
            league=league,
            player=player,
            state=QUEUE_STATES.get(state, pb.QUEUE_STATE_UNSPECIFIED),
            waiting=await self.store.waiting(league),
            mu=rating.mu,
            rating=rating.conservative,
        )

    @unary
    async def JoinQueue(self, request: pb.JoinQueueRequest, context: Context) -> pb.QueueStatus:
        """Wait for a match; refused while the caller has a match not settled."""
        player = _account(context, "JoinQueue")
        meta = await self._meta(request.league)
        season = int(meta.get("season", "1"))
        (raw,) = await self.store.ratings(request.league, season, [player])
        state, match = await self.store.join(request.league, player, load_rating(raw).mu, now_ms())
        await self.store.keep(request.league, season, _retention(meta))  # in use: kept
        if state == PAIRED:
            raise LeagueError(
                f"{player!r} is in match {match} of league {request.league!r}, not settled "
                "yet: play it (WatchTickets) before queueing again"
            )
        self.wake()
        self.waiters.wake(request.league, [player])
        return await self._queue_status(request.league, player, state)

    @unary
    async def LeaveQueue(self, request: pb.LeaveQueueRequest, context: Context) -> pb.QueueStatus:
        """Stop waiting (a match already made is still to be played)."""
        player = _account(context, "LeaveQueue")
        await self._meta(request.league)
        await self.store.leave(request.league, player)
        state, _ = await self.store.status(request.league, player)
        return await self._queue_status(request.league, player, state)

    @unary
    async def WatchTickets(  # type: ignore[override]  # streams with context.write
        self, request: pb.WatchTicketsRequest, context: Context
    ) -> None:
        """The caller's tickets and settled matches, and a heartbeat, until it closes."""
        player = _account(context, "WatchTickets")
        meta = await self._meta(request.league)
        spec = load(meta["spec"])

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
                log.info("league %s: %s left the queue with its ticket stream", league, player)

    @unary
    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: Context
    ) -> pb.LeaderboardPage:
        """A page of a season's board, best first (AIP-158: the token holds the next rank and
        the season, so a new season does not shift a board being paged)."""
        meta = await self._meta(request.league)
        season = await self._season(meta, request.season, request.league)
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        filters = f"board {request.league} {request.season}"
        start = 0
        if request.page_token:
            start, shown = read_page_token(request.page_token, filters)
            season = int(shown) if shown.isdigit() else season
            if not 0 <= start <= MAX_START:
                raise InvalidInputError("page_token is out of range", field="page_token")
        rows = await self.store.page(request.league, season, start, size + 1)
        total = await self.store.board_size(request.league, season)
        out = pb.LeaderboardPage(
            league=request.league,
            season=season,
            total=total,
            rows=[
                pb.BoardRow(rank=start + i + 1, player=p, rating=r)
                for i, (p, r) in enumerate(rows[:size])
            ],
        )
        if len(rows) > size:
            out.next_page_token = page_token((start + size, str(season)), filters)
        return out

    @unary
    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Context) -> pb.PlayerInfo:
        """A player's rating, rank, history and recent matches in a season."""
        league = request.league
        meta = await self._meta(league)
        season = await self._season(meta, request.season, league)
        player = (
            check(ACCOUNT, request.player, "player")
            if request.player
            else _account(context, "GetPlayer without a player")
        )
        count = request.matches or MATCHES
        if count > MAX_MATCHES:
            raise InvalidInputError(f"matches is at most {MAX_MATCHES}, not {count}")
        (raw,) = await self.store.ratings(league, season, [player])
        rating = load_rating(raw)
        history = await self.store.history(league, season, player, MAX_HISTORY)
        numbers = await self.store.recent(league, season, player, count)
        matches = [(n, await self.store.match(league, n)) for n in numbers]
        return pb.PlayerInfo(
            league=league,
            player=player,
            season=season,
            mu=rating.mu,
            sigma=rating.sigma,
            rating=rating.conservative,
            games=rating.games,
            provisional=self.policy.provisional(rating),
            rank=await self.store.rank(league, season, player),
            history=[pb.RatingPoint(**json.loads(point)) for point in history],
            matches=[convert.match_info(league, n, m) for n, m in matches if m],
        )

    @unary
    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.MatchInfo:
        """One match; its secret, result and record once settled."""
        await self._meta(request.league)
        match = await self.store.match(request.league, request.match)
        if not match:
            raise NotFoundError(
                f"no match {request.match} in league {request.league!r} (it may have expired)",
                resource="match",
            )
        return convert.match_info(request.league, request.match, match, record=request.record)
