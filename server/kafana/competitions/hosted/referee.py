"""Following one hosted table to its end, and enforcing "forfeit the hand" on a timeout.

The server's clock knows two answers to a timeout: its default move, or a forfeit of the
match. For an event whose policy is `forfeit_hand`, the table's clock plays the default move
and the referee, which holds every seat's token, then plays default moves for that seat (the
move the clock would play: the first legal move, a trail when it has one) until the hand is
over. The hand is scored as its cards fall; the fault is recorded as
`seatN:timeout->forfeit_hand@M`. The referee follows the table in the server process
(`kafana.service.follow`), never through the SDK.
"""

from __future__ import annotations

import contextlib

from kafana.competitions.policy import Action, FaultPolicy
from kafana.service.bot_seats import hand_no, play_default, to_move
from kafana.service.feed import Feed
from kafana.service.follow import follow, steps, until_over
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.v1 import events_pb2


async def referee(
    tables: Tables, feed: Feed, table_id: str, tokens: list[str], policy: FaultPolicy
) -> Session:
    """Follow the table until the match is over (or the table is closed); the last session."""
    if policy.on_timeout is not Action.FORFEIT_HAND:
        return await until_over(tables, feed, table_id)
    forfeiting: dict[int, int] = {}  # seat -> the hand it forfeited
    last: Session | None = None
    async with contextlib.aclosing(follow(tables, feed, table_id)) as changes:
        async for session in changes:
            before = last or Session.start(table_id, session.stored)
            for event, after in steps(before, session):
                if event.kind == events_pb2.EVENT_KIND_MOVE and event.reason == "timeout":
                    forfeiting[event.seat] = hand_no(before)
                before = after
            last = session
            seat = to_move(session)
            if seat is not None and forfeiting.get(seat) == hand_no(session):
                await play_default(tables, session, tokens[seat])
    return last if last is not None else await tables.session(table_id)
