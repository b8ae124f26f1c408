"""A player's tickets: the server takes the player's seat while their stream is open.

An open `WatchTickets` stream is the player showing up: when the player's match has its table,
the stream takes the player's seat (a seat bound to their account: nobody else can) and sends
the table, the seat and its token on this stream only. The token is kept with the match in
the league store (never served by any other call), so a stream opened again later gets the
same ticket. A seat not taken by the match's join deadline is not taken any more (the referee
settles the match as a no-show). Each match the stream sent a ticket for is reported once
settled; a heartbeat goes out when nothing else did for `heartbeat_s`. (The same tickets reach
the account's WatchAccount stream: `kafana.competitions.league.notices`.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator

from kafana.competitions.league.convert import match_info
from kafana.competitions.league.store import PAIRED, SETTLED, LeagueStore
from kafana.competitions.league.tables import table_of
from kafana.errors import KafanaError
from kafana.logs import Repeated
from kafana.service.errors import UNAVAILABLE_ERRORS
from kafana.service.limits import MAX_SEAT_NAME
from kafana.service.tables import Tables
from kafana.store.accounts import now_ms
from kafana.store.base import TableStore
from kafana.store.notify import Notifier
from kafana.tasks import wait_set
from kafana.v1 import events_pb2
from kafana.v1 import leagues_pb2 as pb

log = logging.getLogger(__name__)
HEARTBEAT_S = 3.0
FALLBACK_S = 5.0
"""How often a stream looks at the store unasked: what a lost wake-up costs at most. Pairing,
a made table and a settled match wake the players' streams in every process (`Waiters`)."""
PAIRED_S = 0.25
"""While a match is made but its table not yet: the stream looks this often (a moment's state,
so a wake-up lost right then does not cost the player the join deadline)."""
PUBLISHING = 64
"""Wake-ups being published at once at most; beyond, the streams' fallback look carries them."""


def ticket_channel(league: str, player: str) -> str:
    """The pub/sub channel that wakes `player`'s ticket streams, under the player's own hash
    tag (so a cluster spreads the players' channels).

    >>> ticket_channel("spring", "ana")
    '{lg:spring:p:ana}:tickets'
    """
    return "{lg:" + league + ":p:" + player + "}:tickets"


class Waiters:
    """Wake-ups of the open ticket streams, by (league, player): this process's at once, every
    other process's through the store's pub/sub once `connect`ed to a Redis store."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, str], set[asyncio.Event]] = {}
        self.notifier: Notifier | None = None
        self._publishing: set[asyncio.Task[None]] = set()
        self._errors = Repeated(log, "publishing ticket wake-ups", quiet=UNAVAILABLE_ERRORS)

    def connect(self, store: TableStore) -> None:
        """Wake streams in other processes too, through `store`'s notifier (if it has one)."""
        self.notifier = getattr(store, "notifier", None)

    def wake(self, league: str, players: list[str]) -> None:
        """Have the streams of `players` look now, here and in every other process."""
        for player in players:
            for event in self._events.get((league, player), ()):
                event.set()
        if self.notifier is not None and players and len(self._publishing) < PUBLISHING:
            channels = [ticket_channel(league, player) for player in players]
            task = asyncio.ensure_future(self._publish(self.notifier, channels))
            self._publishing.add(task)
            task.add_done_callback(self._publishing.discard)

    async def _publish(self, notifier: Notifier, channels: list[str]) -> None:
        try:
            await notifier.publish(channels)
            self._errors.succeeded()
        except Exception as error:  # the streams' fallback look still finds it
            self._errors.failed(error)

    def wake_all(self) -> None:
        """Have every stream look now (the server stops)."""
        for events in self._events.values():
            for event in events:
                event.set()

    def watched(self, league: str, player: str) -> bool:
        """Whether a stream of `player` is open in this process."""
        return bool(self._events.get((league, player)))

    async def subscribe(self, league: str, player: str) -> None:
        """Be subscribed to the player's channel (cheap once it is; again after a lost lane)."""
        if self.notifier is not None:
            await self.notifier.subscribe(ticket_channel(league, player))

    @contextlib.contextmanager
    def watching(self, league: str, player: str) -> Iterator[asyncio.Event]:
        """An event set when the player's stream should look (while the block runs)."""
        event = asyncio.Event()
        self._events.setdefault((league, player), set()).add(event)
        listening = (
            self.notifier.listening(ticket_channel(league, player), event)
            if self.notifier is not None
            else contextlib.nullcontext()
        )
        try:
            with listening:
                yield event
        finally:
            found = self._events.get((league, player), set())
            found.discard(event)
            if not found:
                self._events.pop((league, player), None)


async def show_up(
    store: LeagueStore, tables: Tables, league: str, number: int, player: str, move_ms: int
) -> pb.Ticket | None:
    """The player's ticket for match `number`, their seat taken now if it was not; None while
    the table is not made yet, or after the join deadline."""
    match = await store.match(league, number)
    table_id, _ = table_of(match)
    if not table_id or match.get("state") == SETTLED:
        return None
    players = match["players"].split()
    seat = players.index(player)
    field = f"token{seat}"
    token = match.get(field, "")
    join_by = int(match["join_by_ms"])
    if not token:
        if now_ms() >= join_by:
            return None
        try:
            _, taken, _ = await tables.join(table_id, seat, player[:MAX_SEAT_NAME], player)
        except KafanaError:  # taken by another stream of the player a moment ago: look again
            token = (await store.match(league, number)).get(field, "")
            if not token:
                return None
        else:
            token = await store.set_once(league, number, field, taken)
    return ticket_of(league, number, match, seat, token, move_ms)


def ticket_of(
    league: str, number: int, match: dict[str, str], seat: int, token: str, move_ms: int
) -> pb.Ticket:
    """The ticket of `seat` in a match whose table is made (`token` "": without the token)."""
    return pb.Ticket(
        league=league,
        match=number,
        season=int(match["season"]),
        table_id=table_of(match)[0],
        seat=seat,
        seat_token=token,
        players=match["players"].split(),
        commitment=match["commitment"],
        created_ms=int(match["created_ms"]),
        move_ms=move_ms,
        join_by_ms=int(match["join_by_ms"]),
    )


async def watch(
    store: LeagueStore,
    tables: Tables,
    waiters: Waiters,
    league: str,
    player: str,
    move_ms: int,
    write: Callable[[pb.TicketUpdate], Awaitable[None]],
    ended: Callable[[], bool],
    *,
    heartbeat_s: float = HEARTBEAT_S,
    fallback_s: float | None = None,
    paired_s: float = PAIRED_S,
) -> None:
    """Send the player's tickets and settled matches until `ended()`. The store is looked at
    when the stream is woken (`Waiters.wake`: the player paired, their table made, their match
    settled, in any process), else every `fallback_s` (`FALLBACK_S`), or `paired_s` while a
    match is made and its table not yet. Heartbeats cost no store call."""
    fallback = FALLBACK_S if fallback_s is None else fallback_s
    open_matches: set[int] = set()  # tickets sent, not yet reported settled
    told: set[int] = set()
    last = time.monotonic()
    errors = Repeated(log, f"the ticket stream of {player}", quiet=UNAVAILABLE_ERRORS)
    with waiters.watching(league, player) as woken:
        look_at = 0.0  # the first look: now (after subscribing, so no wake-up falls between)
        while not ended():
            await waiters.subscribe(league, player)
            if woken.is_set() or time.monotonic() >= look_at:
                woken.clear()
                wait = fallback
                try:
                    wrote, pending = await _look(
                        store, tables, league, player, move_ms, write, open_matches, told
                    )
                    if wrote:
                        last = time.monotonic()
                    if pending:
                        wait = paired_s
                except UNAVAILABLE_ERRORS as error:  # the store is down a moment: look again
                    errors.failed(error)
                    wait = min(wait, 1.0)
                else:
                    errors.succeeded()
                look_at = time.monotonic() + wait
            if time.monotonic() - last >= heartbeat_s:
                await write(pb.TicketUpdate(heartbeat=events_pb2.Heartbeat(time_ms=now_ms())))
                last = time.monotonic()
            until = min(look_at, last + heartbeat_s) - time.monotonic()
            await wait_set(woken, max(until, 0.0))


async def _look(
    store: LeagueStore,
    tables: Tables,
    league: str,
    player: str,
    move_ms: int,
    write: Callable[[pb.TicketUpdate], Awaitable[None]],
    open_matches: set[int],
    told: set[int],
) -> tuple[bool, bool]:
    """One look at the store: a new ticket sent, settled matches reported. Whether it wrote,
    and whether a match is made without a ticket to send yet (its table not made)."""
    wrote = pending = False
    state, number = await store.status(league, player)
    if state == PAIRED and number not in open_matches and number not in told:
        ticket = await show_up(store, tables, league, number, player, move_ms)
        if ticket is not None:
            await write(pb.TicketUpdate(ticket=ticket))
            open_matches.add(number)
            wrote = True
        else:
            pending = True
    for n in sorted(open_matches):
        match = await store.match(league, n)
        if not match or match.get("state") == SETTLED:
            open_matches.discard(n)
            told.add(n)
            if match:
                await write(pb.TicketUpdate(settled=match_info(league, n, match)))
                wrote = True
    return wrote, pending
