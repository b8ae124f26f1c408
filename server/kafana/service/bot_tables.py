"""Tables with built-in bots in chosen seats (`TableConfig.bots`), played by the server.

`check` refuses a bad list before the table exists (a seat twice or out of range, a bot the
game has not, an option it does not take or a number that is not a positive finite one).
`BotKeeper.seat` takes each bot's seat right after the table is created, with a token derived
from the table's `bot_secret` (HMAC-SHA256 of the seat number): any process of the store can
play the seat on without a token being stored. The table goes into an index of bot tables in
the store's counters (`bot-tables`, each entry lapsing with the table's idle time); every
process scans it every `scan` seconds and plays the tables whose lease (`bot-lease:<id>`,
`lease_ms`) nobody renews, so a process that dies has its bots played on by another within
about `lease_ms` + `scan`. While it plays a seat, the process marks it present (the fault
policy's disconnect checks) and the bot thinks in a worker thread (`bot_seats.play_seat`).

A table whose every seat is a bot has nobody to wait for: it is paced (`Settings.bot_pace`, a
token bucket per table: a whole match at once, then 10 moves a second), and its creator may
have few open at once (`Limits.open_bot_tables`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import math
import random
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from kafana_bots import Bot, TacBot, registry

from kafana.errors import InvalidInputError, KafanaError
from kafana.games import tablic, tac
from kafana.logs import Repeated
from kafana.service.advice import MAX_MS
from kafana.service.bot_seats import play_seat, present
from kafana.service.feed import Feed
from kafana.service.ratelimit import RateLimiter
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED
from kafana.store.counters import Counters
from kafana.store.errors import StoreUnavailable
from kafana.tasks import Alarm, cancel_and_wait, scan_forever
from kafana.v1 import rules_pb2

log = logging.getLogger(__name__)
INDEX = "bot-tables"
LEASE = "bot-lease:"
INDEX_LIMIT = 10_000_000
"""Tables in the index at once (each creator's table quotas bound it long before)."""
GAMES = {rules_pb2.GAME_TABLIC: "tablic", rules_pb2.GAME_TAC: "tac", 0: "tablic"}
SEAT_BOUNDS = {
    **{(game, "budget_ms"): MAX_MS for game in ("tablic", "tac")},
    ("tablic", "iterations"): 20_000,
    ("tac", "iterations"): 64,
    **{(game, "horizon"): 1_000 for game in ("tablic", "tac")},
}
"""The most a bot the server plays may ask of it: a decision's CPU time as Analyze's
(1,000 ms), worlds a decision (Tablić ~0.8 s at 20,000; a Tač world plays ~1,600 moves, 8 of
them a CPU-second), moves a playout. Before, up to 1e6 each: `budget_ms=1000000` thought
1,000 s a move, on a thread no CloseTable stops."""


def options_of(name: str, game: str, given: Mapping[str, str]) -> dict[str, float | int]:
    """The bot's options as numbers (InvalidInputError names a bad one)."""
    allowed = registry.entry(name, game).options
    out: dict[str, float | int] = {}
    for key, text in given.items():
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise InvalidInputError(
                f"bot {name!r} takes no option {key!r} (it takes: {known})", field="bots.options"
            )
        try:
            value = float(text)
        except ValueError:
            raise InvalidInputError(
                f"option {key} of bot {name!r} is not a number: {text!r}", field="bots.options"
            ) from None
        if not math.isfinite(value) or value <= 0 or value > 1e6:
            raise InvalidInputError(
                f"option {key} of bot {name!r} is a number over 0 up to 1e6, not {text!r}",
                field="bots.options",
            )
        most = SEAT_BOUNDS.get((game, key))
        if most is not None and value > most:
            raise InvalidInputError(
                f"option {key} of bot {name!r} is at most {most} at a server's seat (the server"
                f" does the thinking), not {text!r}",
                field="bots.options",
            )
        out[key] = int(value) if value.is_integer() else value
    return out


def check(config: rules_pb2.TableConfig, players: int) -> None:
    """Refuse a bad `config.bots` (InvalidInputError naming the field), before any write."""
    game = GAMES.get(config.rules.game, "tablic")
    seen: set[int] = set()
    for bot in config.bots:
        if not 0 <= bot.seat < players:
            raise InvalidInputError(
                f"bot seat {bot.seat} does not exist: seats are 0..{players - 1}",
                field="bots.seat",
            )
        if bot.seat in seen:
            raise InvalidInputError(f"seat {bot.seat} has two bots", field="bots.seat")
        seen.add(bot.seat)
        try:
            options_of(bot.bot, game, bot.options)
        except InvalidInputError as error:
            field = error.metadata.get("field", "bots.bot")
            raise InvalidInputError(str(error), field=field) from None


def bot_token(secret: bytes, seat: int) -> str:
    """The seat token of a bot seat of the table with this `bot_secret`."""
    return hmac.new(secret, f"seat:{seat}".encode(), hashlib.sha256).hexdigest()


class BotKeeper:
    """Seats and plays the built-in bots of the store's bot tables, one process per table."""

    def __init__(
        self, tables: Tables, feed: Feed, *, lease_ms: int = 5_000, scan: float = 1.0
    ) -> None:
        self.tables = tables
        self.feed = feed
        self.lease_ms = lease_ms
        self.scan = scan
        self.owner = uuid.uuid4().hex
        self.running: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._wake = Alarm()
        self._errors = Repeated(log, "bot tables: the scan", quiet=(StoreUnavailable,))
        self._pace = RateLimiter(tables.settings.bot_pace)  # by table id

    @property
    def counters(self) -> Counters:
        """The store's shared counters (leases and the index)."""
        return self.tables.store.counters

    async def seat(self, session: Session) -> Session:
        """Take every bot seat of a just-created table and list it for the keepers."""
        stored = session.stored
        for bot in stored.bots:
            name = f"{bot.bot} (bot)"
            token = bot_token(stored.bot_secret, bot.seat)
            _, _, session = await self.tables.join(session.table_id, bot.seat, name, token=token)
        now = self.tables.now()
        until = now + self.tables.idle_ttl_ms
        await self.counters.hold(INDEX, session.table_id, INDEX_LIMIT, until, now)
        self._wake.ring()
        return session

    def start(self) -> None:
        """Start scanning (on the server's event loop)."""
        self._task = asyncio.create_task(
            scan_forever(self.scan_once, self.scan, self._wake, self._errors),
            name="kafana-bot-tables",
        )

    async def stop(self) -> None:
        """Stop playing: leases released, so another process plays on at once."""
        await cancel_and_wait([self._task, *self.running.values()])
        for table_id in list(self.running):
            with contextlib.suppress(Exception):
                await self.counters.release(LEASE + table_id, self.owner)
        self.running.clear()

    async def scan_once(self) -> None:
        """Play every listed bot table whose lease nobody holds."""
        now = self.tables.now()
        for table_id in await self.counters.holders(INDEX, now):
            if table_id in self.running:
                continue
            if await self._lease(table_id):
                task = asyncio.create_task(self._play(table_id), name=f"kafana-bots-{table_id}")
                self.running[table_id] = task
                task.add_done_callback(functools.partial(self._ended, table_id))

    def _ended(self, table_id: str, _task: asyncio.Task[None]) -> None:
        self.running.pop(table_id, None)

    async def _lease(self, table_id: str) -> bool:
        now = self.tables.now()
        until = now + self.lease_ms
        return await self.counters.hold(LEASE + table_id, self.owner, 1, until, now) == 0

    async def _play(self, table_id: str) -> None:
        """Play the table's bot seats while this process holds the lease."""
        try:
            session = await self.tables.session(table_id)
            if session.status != FINISHED:
                seats = asyncio.create_task(self._seats(session))
                keeper = asyncio.create_task(self._keep(table_id))
                try:
                    await asyncio.wait([seats, keeper], return_when=asyncio.FIRST_COMPLETED)
                finally:
                    await cancel_and_wait([keeper, seats])
                session = await self.tables.session(table_id)
            if session.status == FINISHED:
                await self.counters.release(INDEX, table_id)
        except KafanaError as error:  # the table expired or was refused: nothing to play
            log.info("bot table %s: %s", table_id, error)
            await self.counters.release(INDEX, table_id)
        except Exception as error:  # the store failed: a later scan (here or elsewhere) retries
            log.warning("bot table %s: stopped playing (%s)", table_id, error)
        finally:
            with contextlib.suppress(Exception):
                await self.counters.release(LEASE + table_id, self.owner)

    async def _seats(self, session: Session) -> None:
        bots = session.stored.bots
        pace = None
        if len(bots) == session.players:  # nobody to wait for: the table's pace
            pace = functools.partial(self._paced, session.table_id)
        await asyncio.gather(*(self._seat(session, bot, pace) for bot in bots))

    async def _paced(self, table_id: str) -> None:
        """Return when the table's pace lets its bots play one more move."""
        while wait := self._pace.take(table_id):
            await asyncio.sleep(wait)

    async def _keep(self, table_id: str) -> None:
        """Renew the lease; return when another process holds it."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                if not await self._lease(table_id):
                    log.warning("bot table %s: lease lost to another process", table_id)
                    return
            except StoreUnavailable:
                continue  # the lease may still be ours: try again

    async def _seat(
        self,
        session: Session,
        bot: rules_pb2.BotSeat,
        pace: Callable[[], Awaitable[None]] | None,
    ) -> None:
        """Play one bot seat to the end of the match (a failing bot: default moves)."""
        table_id = session.table_id
        game = GAMES.get(session.stored.spec.game, "tablic")
        token = bot_token(session.stored.bot_secret, bot.seat)
        rules = session.game.build_rules(session.stored.spec)
        options: dict[str, Any] = dict(options_of(bot.bot, game, bot.options))
        rng = random.Random()
        player: Bot | TacBot
        if isinstance(rules, tac.Rules):
            player = registry.create(bot.bot, seat=bot.seat, rules=rules, rng=rng, **options)
        else:
            assert isinstance(rules, tablic.Rules)
            player = registry.create(bot.bot, seat=bot.seat, rules=rules, rng=rng, **options)
        beat = asyncio.create_task(present(self.tables, table_id, bot.seat))
        try:
            await play_seat(self.tables, self.feed, table_id, bot.seat, token, player, pace)
        except Exception:  # the bot failed: the seat plays its default moves to the end
            log.exception("bot table %s seat %d: the bot failed", table_id, bot.seat)
            await play_seat(self.tables, self.feed, table_id, bot.seat, token, None, pace)
        finally:
            await cancel_and_wait([beat])
