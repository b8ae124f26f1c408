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
from kafana.competitions.league.store import IDLE, PAIRED, SETTLED, LeagueStore, now_ms
from kafana.competitions.league.tables import table_of
from kafana.errors import KafanaError
from kafana.logs import Repeated
from kafana.service.errors import UNAVAILABLE_ERRORS
from kafana.service.limits import MAX_SEAT_NAME
from kafana.service.tables import Tables
from kafana.v1 import events_pb2
from kafana.v1 import leagues_pb2 as pb

log = logging.getLogger(__name__)
HEARTBEAT_S = 3.0
POLL_S = 0.25
IDLE_S = 1.0
PAIRED_S = 0.05


class Waiters:
    """Wake-ups of this process's open streams, by (league, player)."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, str], set[asyncio.Event]] = {}

    def wake(self, league: str, players: list[str]) -> None:
        """Have the streams of `players` look now."""
        for player in players:
            for event in self._events.get((league, player), ()):
                event.set()

    def wake_all(self) -> None:
        """Have every stream look now (the server stops)."""
        for events in self._events.values():
            for event in events:
                event.set()

    def watched(self, league: str, player: str) -> bool:
        """Whether a stream of `player` is open in this process."""
        return bool(self._events.get((league, player)))

    @contextlib.contextmanager
    def watching(self, league: str, player: str) -> Iterator[asyncio.Event]:
        """An event set when the player's stream should look (while the block runs)."""
        event = asyncio.Event()
        self._events.setdefault((league, player), set()).add(event)
        try:
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
    poll_s: float = POLL_S,
    idle_s: float = IDLE_S,
    paired_s: float = PAIRED_S,
) -> None:
    """Send the player's tickets and settled matches until `ended()`. The store is looked at
    every `poll_s` while the player waits or plays, every `idle_s` otherwise, every `paired_s` while
    a match is made and its table not yet (made in another process), and at once when this
    process pairs the player or settles their match (`Waiters.wake`)."""
    open_matches: set[int] = set()  # tickets sent, not yet reported settled
    told: set[int] = set()
    last = time.monotonic()
    errors = Repeated(log, f"the ticket stream of {player}", quiet=UNAVAILABLE_ERRORS)
    with waiters.watching(league, player) as woken:
        while not ended():
            wait = poll_s
            try:
                state, number = await store.status(league, player)
                if state == PAIRED and number not in open_matches and number not in told:
                    ticket = await show_up(store, tables, league, number, player, move_ms)
                    if ticket is not None:
                        await write(pb.TicketUpdate(ticket=ticket))
                        open_matches.add(number)
                        last = time.monotonic()
                    else:
                        wait = paired_s
                for n in sorted(open_matches):
                    match = await store.match(league, n)
                    if not match or match.get("state") == SETTLED:
                        open_matches.discard(n)
                        told.add(n)
                        if match:
                            await write(pb.TicketUpdate(settled=match_info(league, n, match)))
                            last = time.monotonic()
                if state == IDLE and not open_matches:
                    wait = idle_s
            except UNAVAILABLE_ERRORS as error:  # the store is down a moment: look again
                errors.failed(error)
            else:
                errors.succeeded()
            if time.monotonic() - last >= heartbeat_s:
                await write(pb.TicketUpdate(heartbeat=events_pb2.Heartbeat(time_ms=now_ms())))
                last = time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), wait)
            woken.clear()
