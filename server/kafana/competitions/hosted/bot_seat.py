"""A built-in entrant's seat (a Tablić or a Tač bot), played in the server process, and what
happens when its bot fails.

The service's seat runner (`kafana.service.bot_seats.play_seat`) plays it: decisions in worker
threads, moves through `Tables.play`. While it runs the seat is marked present (as an open
stream marks a remote seat); if the bot raises, its traceback goes to the server's log, the
seat stops being present, and the table's own fault policy takes over after the grace, as for
a remote bot that died: a forfeit of the match, or default moves while the seat is away. The
bot's error is noted, so the fault the table records carries it as its detail. While it plays,
its director vouches for the seat (`vouch_ms`, as long as a takeover takes): a process that dies
mid-game leaves its seats present until another director plays them on, not forfeited for the
server's crash. A bot that fails withdraws the vouch: the grace runs from then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from kafana_bots import Bot, TacBot

from kafana.competitions.policy import Fault, FaultPolicy, Reason
from kafana.errors import KafanaError
from kafana.service.bot_seats import play_seat, present, seen
from kafana.service.feed import Feed
from kafana.service.tables import Tables

log = logging.getLogger(__name__)


async def bot_seat(
    tables: Tables,
    feed: Feed,
    table_id: str,
    seat: int,
    token: str,
    bot: Bot | TacBot,
    policy: FaultPolicy,
    notes: list[Fault],
    vouch_ms: int = 0,
) -> None:
    """Play the seat with `bot`; if it fails, log it and note a disconnect (the table's policy
    applies). `token` plays the seat; `policy` names the action the note records; `vouch_ms`:
    how much longer than the grace the seat stays present if this process dies."""
    tables.presence.vouch(table_id, seat, vouch_ms)
    beat = asyncio.create_task(present(tables, table_id, seat))
    failed = False
    try:
        await play_seat(tables, feed, table_id, seat, token, bot)
    except Exception as exc:  # the bot (or the store) failed: the seat is at fault
        log.exception(
            "table %s seat %d: the bot failed; the fault policy takes over", table_id, seat
        )
        action = policy.action(Reason.DISCONNECT)
        notes.append(Fault(seat, Reason.DISCONNECT, action, -1, f"{type(exc).__name__}: {exc}"))
        failed = True
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        tables.presence.vouch(table_id, seat, 0)  # cancelled (a stop): the store keeps it
    if failed and vouch_ms:  # nobody takes over a live process's seat: the grace from now
        await seen(tables, table_id, seat)
    if not policy.disconnect_grace_ms:  # the table checks no presence: its default moves
        with contextlib.suppress(KafanaError):
            await play_seat(tables, feed, table_id, seat, token, None)
