"""Run a `kafana_bots` bot for a seat through the SDK: the one way bots play on a server.

Example (inside an `async def`)::

    seat = await client.join(table_id, name="greedy")
    rules = rules_of((await client.get_table(table_id)))
    bot = registry.create("greedy", seat=seat.seat, rules=rules, rng=random.Random(1))
    final = await run_bot(seat, bot)        # returns when the match is over
"""

from __future__ import annotations

import asyncio

from kafana.games import tablic
from kafana.v1 import events_pb2, state_pb2
from kafana_bots import Bot, HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_bots.events import Event

from kafana_client.aio import AsyncSeat
from kafana_client.convert import cards_of, current_seat, hand_result_of, move_of, view_of
from kafana_client.errors import (
    MatchOverRpcError,
    NotYourTurnRpcError,
    RefusedMoveError,
    ResourceExhaustedError,
    StaleStateError,
)


def bot_events(event: events_pb2.Event, before: state_pb2.TableState | None) -> list[Event]:
    """The bot events that one wire event stands for (`before`: the previous event's state)."""
    after = event.state.tablic
    out: list[Event] = []
    if event.match_started:
        out.append(HandStarted(after.hand_no, cards_of(after.table)))
    if event.kind != events_pb2.EVENT_KIND_MOVE:
        return out
    out.append(MovePlayed(event.seat, move_of(event.move)))
    done = len(before.tablic.hand_results) if before is not None else 0
    for score in after.hand_results[done:]:
        out.append(HandEnded(hand_result_of(score)))
    if len(after.hand_results) > done and not after.is_over:
        out.append(HandStarted(after.hand_no, cards_of(after.table)))
    if after.is_over:
        out.append(MatchEnded(tuple(after.scores)))
    return out


async def playable_moves(
    seat: AsyncSeat, state: state_pb2.TableState
) -> tuple[int, list[tablic.Move]]:
    """The moves a bot may choose from at its turn, and the seq they are for.

    The server's legal moves; on a table whose captures are too many for the server to list
    (RESOURCE_EXHAUSTED, after a long run of trails), the trails of the hand in `state`: they
    need no listing and the server still checks them (under the must-capture switch it refuses
    them, and the table's clock plays the seat's default move).
    """
    try:
        legal = await seat.legal_moves()
    except ResourceExhaustedError:
        return int(state.seq), [tablic.Move(card) for card in cards_of(state.tablic.hand)]
    return legal.seq, legal.parsed()


async def _act(
    seat: AsyncSeat, bot: Bot, state: state_pb2.TableState, delay: float, threaded: bool
) -> None:
    if delay:
        await asyncio.sleep(delay)
    try:
        seq, moves = await playable_moves(seat, state)
        if seq != state.seq:
            return  # something happened meanwhile; the next event brings the new state
        if threaded:
            move = await asyncio.to_thread(bot.choose, view_of(state), moves)
        else:
            move = bot.choose(view_of(state), moves)
        await seat.play(move, last_seq=seq, with_state=False)
    except (StaleStateError, NotYourTurnRpcError, RefusedMoveError, MatchOverRpcError):
        return  # the table moved on (a clock timeout, a forfeit, the end), or a fallback
        # trail was refused: wait for the next event


async def run_bot(
    seat: AsyncSeat, bot: Bot, *, delay: float = 0.0, threaded: bool = False
) -> state_pb2.TableState:
    """Play for `seat` with `bot` until the match ends; returns the last state seen.

    The bot is told every public event from the start of the table (its `observe` hook),
    and chooses from the server's legal moves whenever the seat is to move. `delay` seconds
    pass before each move (so people can follow). `threaded` runs each decision in a worker
    thread, so a slow bot never holds up the event loop (a server hosting bots uses it).
    """
    before: state_pb2.TableState | None = None
    async for event in seat.events():
        for item in bot_events(event, before):
            bot.observe(item)
        before = event.state
        if event.match_over:
            break
        if current_seat(event.state) == seat.seat:
            await _act(seat, bot, event.state, delay, threaded)
    return before if before is not None else await seat.state()
