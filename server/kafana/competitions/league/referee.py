"""The league referee of one server process: pairs the queue and settles every match.

Every server process runs one; on one Redis they share the work safely. Pairing a league's
queue is leased to one process at a time; an unsettled match is in the league's `due` set and a
referee claims a batch of due matches atomically (each for a lease), so one referee at a time
looks at a match, and a match whose referee died is looked at again when its lease runs out.
There is no stream per match: a claimed match is looked at once (its table made, its seats
checked at the join deadline, its end settled) and put back with the time of its next look;
a table that finishes in this process (the last move, a timeout) is settled at once. Settling
is three store steps, each once (the first settler's result fixed, the ratings written, the
match marked settled); a match left half-settled (its referee died) is due again and finished
from its fixed result, so a match is rated once whichever referees look at it and however
many tables run. A league of several rating bands is paired band by band, each band leased
on its own (so several processes pair one league).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable

from kafana import metrics
from kafana.competitions.fairness import commitment, new_secret
from kafana.competitions.league.matchmaking import Window, groups
from kafana.competitions.league.notices import tell_made, tell_settled
from kafana.competitions.league.results import (
    BENCH_KEEP_MS,
    BENCH_MS,
    Outcome,
    absent,
    fair_record,
    new_ratings,
    no_show,
    played,
)
from kafana.competitions.league.spec import DAY_MS, REMATCH_LIMIT, load
from kafana.competitions.league.store import (
    PLAYING,
    RATING,
    SETTLED,
    LeagueStore,
    RatingWrite,
    Settlement,
    Waiting,
)
from kafana.competitions.league.tables import league_table, match_of, table_of
from kafana.competitions.model import Ending
from kafana.competitions.table_results import ENDINGS
from kafana.competitions.wire import result_enum
from kafana.errors import KafanaError, MatchOverError, NotFoundError
from kafana.logs import Repeated
from kafana.service import convert
from kafana.service.embargo import MAX_TTL_MS
from kafana.service.tables import Tables
from kafana.store.accounts import now_ms
from kafana.store.base import FINISHED, OPEN
from kafana.store.errors import StoreUnavailable
from kafana.tasks import Alarm
from kafana.v1 import leagues_pb2

log = logging.getLogger(__name__)
_random = secrets.SystemRandom()


IDLE_PAUSE_S = 1.0
"""The longest a referee waits between two looks at a league where nothing happens (no match
to look at, none made): the pause doubles from `tick_s` each idle round. A join or a finished
table in this process wakes every league at once; one through another process is seen within
this long (two processes looking at every league ten times a second cost 3.6 ms of CPU a
second per banded league)."""

FORGET_EVERY_MS = 60_000
"""How often a referee drops the leagues whose keys expired (nobody used them for their
retention) from the list it pairs."""


class Referee:
    """Pairs and settles the matches of every league of a store, on a server's `Tables`."""

    def __init__(
        self,
        store: LeagueStore,
        tables: Tables,
        *,
        owner: str = "",
        tick_s: float = 0.1,
        batch: int = 500,
        poll_ms: int = 2_000,
        lease_ms: int = 10_000,
        window: Window | None = None,
        clock: Callable[[], int] = now_ms,
        wake_players: Callable[[str, list[str]], None] = lambda league, players: None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.owner = owner or secrets.token_hex(8)
        self.tick_s = tick_s
        self.batch = batch
        self.poll_ms = poll_ms
        self.lease_ms = lease_ms
        self.window = window or Window()
        self.clock = clock
        self.wake_players = wake_players
        self.settled = 0  # matches this referee settled
        self._specs: dict[str, leagues_pb2.LeagueSpec] = {}
        self._forget_at = 0  # when the next look for leagues past their retention is due
        self._finished: set[tuple[str, int]] = set()
        self._leases: dict[tuple[str, int], float] = {}  # (league, band) -> renew after (s)
        self._rest: dict[str, tuple[float, float]] = {}  # idle league -> (look after, pause) (s)
        self._woken = Alarm()
        self._errors = Repeated(log, "the league referee", quiet=(StoreUnavailable,))
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    # -- running ----------------------------------------------------------------------

    def start(self) -> None:
        """Run in the background (from the server's event loop)."""
        self.tables.listeners.append(self._told)
        self._task = asyncio.create_task(self.run(), name="kafana-league-referee")

    async def stop(self) -> None:
        """Stop after the current round (matches it holds are looked at by another later)."""
        self._stop.set()
        self._woken.ring()
        if self._told in self.tables.listeners:
            self.tables.listeners.remove(self._told)
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._task, 10.0)
            self._task = None
        metrics.league_queue_gone(self.owner)

    def wake(self) -> None:
        """Look at the queues now."""
        self._rest.clear()
        self._woken.ring()

    def _told(self, table_id: str, seq: int) -> None:
        """A table changed in this process: a league table that finished is settled now."""
        session = self.tables.cached(table_id)
        if session is None or session.status != FINISHED:
            return
        found = match_of(session.stored.name)
        if found is not None:
            self._finished.add(found)
            self._rest.pop(found[0], None)
            self._woken.ring()

    async def run(self) -> None:
        """Rounds until stopped."""
        while not self._stop.is_set():
            try:
                leagues = await self.store.leagues()
                if self.clock() >= self._forget_at:  # leagues past their retention
                    self._forget_at = self.clock() + FORGET_EVERY_MS
                    for league in leagues:
                        if not await self.store.meta(league):
                            await self.store.forget(league)
                            self._specs.pop(league, None)
                            self._rest.pop(league, None)
                            self._leases = {k: t for k, t in self._leases.items() if k[0] != league}
                    leagues = await self.store.leagues()
                for league in leagues:
                    await self._visit(league)
                self._errors.succeeded()
            except Exception as error:  # the store is down, a bug: logged, the next round tries
                self._errors.failed(error)
            await self._woken.nap(self.tick_s)

    async def _visit(self, league: str) -> None:
        """A round of the league unless it is resting; a round that found nothing to do makes
        it rest twice as long as the last (from `tick_s`, at most `IDLE_PAUSE_S`)."""
        now = time.monotonic()
        after, pause = self._rest.get(league, (0.0, 0.0))
        if now < after:
            return
        if await self.round(league):
            self._rest.pop(league, None)
        else:
            pause = min(IDLE_PAUSE_S, 2 * pause or self.tick_s)
            self._rest[league] = (now + pause, pause)

    async def round(self, league: str) -> int:
        """Pair the league's queue (if leased to us), then look at finished and due matches;
        how many matches were made or looked at."""
        spec = await self.spec(league)
        if spec is None:
            return 0
        made = await self.pair(league, spec)
        finished = [n for name, n in self._finished if name == league]
        self._finished -= {(league, n) for n in finished}
        due = await self.store.due(league, self.clock(), self.batch, self.lease_ms)
        numbers = list(dict.fromkeys(finished + due))
        await asyncio.gather(*(self.look(league, spec, n) for n in numbers))
        return len(numbers) + len(made)

    async def spec(self, league: str) -> leagues_pb2.LeagueSpec | None:
        """The league's spec (it never changes: cached)."""
        spec = self._specs.get(league)
        if spec is None:
            meta = await self.store.meta(league)
            if not meta.get("spec"):
                return None
            spec = self._specs[league] = load(meta["spec"])
        return spec

    # -- pairing ----------------------------------------------------------------------

    async def pair(self, league: str, spec: leagues_pb2.LeagueSpec) -> list[int]:
        """Make matches of the longest-waiting players of each band whose lease this process
        holds; their numbers."""
        made: list[int] = []
        held = waiting = 0
        season = ""  # read once, when a band has players enough
        for band in range((await self.store.bands(league)).count):
            if not await self._leased(league, band):
                continue
            held += 1
            found = await self.store.oldest(league, self.batch, band)
            waiting += len(found)
            if len(found) < spec.players:
                continue
            season = season or (await self.store.meta(league)).get("season", "1")
            numbers = await self._pair_band(league, spec, band, found, season)
            waiting -= spec.players * len(numbers)
            made += numbers
        if held:
            metrics.league_queue(self.owner, league, waiting)
        else:
            metrics.league_queue_gone(self.owner, league)  # the leases' holders report it
        await asyncio.gather(*(self.look(league, spec, n) for n in made))
        return made

    async def _leased(self, league: str, band: int) -> bool:
        """Whether this process pairs the band: its lease taken, or renewed once half of it
        has run (not every round: a league of 16 bands spent 64 Redis commands a round on
        renewing them)."""
        now = time.monotonic()
        if self._leases.get((league, band), 0.0) > now:
            return True
        if await self.store.pair_lease(league, self.owner, self.lease_ms, band):
            self._leases[league, band] = now + self.lease_ms / 2000
            return True
        self._leases.pop((league, band), None)
        return False

    async def _pair_band(
        self,
        league: str,
        spec: leagues_pb2.LeagueSpec,
        band: int,
        waiting: list[Waiting],
        season: str,
    ) -> list[int]:
        """Matches of one band's longest-waiting players (`waiting`): their numbers."""
        now = self.clock()
        recent = await self.store.last_opponents(league, [w.player for w in waiting], band)
        limit = spec.rematch_limit or REMATCH_LIMIT  # leagues made before the limit: its default
        claims = []
        for group in groups(waiting, spec.players, self.window, now, recent, limit):
            _random.shuffle(group)  # seat order
            secret = new_secret()
            fields = {
                "season": season,
                "players": " ".join(group),
                "secret": secret,
                "commitment": commitment(secret),
                "created_ms": str(now),
                "join_by_ms": str(now + spec.join_deadline_ms),
                "state": PLAYING,
            }
            claims.append(self.store.claim(league, group, fields, now + self.lease_ms, band))
        return [number for number in await asyncio.gather(*claims) if number]

    # -- looking at a match -----------------------------------------------------------

    async def look(self, league: str, spec: leagues_pb2.LeagueSpec, number: int) -> None:
        """Do what the match needs now: make its table, settle it, or look again later."""
        try:
            await self._look(league, spec, number)
        except Exception as error:  # left due: looked at again when its lease runs out
            self._errors.failed(error)

    async def _look(self, league: str, spec: leagues_pb2.LeagueSpec, number: int) -> None:
        match = await self.store.match(league, number)
        if not match or match.get("state") == SETTLED:
            return
        if match.get("state") == RATING:  # its settler stopped half-way: finished here
            await self.settle(league, spec, number, match, Outcome(match["ending"], ()))
            return
        players = match["players"].split()
        table_id, admin = table_of(match)
        now = self.clock()
        join_by = int(match["join_by_ms"])
        if not table_id:
            table_id = await self._make_table(league, spec, number, match)
            self.wake_players(league, players)
            await tell_made(self.tables, self.store, league, number, spec.move_ms)
            expires = now + self.tables.join_deadline_ms + 50  # the open table's life at most
            await self.store.reschedule(league, number, min(join_by, expires))
            return
        try:
            session = await self.tables.session(table_id)
        except NotFoundError:  # expired: open past the server's --join-deadline, or lost
            present = [f"token{seat}" in match for seat in range(len(players))]
            outcome = (
                no_show(present)
                if not all(present)
                else Outcome("abandoned", (), "the table expired")
            )
            await self.settle(league, spec, number, match, outcome)
            return
        if session.status == FINISHED:
            record = convert.record(await self.tables.record(table_id, past_embargo=True))
            await self.settle(league, spec, number, match, played(record, len(players)))
        elif session.status == OPEN and now >= join_by:
            try:
                closed = await self.tables.close(table_id, admin)
            except MatchOverError:  # it ended meanwhile: settled on the next look
                await self.store.reschedule(league, number, now)
                return
            present = [seat in closed.names for seat in range(len(players))]
            outcome = (
                Outcome("closed", (), "closed at the join deadline")
                if all(present)
                else no_show(present)
            )
            await self.settle(league, spec, number, match, outcome)
        else:
            # an open table may live the server's join deadline (--join-deadline) only
            expires = session.stored.created_ms + self.tables.join_deadline_ms + 50
            soonest = min(join_by, expires) if expires > now else join_by
            later = soonest if session.status == OPEN else now + self.poll_ms
            await self.store.reschedule(league, number, later)

    async def _make_table(
        self, league: str, spec: leagues_pb2.LeagueSpec, number: int, match: dict[str, str]
    ) -> str:
        """The match's table, made now unless another referee's was kept first. Every copy is
        dealt from the match's secret, so each is made under an embargo label of its own,
        lifted only for the copy kept: a copy another referee made first (closed here) or
        one a referee died before keeping (closed by its clock) serves no record, no seed,
        while the match is played at the kept one (a review: the closed copy's public record
        gave the live table's every hand)."""
        players = match["players"].split()
        config = league_table(league, number, players, match["secret"], spec)
        config.embargo = f"league/{league}/{number}/{secrets.token_hex(8)}"
        await self.tables.embargo(config.embargo, MAX_TTL_MS)
        table_id, admin, _ = await self.tables.create(config)
        kept = await self.store.set_once(league, number, "table", f"{table_id} {admin}")
        mine = kept.split(" ")[0] == table_id
        if mine:
            await self.tables.release(config.embargo)
        else:  # another referee made one first: ours is closed, theirs is played
            with contextlib.suppress(KafanaError):
                await self.tables.close(table_id, admin)
        return kept.split(" ")[0]

    # -- settling ---------------------------------------------------------------------

    async def settle(
        self,
        league: str,
        spec: leagues_pb2.LeagueSpec,
        number: int,
        match: dict[str, str],
        outcome: Outcome,
    ) -> str:
        """Mark the match settled and rate it, once (SETTLED, or "done" if it was)."""
        players = match["players"].split()
        season = int(match["season"])
        table_id, _ = table_of(match)
        fields = {
            "ending": outcome.ending,
            "detail": outcome.detail,
            "scores": json.dumps(list(outcome.scores)),
            "rated": "1" if outcome.scores else "0",
            "faults": json.dumps(list(outcome.faults)),
            "settled_ms": str(self.clock()),
            **outcome.extra,
        }
        if outcome.record:
            meta = (
                ("league", league),
                ("match", str(number)),
                ("season", str(season)),
                ("table", table_id),
                ("seats", " ".join(players)),
                ("ending", f"{_ending_word(outcome.ending)} {outcome.detail}".strip()),
            )
            fair = fair_record(match["commitment"], match["secret"], outcome.record, meta)
            fields["record"] = fair.to_text()
        fixed = await self.store.fix(league, number, fields)  # the first settler's result
        if not fixed:
            return "done"
        scores = json.loads(fixed["scores"]) if fixed.get("rated") == "1" else []
        retention = spec.retention_days * DAY_MS
        for _attempt in range(20):
            writes: tuple[RatingWrite, ...] = ()
            if scores:
                read = await self.store.ratings(league, season, players)
                rated = new_ratings(read, scores)
                writes = tuple(
                    RatingWrite(
                        p,
                        old,
                        text,
                        rating.conservative,
                        json.dumps({"mu": rating.mu, "sigma": rating.sigma})[1:],
                    )
                    for p, old, (rating, text) in zip(players, read, rated, strict=True)
                )
            answer = await self.store.settle(
                league, number, Settlement(season, tuple(players), fixed, writes, retention)
            )
            if answer != "retry":
                if answer == SETTLED:
                    now = self.clock()
                    for seat in absent(json.loads(fixed.get("faults", "[]"))):
                        await self.store.bench(league, players[seat], now, BENCH_MS, BENCH_KEEP_MS)
                    band = (await self.store.bands(league)).band_of(number)
                    await self.store.keep(league, season, retention, band)  # in use: kept
                    self.settled += 1
                    metrics.league_settled(bool(scores))
                    self.wake_players(league, players)
                    await tell_settled(self.tables, self.store, league, number)
                return answer
        raise RuntimeError(f"league {league} match {number}: ratings kept changing; retried")


def _ending_word(reason: str) -> str:
    """A table's result reason as a fair record's ending (`kafana verify` reads it): Tač's
    `out` and `stalled` are a score, a table closed or left by everyone is not played."""
    return ENDINGS.get(result_enum(reason), Ending.FORFEIT).value
