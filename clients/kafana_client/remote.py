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

from kafana.games import tablic
from kafana.v1 import state_pb2
from kafana_bots import Bot
from kafana_bots.tac_bots import TacBot

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import bot_hooks
from kafana_client.connection import Retry, Tls
from kafana_client.convert import rules_of
from kafana_client.seat_loop import follow_seat

BotMaker = Callable[[int, tablic.Rules], Bot | TacBot]
RECONNECTS = 30
"""Consecutive failed reconnections before giving up (about a minute with the backoff)."""


async def play_seat(
    seat: AsyncSeat,
    make_bot: BotMaker,
    rules: tablic.Rules,
    *,
    poll: float = 2.0,
    delay: float = 0.0,
) -> state_pb2.TableState:
    """Play `seat` until the match is over, reconnecting after failures; the last state."""
    hooks = bot_hooks(make_bot(seat.seat, rules))
    hooks.who = "kafana bot"
    return await follow_seat(seat, hooks, delay=delay, poll=poll, reconnects=RECONNECTS)


async def run_remote(
    *,
    server: str,
    table_id: str,
    make_bot: BotMaker,
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
    API key sent with every call)."""
    retry = Retry(attempts=8, max_backoff=2.0)
    client = AsyncClient.connect(server, tls=tls, retry=retry, key=key)
    try:
        await client.wait_ready(30.0)
        if token:
            held = AsyncSeat(client, table_id, -1, token, name)
            state = await held.state()
            held.seat = state.tablic.seat
        else:
            held = await client.join(table_id, seat=seat, name=name)
        if on_seat is not None:
            on_seat(held)
        rules = rules_of(await client.get_table(table_id))
        return await play_seat(held, make_bot, rules, poll=poll, delay=delay)
    finally:
        await client.close()
