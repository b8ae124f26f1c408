"""The leagues' domain layer: every operation on a league, with typed answers.

`Leagues` checks names, owners and accounts, turns the store's answers (no meta, "paired")
into `KafanaError`s naming what was wrong, and returns values (`League`, `QueueView`,
`BoardPage`, `PlayerView`, `MatchView`); the gRPC servicer (`league/servicer.py`) only reads
requests, decodes page tokens and converts these values to messages.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafana.competitions.league.results import load_rating
from kafana.competitions.league.spec import dump, league_name, league_spec, load
from kafana.competitions.league.store import PAIRED, LeagueStore
from kafana.competitions.quota import DAY_MS, LEAGUES_PER_DAY, CreationQuota
from kafana.competitions.ratings import Rating, RatingPolicy
from kafana.errors import (
    AlreadyExistsError,
    ApiKeyMissing,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    RateLimited,
    WrongStateError,
)
from kafana.service.auth import Caller
from kafana.service.inputs import ACCOUNT, check, made_up_token
from kafana.store.accounts import now_ms
from kafana.v1 import leagues_pb2 as pb

MATCHES = 20
MAX_MATCHES = 200
MAX_HISTORY = 1000  # rate.lua keeps as many a player and season
MAX_START = 200_000_000


class LeagueError(WrongStateError):
    """What the league's state does not allow now (WRONG_STATE)."""


@dataclass(frozen=True)
class League:
    """A league: its name, stored fields (spec, organiser, season, counts) and queue length."""

    name: str
    meta: dict[str, str]
    waiting: int

    @property
    def spec(self) -> pb.LeagueSpec:
        """Its rules, clock and fault policy."""
        return load(self.meta["spec"])

    @property
    def season(self) -> int:
        """The current season."""
        return int(self.meta.get("season", "1"))


@dataclass(frozen=True)
class QueueView:
    """A player's place in a league's queue (state: waiting, paired or idle)."""

    league: str
    player: str
    state: str
    waiting: int
    rating: Rating


@dataclass(frozen=True)
class BoardPage:
    """Rows of a season's board from rank `start` + 1, and where the next page starts."""

    league: str
    season: int
    total: int
    start: int
    rows: list[tuple[str, float]]
    next_start: int | None


SUMMARY = (
    *("season", "players", "table", "commitment", "state", "created_ms", "ending", "rated"),
    *("detail", "forfeit_reason", "scores", "faults", "secret", "settled_ms"),
)
"""A match's fields `convert.match_info` shows without the record (a Serbian match's is ~4
KB: a player's 200 matches read whole were 961 KB from Redis a GetPlayer, 15 ms)."""


@dataclass(frozen=True)
class MatchView:
    """One match's stored fields (all, or its `SUMMARY`)."""

    league: str
    number: int
    fields: dict[str, str]


@dataclass(frozen=True)
class PlayerView:
    """A player's rating, rank, history points and recent matches in a season."""

    league: str
    player: str
    season: int
    rating: Rating
    provisional: bool
    rank: int
    history: list[dict[str, Any]]  # game (int), mu, sigma (JSON of a history point)
    matches: list[MatchView]


def account_of(caller: Caller, rpc: str) -> str:
    """The caller's account; API_KEY_MISSING for an anonymous caller."""
    if not caller.account:
        raise ApiKeyMissing(
            f"{rpc} needs an account: send its API key (authorization: Bearer <key>)"
        )
    return caller.account


def _retention(meta: dict[str, str]) -> int:
    """The league's retention in ms (its spec's `retention_days`)."""
    return load(meta["spec"]).retention_days * DAY_MS


class Leagues:
    """Leagues on `store`; `wake` starts this process's pairing now, `wake_players` the
    ticket streams of players whose state changed."""

    def __init__(
        self,
        store: LeagueStore,
        wake: Callable[[], None],
        wake_players: Callable[[str, list[str]], None],
    ) -> None:
        self.store = store
        self.wake = wake
        self.wake_players = wake_players
        self.policy = RatingPolicy()
        # leagues created per account (counted in the server's shared counters once started)
        self.quota = CreationQuota("leagues", LEAGUES_PER_DAY, DAY_MS, "day")

    async def meta(self, league: str) -> dict[str, str]:
        """A league's stored fields; NotFoundError for an unknown one."""
        meta = await self.store.meta(league_name(league))
        if not meta.get("spec"):
            raise NotFoundError(f"no league {league!r}", resource="league")
        return meta

    async def get(self, league: str) -> League:
        """The league with its queue length."""
        meta = await self.meta(league)
        return League(league, meta, await self.store.waiting(league))

    def season_of(self, meta: dict[str, str], season: int, league: str) -> int:
        """`season` (0: the current one) if the league has it, else NotFoundError."""
        current = int(meta.get("season", "1"))
        if season > current:
            raise NotFoundError(
                f"league {league!r} has seasons 1 to {current}, not {season}", resource="season"
            )
        return season or current

    async def create(self, league: str, spec: pb.LeagueSpec, caller: Caller) -> League:
        """A new league with its rules, clock and fault policy fixed (defaults filled in)."""
        name = league_name(league)
        full = league_spec(spec)
        now = now_ms()
        if await self.store.meta(name):
            raise AlreadyExistsError(f"a league named {name!r} exists", resource="league")
        await self.quota.admit(caller, now)
        fields = {"spec": dump(full), "organiser": caller.account or "", "created_ms": str(now)}
        if not await self.store.create(name, fields):
            raise AlreadyExistsError(f"a league named {name!r} exists", resource="league")
        await self.store.keep(name, 1, full.retention_days * DAY_MS)
        self.wake()
        return League(name, await self.meta(name), 0)

    async def page(self, size: int, after: str) -> tuple[list[League], str | None]:
        """Leagues in name order after `after`, and the name the next page follows (None: the
        last page); a league gone meanwhile is left out."""
        names = sorted(n for n in await self.store.leagues() if n > after)
        out = []
        for name in names[:size]:
            meta = await self.store.meta(name)
            if meta.get("spec"):
                out.append(League(name, meta, await self.store.waiting(name)))
        return out, (names[size - 1] if len(names) > size else None)

    async def new_season(self, league: str, caller: Caller) -> League:
        """The next season: ratings and board begin afresh (its organiser or an operator; a
        league made without a key, in `--auth open` mode, is anyone's)."""
        meta = await self.meta(league)
        owner = meta.get("organiser", "")
        if owner and caller.account != owner and caller.role != "operator":
            raise PermissionDeniedError(
                f"only league {league!r}'s organiser ({owner!r}) or an operator may start a new"
                " season of it"
            )
        season = await self.store.new_season(league)
        await self.store.keep(league, season, _retention(meta))
        return await self.get(league)

    async def queue_view(self, league: str, player: str, state: str) -> QueueView:
        """A player's queue state with its current rating."""
        meta = await self.meta(league)
        (raw,) = await self.store.ratings(league, int(meta.get("season", "1")), [player])
        waiting = await self.store.waiting(league)
        return QueueView(league, player, state, waiting, load_rating(raw))

    async def join(self, league: str, caller: Caller) -> QueueView:
        """Wait for a match; refused while the caller has a match not settled."""
        player = account_of(caller, "JoinQueue")
        meta = await self.meta(league)
        benched = await self.store.benched(league, player) - now_ms()
        if benched > 0:
            raise RateLimited(
                f"{player!r} did not take their seat in a match of league {league!r} by its join "
                f"deadline: queueing again in {-(-benched // 1000)} s (open WatchTickets first, "
                "then JoinQueue)",
                benched,
                quota="no_show",
            )
        season = int(meta.get("season", "1"))
        (raw,) = await self.store.ratings(league, season, [player])
        keep = _retention(meta)
        mu = load_rating(raw).mu
        state, match = await self.store.join(league, player, mu, now_ms(), keep)
        if state == PAIRED:  # refused: nothing written
            raise LeagueError(
                f"{player!r} is in match {match} of league {league!r}, not settled "
                "yet: play it (WatchTickets) before queueing again"
            )
        band = (await self.store.bands(league)).of(mu)
        await self.store.keep(league, season, keep, band)  # in use: kept
        self.wake()
        self.wake_players(league, [player])
        return await self.queue_view(league, player, state)

    async def leave(self, league: str, caller: Caller) -> QueueView:
        """Stop waiting (a match already made is still to be played)."""
        player = account_of(caller, "LeaveQueue")
        await self.meta(league)
        await self.store.leave(league, player)
        state, _ = await self.store.status(league, player)
        return await self.queue_view(league, player, state)

    async def board(
        self, league: str, season: int, start: int, size: int, shown: int | None = None
    ) -> BoardPage:
        """A page of a season's board from rank `start` + 1 (`shown`: the season a page token
        carried, so a new season does not shift a board being paged; None: no token)."""
        meta = await self.meta(league)
        season = self.season_of(meta, season, league)
        if shown is not None:
            if not (0 <= start <= MAX_START and 1 <= shown <= self.season_of(meta, 0, league)):
                raise made_up_token()
            season = shown
        rows = await self.store.page(league, season, start, size + 1)
        total = await self.store.board_size(league, season)
        more = start + size if len(rows) > size else None
        return BoardPage(league, season, total, start, rows[:size], more)

    async def player(
        self, league: str, season: int, player: str, caller: Caller, count: int
    ) -> PlayerView:
        """A player's rating, rank, history and recent matches (`player` "": the caller's)."""
        meta = await self.meta(league)
        season = self.season_of(meta, season, league)
        who = (
            check(ACCOUNT, player, "player")
            if player
            else account_of(caller, "GetPlayer without a player")
        )
        count = count or MATCHES
        if count > MAX_MATCHES:
            raise InvalidInputError(
                f"matches is at most {MAX_MATCHES}, not {count}", field="matches"
            )
        (raw,) = await self.store.ratings(league, season, [who])
        rating = load_rating(raw)
        history = await self.store.history(league, season, who, MAX_HISTORY)
        numbers = await self.store.recent(league, season, who, count)
        found = await asyncio.gather(*(self.store.match(league, n, SUMMARY) for n in numbers))
        matches = [MatchView(league, n, fields) for n, fields in zip(numbers, found, strict=True)]
        return PlayerView(
            league,
            who,
            season,
            rating,
            self.policy.provisional(rating),
            await self.store.rank(league, season, who),
            [json.loads(point) for point in history],
            [m for m in matches if m.fields],
        )

    async def match(self, league: str, number: int) -> MatchView:
        """One match (NotFoundError once expired, or never made)."""
        await self.meta(league)
        fields = await self.store.match(league, number)
        if not fields:
            raise NotFoundError(
                f"no match {number} in league {league!r} (it may have expired)", resource="match"
            )
        return MatchView(league, number, fields)
