"""A bot that plays a seat on a running server from its own process (`kafana bot run`).

It follows the table's event feed with the seat loop and answers its turns; when the connection
drops or the server restarts, it reconnects, reopens the feed after the last event it was told
(so `observe` sees every event exactly once) and carries on. A turn whose event came before a
restart is found by polling the state every `poll` seconds.

Example (inside an `async def`)::

    final = await run_remote(server="localhost:50051", table_id=table_id,
                             make_bot=lambda seat, rules: GreedyBot(seat, rules, Random(1)))
"""

from __future__ import annotations

from collections.abc import Callable

from kafana.errors import AuthenticationError, MatchOverError
from kafana.games import tablic, tac
from kafana.v1 import competitions_pb2, state_pb2
from kafana_bots import Bot
from kafana_bots.tac_bots import TacBot

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import bot_hooks
from kafana_client.connection import CONNECT_SECONDS, Retry, Tls
from kafana_client.convert import game_name, rules_of, view_seat
from kafana_client.seat_loop import follow_seat
from kafana_client.tac import tac_rules_of
from kafana_client.tournaments import SeatPlayer

BotMaker = Callable[[int, tablic.Rules], Bot | TacBot]
AnyBotMaker = Callable[[int, tablic.Rules | tac.Rules], Bot | TacBot]
RECONNECTS = 30
"""Consecutive failed reconnections before giving up (about a minute with the backoff)."""


def table_rules(info: state_pb2.TableInfo) -> tablic.Rules | tac.Rules:
    """The rules of a table of either game."""
    return tac_rules_of(info) if game_name(info.rules) == "tac" else rules_of(info)


async def play_seat(
    seat: AsyncSeat,
    make_bot: BotMaker | AnyBotMaker,
    rules: tablic.Rules | tac.Rules,
    *,
    poll: float = 2.0,
    delay: float = 0.0,
    name: str = "",
) -> state_pb2.TableState:
    """Play `seat` until the match is over, reconnecting after failures; the last state.

    The bot decides on a thread of the game's own (`kafana_client.seat_loop.Worker`): the
    process's other games (an entrant's simultaneous games, a league's next match) never wait
    for it. A move the server refuses ends it with `BotMoveRefused` (naming the bot by
    `name`)."""
    maker: AnyBotMaker = make_bot  # type: ignore[assignment]
    hooks = bot_hooks(maker(seat.seat, rules), name=name, threaded=True)
    hooks.who = "kafana bot"
    return await follow_seat(seat, hooks, delay=delay, poll=poll, reconnects=RECONNECTS)


async def play_table_seat(
    seat: AsyncSeat, make_bot: BotMaker | AnyBotMaker, *, poll: float = 2.0, name: str = ""
) -> state_pb2.TableState:
    """`play_seat` with the rules of the seat's table, of either game (what a league ticket
    or an event's assignment gives is a seat: the table says which game it is)."""
    rules = table_rules(await seat.client.get_table(seat.table_id))
    return await play_seat(seat, make_bot, rules, poll=poll, name=name)


def bot_player(make_bot: BotMaker | AnyBotMaker, *, poll: float = 2.0) -> SeatPlayer:
    """A `play_entry` player: each of the entry's games played by a bot from `make_bot`
    (`play_table_seat`), every game on a worker of its own."""

    async def play(seat: AsyncSeat, assignment: competitions_pb2.Assignment) -> object:
        return await play_table_seat(seat, make_bot, poll=poll)

    return play


async def run_remote(
    *,
    server: str,
    table_id: str,
    make_bot: BotMaker | AnyBotMaker,
    seat: int | None = None,
    token: str | None = None,
    name: str = "",
    poll: float = 2.0,
    delay: float = 0.0,
    tls: Tls | None = None,
    on_seat: Callable[[AsyncSeat], None] | None = None,
    key: str | None = None,
) -> state_pb2.TableState:
    """Join (or, with `token`, resume) a seat on `server` and play it to the end (`key`: the
    API key sent with every call).

    Everything is checked before the seat is taken: the server answers (within
    `CONNECT_SECONDS`), the table exists and is not over, and the bot can be built for it
    (`make_bot` may refuse its options); a table of either game (`make_bot` gets its rules).
    """
    retry = Retry(attempts=8, max_backoff=2.0)
    client = AsyncClient.connect(server, tls=tls, retry=retry, key=key)
    maker: AnyBotMaker = make_bot  # type: ignore[assignment]
    try:
        await client.wait_ready(CONNECT_SECONDS)
        info = await client.get_table(table_id)
        if info.status == state_pb2.TABLE_STATUS_FINISHED:
            raise MatchOverError(f"the match at table {table_id} is over: nothing to play")
        rules = table_rules(info)
        maker(seat if seat is not None else 0, rules)  # a bot that cannot be built takes no seat
        if token:
            held = AsyncSeat(client, table_id, -1, token, name)
            state = await held.state()
            mine = view_seat(state)
            if mine is None:
                raise AuthenticationError(f"the --token holds no seat at table {table_id}")
            held.seat = mine
        else:
            held = await client.join(table_id, seat=seat, name=name)
        if on_seat is not None:
            on_seat(held)
        return await play_seat(held, maker, rules, poll=poll, delay=delay, name=name)
    finally:
        await client.close()
