"""The director: plays every started hosted event through the service, in the background.

Each server process runs one `Director`. It scans the event store's index of started events
(`EventStore.started`: every one, however many events are newer) every `scan` seconds and takes
the lease of any started, unfinished event nobody directs (a lease expires `lease_ms` after its
holder stops renewing it, so a stopped or crashed process's events are taken over).
Directing an event: hand out rounds (`Tournament`), create one table per game with the
service's own table operations (`Tables`, as the RPCs do: the deal seed of the game's secret,
decks and the policy's clock), its seats bound to an account nobody has and taken at once (the
seat tokens are kept in the snapshot and told to remote entrants by `WatchEntry`), play the
built-in bots' seats in this process (their decisions in worker threads), referee the table,
and record the result. A duplicate board's tables carry the embargo label
`<event>/board-<n>`, embargoed from the start until every game of the board is done: no
table of it reveals its secret, decks or record before. A Swiss that runs out of pairings
without a repeat ends there, with the reason. A finished event's ratings go to the service's
rating book. Directing that fails is tried again: a scan later, for ever, when the store failed
(`TRANSIENT`: Redis unreachable, timing out, failing over); after an unexpected error (a bug in
pairing or scheduling) ever later (`BACKOFF`), and once `ATTEMPTS` tries in a row made no
progress the event ends, the error its reason (`EVENT_END_REASON_UNPLAYABLE`). An event the
organiser ended (`EndEvent`) is tried again at once, and ends at its first failure (a director
that fails before it reads the controls would never apply them). No call goes through the
network, so a server with TLS hosts events as one without. After every change the snapshot is
written (only while the lease is held), so a director that takes over resumes: finished games
stay, running tables are followed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import secrets
import uuid
from dataclasses import asdict, replace

from kafana_bots import registry

from kafana import metrics
from kafana.competitions.control import apply_controls
from kafana.competitions.envelope import FairRecord
from kafana.competitions.hosted.bot_seat import bot_seat
from kafana.competitions.hosted.convert import unfinished_deals
from kafana.competitions.hosted.event import (
    Entrant,
    Hosted,
    TableSeats,
    config_from_meta,
    entrants_of,
    present,
    removed,
    start_at,
)
from kafana.competitions.hosted.referee import referee
from kafana.competitions.hosted.store import EventStore, now_ms
from kafana.competitions.model import Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault
from kafana.competitions.ratings import Rating, RatingBook
from kafana.competitions.table_results import game_result, game_table_config
from kafana.competitions.tournament import EventError, Kind, Status
from kafana.errors import InvalidInputError, KafanaError, ServerStopping
from kafana.logs import Repeated
from kafana.service import convert
from kafana.service.bot_seats import seen
from kafana.service.embargo import MAX_TTL_MS
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.errors import StoreUnavailable
from kafana.tasks import Alarm, cancel_and_wait, scan_forever, wait_set

log = logging.getLogger(__name__)


ARENA_REMATCH_WAIT_MS = 2_000
"""An arena pairs two entrants who just played each other again only once both (and any
other at the table) have waited this long for anyone else."""
SAVE_SPACING = 4
"""Snapshot writes are spaced this many times the last encoding's time apart."""
ATTEMPTS = 3
"""Tries in a row, without progress (no round or result more), after which an event whose
directing fails with an unexpected error ends with the error as its reason."""
BACKOFF = 2.0
"""After the k-th unexpected failure in a row an event waits `scan * BACKOFF ** k` seconds (at
most `MAX_WAIT_S`) before it is tried again: 2, 4 s with 1 s scans, then it ends."""
MAX_WAIT_S = 60.0
TRANSIENT = (StoreUnavailable, OSError, ServerStopping)
"""Failures of the store or the server (Redis unreachable, a timeout, the server stopping):
the event is directed again later, however often they come."""


class LostLease(Exception):
    """Another process directs the event now."""


class Unplayable(Exception):
    """A game's table cannot be made (the service refuses it, e.g. an entrant's name no seat
    takes): the event ends rather than retry for ever."""


DUE_A_SCAN = 1000
"""Scheduled events a scan lists as started at most (the rest at the next scans)."""


class Director:
    """Directs the started events of `store` on the tables of this server process."""

    def __init__(
        self,
        store: EventStore,
        tables: Tables,
        feed: Feed,
        *,
        lease_ms: int = 5_000,
        scan: float = 1.0,
        poll: float = 0.2,
    ) -> None:
        self.store = store
        self.tables = tables
        self.feed = feed
        self.owner = uuid.uuid4().hex
        self.lease_ms = lease_ms
        self.scan = scan
        self.poll = poll
        self.running: dict[str, asyncio.Task[None]] = {}
        # A built-in seat's presence is vouched for as long as a takeover takes: the lease
        # lapses, the next scan finds it (and one more, for the store's and a loop's delays).
        self.vouch_ms = lease_ms + int(2_000 * scan)
        self._task: asyncio.Task[None] | None = None
        self._wake = Alarm()
        self._scan_errors = Repeated(log, "director: the scan", quiet=(StoreUnavailable,))
        self._listed = False
        self.failures: dict[str, int] = {}  # event -> unexpected failures in a row (this process)
        self.retry_at: dict[str, float] = {}  # event -> when it is tried again (loop time)

    def start(self) -> None:
        """Start scanning (call from the server's event loop)."""
        self._task = asyncio.create_task(
            scan_forever(self.scan_once, self.scan, self._wake, self._scan_errors),
            name="kafana-director",
        )

    def wake(self) -> None:
        """Scan now (an event was just started)."""
        self._wake.ring()

    async def stop(self) -> None:
        """Stop directing: tasks cancelled, leases released (another process may take over)."""
        await cancel_and_wait([self._task, *self.running.values()])
        for event_id in list(self.running):
            with contextlib.suppress(Exception):
                await self.store.release(event_id, self.owner)
        self.running.clear()

    async def scan_once(self) -> None:
        """Take over every started event without a live director (the index of started
        events: however many events are newer)."""
        if not self._listed:  # events started before the index existed: the newest ones
            for event_id in await self.store.event_ids(1000):
                if (await self.store.meta(event_id)).get("phase") == "started":
                    await self.store.list_started(event_id)
            self._listed = True
        await self.store.list_due(now_ms(), DUE_A_SCAN)  # scheduled starts whose time has come
        for event_id in await self.store.started():
            if event_id in self.running:
                continue
            meta = await self.store.meta(event_id)
            if not meta:  # expired (its retention is over)
                self._forget(event_id)
                await self.store.forget(event_id)
                await self.store.unlist(event_id)
                continue
            phase = meta.get("phase")
            if phase == "open" and 0 < start_at(meta) <= now_ms():
                phase = await self._start_scheduled(event_id)
            if phase != "started":
                if phase == "finished":
                    self._forget(event_id)
                    await self.store.unlist(event_id)
                continue  # open: a start that failed or has not run yet (it lists again)
            if not await self._due(event_id):
                continue
            if await self.store.lease(event_id, self.owner, self.lease_ms):
                log.info("director %s: directing event %s", self.owner[:8], event_id)
                task = asyncio.create_task(self._direct(event_id), name=f"kafana-event-{event_id}")
                self.running[event_id] = task

    async def _due(self, event_id: str) -> bool:
        """Whether to direct an event now: not while it waits to be tried again after an
        unexpected failure (`BACKOFF`), unless its organiser has ended it."""
        at = self.retry_at.get(event_id)
        if at is None or asyncio.get_running_loop().time() >= at:
            return True
        status, _note = await self.store.control(event_id)
        return status == Status.ENDED.value

    def _forget(self, event_id: str) -> None:
        """Drop an event's failures (it finished, expired or made progress)."""
        self.failures.pop(event_id, None)
        self.retry_at.pop(event_id, None)

    async def _start_scheduled(self, event_id: str) -> str:
        """Start an event whose scheduled time has come (entries close): its phase now. Too
        few entrants: it ends, with the reason."""
        answer = await self.store.start(event_id)
        if answer == "few":
            log.info("director: event %s: too few entrants at its scheduled start", event_id)
            await self.store.finish(event_id, "fewer than two entrants at the scheduled start")
            return "finished"
        return (await self.store.meta(event_id)).get("phase", "")

    async def _direct(self, event_id: str) -> None:
        run = EventRun(self, event_id)
        try:
            await run.run()
            self._forget(event_id)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if run.lost:
                log.warning("director: lost the lease of event %s", event_id)
            elif all(isinstance(e, TRANSIENT) for e in _leaves(error)):
                log.warning(
                    "director: event %s: %s (it will be taken up again)", event_id, _said(error)
                )
                await asyncio.sleep(self.scan)
            else:
                try:
                    await self._failed(run, error)
                except Exception as again:  # the store, most likely: counted, tried again
                    log.warning(
                        "director: event %s: failure not handled: %s", event_id, _said(again)
                    )
        finally:
            self.running.pop(event_id, None)
            if not run.lost:
                with contextlib.suppress(Exception):
                    await self.store.release(event_id, self.owner)

    async def _failed(self, run: EventRun, error: Exception) -> None:
        """An unexpected failure of directing an event (not the store's): tried again ever
        later (`BACKOFF`), but the `ATTEMPTS`-th in a row without progress ends the event, the
        error its reason; so does the first once the organiser has ended the event. The
        traceback is logged once (the first failure), each later one in a line."""
        event_id = run.event_id
        count = 1 if run.progressed() else self.failures.get(event_id, 0) + 1
        self.failures[event_id] = count
        said = _said(error)
        if count == 1:
            log.error("director: event %s failed: %s", event_id, said, exc_info=error)
        status, note = await self.store.control(event_id)
        if status == Status.ENDED.value:
            log.warning("director: event %s failed; ended by its organiser: %s", event_id, said)
            await run.end(note)
        elif count >= ATTEMPTS:
            reason = f"the director failed {count} times in a row: {said}"[:300]
            log.error("director: event %s ended: %s", event_id, reason)
            await run.end(reason, reason)
        else:
            wait = min(self.scan * BACKOFF**count, MAX_WAIT_S)
            self.retry_at[event_id] = asyncio.get_running_loop().time() + wait
            log.warning(
                "director: event %s failed (%d of %d tries): %s; trying again in %.1f s",
                event_id, count, ATTEMPTS, said, wait,
            )  # fmt: skip
            return
        self._forget(event_id)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions in `error` (every one of an exception group's, however deep)."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _said(error: BaseException) -> str:
    """`error` in a line: its type and message (an exception group's first of those that are
    not the store's, else its first)."""
    leaves = _leaves(error)
    first = next((e for e in leaves if not isinstance(e, TRANSIENT)), leaves[0])
    text = " ".join(str(first).split())
    return f"{type(first).__name__}: {text}" if text else type(first).__name__


class EventRun:
    """Directing one event while this process holds its lease."""

    def __init__(self, director: Director, event_id: str) -> None:
        self.d = director
        self.store = director.store
        self.tables = director.tables
        self.event_id = event_id
        self.lost = False
        self.hosted: Hosted
        self.loaded = False  # `hosted` is set
        self._began_at: tuple[int, int] = (0, 0)  # rounds and results when loaded
        self.bots: dict[str, str] = {}
        self.rating_keys: dict[str, str] = {}  # entrant -> its key in the service's rating book
        self.embargoed: set[int] = set()  # duplicate boards whose label is embargoed
        self._saving = asyncio.Lock()
        self._dirty = False
        self._next_save = 0.0

    async def save(self) -> None:
        """Write the snapshot, with this change in it (LostLease if another process directs
        the event now).

        Changes at once share one write, and writes are spaced `SAVE_SPACING` times the last
        one's encoding apart: a 1,024-entrant event's snapshot takes ~0.7 s to encode on the
        event loop, and a write after each of a round's 1,024 changes stalled the server for
        minutes; now encoding takes at most a fifth of the loop's time."""
        self._dirty = True
        async with self._saving:
            if not self._dirty:  # a write that began after this change carried it
                return
            loop = asyncio.get_running_loop()
            wait = self._next_save - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty = False
            started = loop.time()
            text = self.hosted.dumps()
            encoded = loop.time() - started
            if not await self.store.save(self.event_id, self.d.owner, text):
                self.lost = True
                raise LostLease(self.event_id)
            self._next_save = loop.time() + SAVE_SPACING * encoded

    async def run(self) -> None:
        """Load or begin the tournament, play it to the end, mark the event finished."""
        meta = await self.store.meta(self.event_id)
        entrants = entrants_of(await self.store.entrants(self.event_id))
        self.bots = {e.name: e.bot for e in entrants if e.bot}
        self.rating_keys = {e.name: e.rating_key for e in entrants}
        text = await self.store.state(self.event_id)
        try:
            if not text:  # with check-in, the entrants who did not are dropped now
                marks = await self.store.marks(self.event_id)
                entrants = present(meta, entrants, marks)
            self.hosted = Hosted.loads(text) if text else await self._begin(meta, entrants)
        except EventError as error:  # started without the start's check: it cannot be played
            log.warning("director: event %s: %s", self.event_id, error)
            await self.store.finish(self.event_id, str(error))
            return
        self.loaded, self._began_at = True, self._progress()
        parallel = int(meta.get("parallel", "0") or 0)
        await self.save()
        await self._embargo()
        main = asyncio.current_task()
        assert main is not None
        done = asyncio.Event()
        keeper = asyncio.create_task(self._keep_lease(main, done))
        reason = ""
        try:
            if self.hosted.tournament.config.kind is Kind.ARENA:
                await self._play_arena(parallel)
            else:
                await self._play(parallel)
        except* Unplayable as refused:
            reason = str(refused.exceptions[0])
            log.warning("director: event %s cannot be played: %s", self.event_id, reason)
            self.hosted.tournament.end(reason)
            await self.save()
        finally:
            done.set()  # the keeper stops between two renewals (no Redis call is cut off)
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        await self._release(every=True)
        await self._rate()
        await self.store.finish(self.event_id, reason)
        log.info("director: event %s finished", self.event_id)

    def _progress(self) -> tuple[int, int]:
        """Rounds handed out and results recorded so far."""
        t = self.hosted.tournament
        return len(t.rounds), len(t.results)

    def progressed(self) -> bool:
        """Whether this run handed out a round or recorded a result."""
        return self.loaded and self._progress() != self._began_at

    async def end(self, note: str, reason: str = "") -> None:
        """End an event the director cannot play on: its tournament ended (`note` on the games
        not played, their tables closed) and saved, when it was loaded; then the event is
        finished, `reason` saying why ("": the organiser ended it)."""
        if self.loaded:
            try:
                t = self.hosted.tournament
                await self._close(t.end(note) if not t.finished else [])
                await self.save()
                await self._release(every=True)
                await self._rate()
            except LostLease:
                log.warning("director: lost the lease of event %s", self.event_id)
                return  # the director that took over ends it
            except Exception as error:  # the event finishes all the same
                said = _said(error)
                log.warning("director: event %s: tournament not ended: %s", self.event_id, said)
        await self.store.finish(self.event_id, reason)

    async def _begin(self, meta: dict[str, str], entrants: list[Entrant]) -> Hosted:
        """A new tournament whose book starts from the entrants' ratings in the service's."""
        book = RatingBook()
        pool = config_from_meta(meta).pool
        kept = await self.store.ratings(pool, [e.rating_key for e in entrants])
        book.ratings[pool] = {
            e.name: Rating(**json.loads(kept[e.rating_key]))
            for e in entrants
            if e.rating_key in kept
        }
        return Hosted.begin(meta, entrants, book, now_ms())

    async def _rate(self) -> None:
        """The entrants' ratings after the event, into the service's rating book."""
        t = self.hosted.tournament
        pool = t.config.pool
        table = t.ratings.ratings.get(pool, {})
        rated = {k: json.dumps(asdict(table[n])) for n, k in self.rating_keys.items() if n in table}
        await self.store.save_ratings(pool, rated)

    def board_label(self, board: int) -> str:
        """The embargo label of a duplicate board's tables."""
        return f"{self.event_id}/board-{board}"

    async def _embargo(self) -> None:
        """Embargo every board of a duplicate event not done yet, for the retention (at most
        the longest embargo: renewed at every round)."""
        t = self.hosted.tournament
        if t.config.kind is not Kind.DUPLICATE or t.finished:
            return
        ttl = min(self.store.retention_ms, MAX_TTL_MS)
        for board in range(1, t.config.boards + 1):
            if board in self.embargoed or not self._board_done(board):
                await self.tables.embargo(self.board_label(board), ttl)
                self.embargoed.add(board)
        await self._release()

    def _board_done(self, board: int) -> bool:
        t = self.hosted.tournament
        held = unfinished_deals(t)
        dealt = {g.commitment for r in t.rounds for g in r if g.board == board}
        return bool(dealt) and not dealt & held

    async def _release(self, *, every: bool = False) -> None:
        """Lift the embargo of every board whose games are all done (`every`: of all)."""
        if not self.embargoed:
            return
        for board in sorted(self.embargoed):
            if every or self._board_done(board):
                await self.tables.release(self.board_label(board))
                self.embargoed.discard(board)

    async def _keep_lease(self, main: asyncio.Task[None], done: asyncio.Event) -> None:
        while True:
            if await wait_set(done, self.d.lease_ms / 3000):
                return
            try:
                held = await self.store.lease(self.event_id, self.d.owner, self.d.lease_ms)
            except Exception:
                continue  # the store is down for now: the lease may still be ours
            if not held:
                self.lost = True
                main.cancel()
                return

    async def apply_controls(self) -> list[GameResult]:
        """The organiser's status and decisions; a decided running game has its table closed."""
        t = self.hosted.tournament
        status, note = await self.store.control(self.event_id)
        decisions = await self.store.adjudications(self.event_id)
        before = t.status
        decided = apply_controls(t, Status(status) if status else t.status, note, decisions)
        changed = False
        for name, (state, why) in removed(await self.store.marks(self.event_id)).items():
            if name in t.config.entrants and name not in t.removed:
                decided += t.remove(name, state, why)  # its undecided games forfeited
                changed = True
        await self._close(decided)
        if decided or changed or t.status is not before:
            await self.save()
            await self._release()
        return decided

    async def _close(self, decided: list[GameResult]) -> None:
        """Close the tables of games decided off the board, keeping the moves played."""
        for result in decided:
            seats = self.hosted.tables.get(result.game_id)
            if seats is not None:
                with contextlib.suppress(KafanaError):
                    await self.tables.close(seats.table_id, seats.admin_token)
                with contextlib.suppress(KafanaError):
                    await self._keep_record(result, seats)

    async def _keep_record(self, decided: GameResult, seats: TableSeats) -> None:
        """A game decided off the board keeps the fair record of the moves played on it; one
        whose table had ended on its own keeps the board's result instead."""
        t = self.hosted.tournament
        spec = t.game(decided.game_id)
        answer = convert.record(await self.tables.record(seats.table_id, past_embargo=True))
        played = game_result(spec, t.secret_of(spec.game_id), seats.table_id, answer, t, [])
        if played.ending is not Ending.NOT_PLAYED:  # it ended on its table before the close
            # (the game's task had not taken its result yet): the board's result stands; a
            # CI run exported such a game as adjudicated, which its moves contradict
            del t.results[spec.game_id]
            t.record(played)
            return
        fair = FairRecord.from_text(played.record)
        ending = f"{decided.ending.value} {decided.note}".strip()
        meta = [(k, ending if k == "ending" else v) for k, v in fair.meta if k != "fault"]
        meta += [("fault", f.code()) for f in decided.faults]
        record = replace(fair, meta=tuple(meta)).to_text()
        t.results[spec.game_id] = replace(decided, record=record, table_id=seats.table_id)

    async def _play(self, parallel: int) -> None:
        t = self.hosted.tournament
        while True:
            await self.apply_controls()
            if t.finished:
                return
            if t.status is Status.PAUSED:
                await asyncio.sleep(self.d.poll)
                continue
            games = t.pending()
            if not games:
                # off the event loop (a large Swiss pairs for up to a second or two); none: a
                # Swiss out of pairings ended (`end_reason`)
                games = await asyncio.to_thread(t.next_round)
                await self.save()
                await self._embargo()  # renewed
                if not games:  # a Swiss out of pairings ended, or removed entrants' games only
                    if t.end_reason:
                        log.warning("director: event %s: %s", self.event_id, t.end_reason)
                    continue
            limit = asyncio.Semaphore(parallel or len(games))
            stop = asyncio.Event()
            async with asyncio.TaskGroup() as group:  # a failing game cancels the others
                group.create_task(self._watch_controls(stop))
                played = [group.create_task(self._game(spec, limit)) for spec in games]
                try:
                    while not all(task.done() for task in played):
                        await asyncio.wait(played, timeout=1.0)
                finally:
                    stop.set()

    async def _play_arena(self, parallel: int) -> None:
        """An arena: every poll (and as soon as a game ends) its idle entrants are paired
        (`Tournament.arena_round`), each game played in a task of its own, until its time is
        up; then nothing more is paired and the games being played finish (and count)."""
        t = self.hosted.tournament
        loop = asyncio.get_running_loop()
        free_since: dict[str, float] = {}  # idle entrant -> since when (this process's clock)
        running: dict[str, asyncio.Task[None]] = {}
        limit = asyncio.Semaphore(parallel or len(t.config.entrants))
        stop = asyncio.Event()
        async with asyncio.TaskGroup() as group:  # a failing game cancels the others
            group.create_task(self._watch_controls(stop))
            try:
                while True:
                    if not t.closed and now_ms() >= t.ends_ms:
                        t.close()
                        await self.save()
                    if t.finished:
                        return
                    for spec in t.pending():  # new games, and a resumed event's running ones
                        if spec.game_id not in running:
                            running[spec.game_id] = group.create_task(self._game(spec, limit))
                    for game_id in [g for g, task in running.items() if task.done()]:
                        del running[game_id]
                    now, idle = loop.time(), t.idle()
                    free_since = {e: free_since.get(e, now) for e in idle}
                    waited = {e: int(1000 * (now - since)) for e, since in free_since.items()}
                    if t.arena_round(waited, ARENA_REMATCH_WAIT_MS):
                        await self.save()
                        continue  # their tables at once
                    if running:
                        await asyncio.wait(
                            running.values(),
                            timeout=self.d.poll,
                            return_when=asyncio.FIRST_COMPLETED,
                        )
                    else:
                        await asyncio.sleep(self.d.poll)
            finally:
                stop.set()

    async def _watch_controls(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if await wait_set(stop, self.d.poll):
                return
            with contextlib.suppress(KafanaError, ConnectionError, OSError):
                await self.apply_controls()

    async def _game(self, spec: GameSpec, limit: asyncio.Semaphore) -> None:
        t = self.hosted.tournament
        async with limit:
            while t.status is Status.PAUSED:
                await asyncio.sleep(self.d.poll)
            if spec.game_id in t.results:
                return  # adjudicated or ended meanwhile
            seats = self.hosted.tables.get(spec.game_id)
            if seats is None:
                seats = await self._table(spec)
            for attempt in itertools.count(1):
                if spec.game_id in t.results:
                    return  # adjudicated or ended meanwhile
                try:
                    result = await self._play_table(spec, seats)
                    break
                except (LostLease, asyncio.CancelledError):
                    raise
                except Exception:  # the table stays: follow it again (bots are told its events)
                    log.warning(
                        "director: game %s of %s failed (attempt %d); following it again",
                        spec.game_id, self.event_id, attempt, exc_info=True,
                    )  # fmt: skip
                    await asyncio.sleep(min(5.0, 0.5 * attempt))
            if spec.game_id not in t.results:
                t.record(result)
                metrics.EVENT_GAMES.inc()
                await self.save()
                await self._release()

    async def _table(self, spec: GameSpec) -> TableSeats:
        t = self.hosted.tournament
        config = game_table_config(spec, t.seed_of(spec.game_id), t)
        if spec.board:
            config.embargo = self.board_label(spec.board)
        else:  # its own label until saved: a copy a crash leaves serves no seed (see below)
            config.embargo = f"{self.event_id}/{spec.game_id}/{secrets.token_hex(8)}"
            await self.tables.embargo(config.embargo, MAX_TTL_MS)
        # every seat bound to an account nobody has: nobody but the director can take one, even
        # before it does (the entrants play with the seat tokens it hands out)
        holder = "event-seat." + secrets.token_hex(16)
        config.seat_accounts[:] = [holder] * len(spec.seats)
        tokens = []
        table_id, built_in = "", [i for i, name in enumerate(spec.seats) if self.bots.get(name)]
        try:
            table_id, admin_token, _session = await self.tables.create(config)
            # Its bots present and vouched for before the last seat starts the match: a crash
            # from then on leaves them present until another director plays them on.
            for index in built_in:
                self.tables.presence.vouch(table_id, index, self.d.vouch_ms)
                await seen(self.tables, table_id, index)
            for index, name in enumerate(spec.seats):
                _seat, token, _session = await self.tables.join(table_id, index, name, holder)
                tokens.append(token)
        except BaseException as error:
            for index in built_in:  # no seat of it is played here
                self.tables.presence.vouch(table_id, index, 0)
            if isinstance(error, InvalidInputError):  # retrying would refuse it for ever
                raise Unplayable(f"game {spec.game_id}'s table was refused: {error}") from None
            raise
        seats = TableSeats(table_id, admin_token, tokens)
        self.hosted.tables[spec.game_id] = seats
        await self.save()  # from now on remote entrants learn their seat (WatchEntry)
        # Saved: this is the game's table. One a director died before saving is made again
        # from the same seed by the next; that copy, forfeited by its clock, keeps its
        # embargo (at most 30 days): its record would give every hand of the game.
        if not spec.board:
            await self.tables.release(config.embargo)
        return seats

    async def _play_table(self, spec: GameSpec, seats: TableSeats) -> GameResult:
        t = self.hosted.tournament
        config = t.config
        rules = config.rules
        seed = t.seed_of(spec.game_id)
        secret = t.secret_of(spec.game_id)
        notes: list[Fault] = []
        tables, feed, table_id, vouch = self.tables, self.d.feed, seats.table_id, self.d.vouch_ms
        async with asyncio.TaskGroup() as group:
            for index, name in enumerate(spec.seats):
                bot_name = self.bots.get(name)
                if not bot_name:
                    continue  # a person or remote bot plays this seat itself
                rng = random.Random(f"{seed}:{spec.game_id}:{index}")
                bot = registry.create(bot_name, seat=index, rules=rules, rng=rng)
                token = seats.tokens[index]
                group.create_task(
                    bot_seat(tables, feed, table_id, index, token, bot, config.policy, notes, vouch)
                )
            group.create_task(referee(tables, feed, table_id, seats.tokens, config.policy))
        answer = convert.record(await tables.record(table_id, past_embargo=True))
        result = game_result(spec, secret, seats.table_id, answer, t, notes)
        if config.policy.on_timeout is Action.FORFEIT_HAND:
            faults = tuple(_hand_forfeit(f) for f in result.faults)
            result = replace(result, faults=faults, record=_recoded(result.record, faults))
        return result


def _hand_forfeit(fault: Fault) -> Fault:
    """A timeout answered by the clock's default move, then the referee's to the hand's end."""
    if fault.reason.value == "timeout" and fault.action is Action.DEFAULT_MOVE:
        return replace(fault, action=Action.FORFEIT_HAND, detail="default moves to the hand's end")
    return fault


def _recoded(record: str, faults: tuple[Fault, ...]) -> str:
    """The fair record with its fault lines rewritten."""
    fair = FairRecord.from_text(record)
    meta = [(k, v) for k, v in fair.meta if k != "fault"]
    meta += [("fault", f.code()) for f in faults]
    return replace(fair, meta=tuple(meta)).to_text()
