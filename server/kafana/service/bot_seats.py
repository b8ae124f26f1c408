"""Built-in bots playing seats in the server process, on the domain layer (never the SDK).

`play_seat` follows the table (`follow`), tells the bot every public event, and at the seat's
turn lets it choose in a worker thread (a bot may think for a while: the event loop serving
every other table never waits for it), then plays the move with `Tables.play` under the seat's
token, as the `PlayMove` RPC does. Without a bot the seat plays the table's default moves.
A Tablić bot (`kafana_bots.Bot`) is told every public event; a Tač bot (`TacBot`) chooses from
the seat's view at its turn. `present` marks a seat a process plays as present while it does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from kafana_bots import Bot, HandEnded, HandStarted, MatchEnded, MovePlayed, TacBot
from kafana_bots.events import Event

from kafana.errors import (
    IllegalMoveError,
    KafanaError,
    MatchOverError,
    NotYourTurnError,
    StaleSequenceError,
    TooManyMovesError,
)
from kafana.games import tablic, tac
from kafana.service.feed import Feed
from kafana.service.follow import follow, steps
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import PLAYING
from kafana.store.errors import StoreUnavailable
from kafana.v1 import events_pb2, storage_pb2

MOVE = events_pb2.EVENT_KIND_MOVE
BEAT_S = 0.5
"""How often a live built-in seat is marked present (the presence throttle writes 1/s)."""
MOVED_ON = (StaleSequenceError, NotYourTurnError, MatchOverError, IllegalMoveError)
"""A move refused because the table moved on (a clock timeout, a forfeit, the end), or a
fallback trail refused: the seat waits for the next change."""


def to_move(session: Session) -> int | None:
    """The seat to move (None: nobody, or the match is not running)."""
    if session.status != PLAYING:
        return None
    seat: int | None = session.match.current_seat
    return seat


def tablic_match(session: Session) -> tablic.MatchState:
    """The session's match: a Tablić table's (the bot interface is Tablić's)."""
    match = session.match
    assert isinstance(match, tablic.MatchState)
    return match


def hand_no(session: Session) -> int:
    """The number of the hand being played."""
    return tablic_match(session).hand_no


def bot_events(event: storage_pb2.StoredEvent, before: Session, after: Session) -> list[Event]:
    """The public events a bot is told of for one event of the table."""
    out: list[Event] = []
    match = tablic_match(after)
    if not before.started and after.started:  # the last seat was taken
        out.append(HandStarted(match.hand_no, match.table))
    if event.kind != MOVE:
        return out
    out.append(MovePlayed(event.seat, tablic.Move.parse(event.move)))
    done = len(tablic_match(before).hand_results)
    for result in match.hand_results[done:]:
        out.append(HandEnded(result))
    if len(match.hand_results) > done and not match.is_over:
        out.append(HandStarted(match.hand_no, match.table))
    if match.is_over:
        out.append(MatchEnded(match.scores))
    return out


def playable(tables: Tables, session: Session, seat: int) -> list[tablic.Move]:
    """The legal moves of `seat`; on a table whose captures are too many to list, the trails
    of its hand (the table still checks them, and refuses them under must-capture)."""
    try:
        return [move for move in tables.legal(session, seat) if isinstance(move, tablic.Move)]
    except TooManyMovesError:
        return [tablic.Move(card) for card in tablic_match(session).hand(seat)]


async def play_move(tables: Tables, session: Session, token: str, move: str) -> None:
    """Play `move` at the session's seq (nothing if the table moved on meanwhile)."""
    with contextlib.suppress(*MOVED_ON):
        await tables.play(session.table_id, token, move, f"bot-{session.seq}", session.seq)


async def play_default(tables: Tables, session: Session, token: str) -> None:
    """Play the table's default move for the seat to move (the move its clock would play)."""
    await play_move(tables, session, token, str(session.match.default_move()))


async def decide(tables: Tables, session: Session, seat: int, bot: Bot | TacBot) -> str:
    """The bot's move at `session`, chosen in a worker thread."""
    if isinstance(bot, TacBot):
        match = session.match
        assert isinstance(match, tac.GameState)
        legal = [m for m in tables.legal(session, seat) if isinstance(m, tac.Move)]
        return str(await asyncio.to_thread(bot.choose, match.view(seat), legal))
    match = tablic_match(session)
    moves = playable(tables, session, seat)
    move = await asyncio.to_thread(bot.choose, match.view(seat), moves)
    return str(move)


async def play_seat(
    tables: Tables,
    feed: Feed,
    table_id: str,
    seat: int,
    token: str,
    bot: Bot | TacBot | None,
    pace: Callable[[], Awaitable[None]] | None = None,
) -> Session:
    """Play `seat` with `bot` (None: default moves) until the match is over; the last session.

    The bot is told every event from the table's start (also when a seat is taken over
    mid-match); `pace`, if given, is awaited before each of the seat's moves. An error of the
    bot (or of the store) is raised to the caller.
    """
    before: Session | None = None
    async with contextlib.aclosing(follow(tables, feed, table_id)) as changes:
        async for session in changes:
            if before is None:
                before = Session.start(table_id, session.stored)
            if isinstance(bot, Bot):
                for event, after in steps(before, session):
                    for item in bot_events(event, before, after):
                        bot.observe(item)
                    before = after
            before = session
            if to_move(session) != seat:
                continue
            if pace is not None:
                await pace()
            if bot is None:
                await play_default(tables, session, token)
            else:
                await play_move(tables, session, token, await decide(tables, session, seat, bot))
    if before is None:  # over before it was followed
        return await tables.session(table_id)
    return before


async def seen(tables: Tables, table_id: str, seat: int) -> None:
    """Mark the seat present now (nothing if the store fails)."""
    with contextlib.suppress(KafanaError, StoreUnavailable):
        session = tables.cached(table_id) or await tables.session(table_id)
        await tables.seen(session, seat)


async def present(tables: Tables, table_id: str, seat: int) -> None:
    """Mark the seat present every `BEAT_S` until cancelled."""
    while True:
        await seen(tables, table_id, seat)
        await asyncio.sleep(BEAT_S)
