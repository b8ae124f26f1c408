"""A built-in entrant's seat, played in the server process, and the policy when its bot fails.

The service's seat runner (`kafana.service.bot_seats.play_seat`) plays it: decisions in worker
threads, moves through `Tables.play`. If the bot fails, the seat gets the event's disconnect
policy after the grace period: a forfeit of the match, or default moves to its end.
"""

from __future__ import annotations

import asyncio
import contextlib

from kafana_bots import Bot

from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.errors import KafanaError
from kafana.service.bot_seats import play_seat
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.base import FINISHED


async def bot_seat(
    tables: Tables,
    feed: Feed,
    table_id: str,
    seat: int,
    token: str,
    bot: Bot,
    policy: FaultPolicy,
    notes: list[Fault],
) -> None:
    """Play the seat with `bot`; if it fails, note a disconnect and apply the policy."""
    try:
        await play_seat(tables, feed, table_id, seat, token, bot)
        return
    except Exception as exc:  # the bot (or the store, for now) failed
        detail = f"{type(exc).__name__}: {exc}"
    with contextlib.suppress(Exception):  # cannot tell: the seat is at fault
        if (await tables.session(table_id)).status == FINISHED:
            return
    await asyncio.sleep(policy.disconnect_grace_ms / 1000)
    action = policy.action(Reason.DISCONNECT)
    notes.append(Fault(seat, Reason.DISCONNECT, action, -1, detail))
    with contextlib.suppress(KafanaError):
        if action is Action.FORFEIT_MATCH:
            await tables.leave(table_id, token)
        else:
            await play_seat(tables, feed, table_id, seat, token, None)
