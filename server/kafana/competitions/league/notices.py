"""League tickets on the accounts' WatchAccount streams (`kafana.service.notices`).

The referee tells each player of a match once its table is made (a TICKET notice holding the
ticket without its seat token) and once it is settled (the settled `MatchInfo`). The notices
store keeps no token: as a ticket notice goes out on the player's own stream, `revealer` takes
the player's seat (as an open WatchTickets stream does: `tickets.show_up`) and puts the seat
token back, so an account that only watches its notices can play its league matches. A server
without notices (none made for its tables) tells nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from kafana.competitions.league.convert import match_info
from kafana.competitions.league.spec import load
from kafana.competitions.league.store import LeagueStore
from kafana.competitions.league.tickets import show_up, ticket_of
from kafana.service.notices import Reveal, notices_of
from kafana.service.tables import Tables
from kafana.v1 import leagues_pb2 as pb

log = logging.getLogger(__name__)


Updates = Callable[[dict[str, str]], list[pb.TicketUpdate]]


async def tell(
    tables: Tables, store: LeagueStore, league: str, number: int, updates: Updates
) -> None:
    """Tell each player of match `number` its update (`updates(match)`, in seat order); a
    failure is logged, not raised (a notice is a courtesy: the ticket stream and GetMatch
    have it too)."""
    notices = notices_of(tables)
    if notices is None:
        return
    try:
        match = await store.match(league, number)
        for player, update in zip(match["players"].split(), updates(match), strict=True):
            await notices.ticket(player, update)
    except Exception as error:  # the store is down a moment: the streams still tell
        log.warning("league %s match %d: notices not told: %s", league, number, error)


async def tell_made(
    tables: Tables, store: LeagueStore, league: str, number: int, move_ms: int
) -> None:
    """The match's table is made: each player's ticket (without its token)."""

    def tickets(match: dict[str, str]) -> list[pb.TicketUpdate]:
        seats = range(len(match["players"].split()))
        return [
            pb.TicketUpdate(ticket=ticket_of(league, number, match, seat, "", move_ms))
            for seat in seats
        ]

    await tell(tables, store, league, number, tickets)


async def tell_settled(tables: Tables, store: LeagueStore, league: str, number: int) -> None:
    """The match is settled: the settled match, to each player."""

    def settled(match: dict[str, str]) -> list[pb.TicketUpdate]:
        update = pb.TicketUpdate(settled=match_info(league, number, match))
        return [update] * len(match["players"].split())

    await tell(tables, store, league, number, settled)


def revealer(store: LeagueStore, tables: Tables) -> Reveal:
    """The hook that gives a ticket notice its seat token as it goes to `account`: the seat is
    taken for the account now ("" after the join deadline, or for another's ticket)."""

    async def reveal(account: str, ticket: pb.Ticket) -> str:
        if account not in ticket.players:
            return ""
        meta = await store.meta(ticket.league)
        if not meta.get("spec"):
            return ""
        move_ms = load(meta["spec"]).move_ms
        found = await show_up(store, tables, ticket.league, ticket.match, account, move_ms)
        return found.seat_token if found is not None else ""

    return reveal
