"""The one seat loop: follow a seat's event feed and act at its turns, for bots and people.

Every client-side follower (SDK bots of both games, remote bots, terminal sessions, tournament
entries) is this loop with its own `Hooks`: `observe` is told each event once, in order;
`decide` picks the move when the seat may act. The loop resumes after a disconnect or a server
restart (`reconnects`), reopening the feed after the last event seen, so nothing is told twice
and a turn whose event came before the break is still played.

The feed is opened `with_state`: each event carries the table as the seat sees it. That is the
one message a turn needs (the bot's view, Tač's open offence, the terminal's drawing), where
slim events would cost a GetState round trip before every decision; the heartbeats and the
resume are the SDK's (`AsyncClient.events`).

Example (inside an `async def`)::

    class FirstMove(Hooks):
        async def decide(self, state, legal):
            return legal.moves[0].text

    final = await SeatLoop(seat, FirstMove()).run()     # returns when the match is over
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from kafana.errors import IllegalMoveError
from kafana.games import tablic
from kafana.tasks import cancel_and_wait
from kafana.v1 import events_pb2, state_pb2
from kafana_bots.base import Player

from kafana_client.aio import AsyncSeat, LegalMoves
from kafana_client.convert import current_seat
from kafana_client.errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    MatchOverRpcError,
    NotYourTurnRpcError,
    RefusedMoveError,
    RpcError,
    StaleStateError,
    UnavailableError,
)

T = TypeVar("T")
P = TypeVar("P", bound="Player[Any, Any, Any]")
Decision = str | tablic.Move | state_pb2.Move | None
TOO_MANY_MOVES = "TOO_MANY_MOVES"
"""The reason of a position whose captures are too many for the server to list."""
DISCONNECTS = (UnavailableError, DeadlineExceededError)


class Worker:
    """One game's own thread for its bot's decisions (started at the first, ended by `close`).

    A decision run here never holds up the event loop (the feeds, heartbeats and moves of every
    other game of the process) nor waits behind another game's decision in a shared pool: a slow
    game never slows another. Pure-Python bots that compute still share the interpreter's lock;
    a bot that waits (a sleep, I/O, native code that releases it) runs alongside the others.
    """

    def __init__(self, name: str = "kafana-bot") -> None:
        self.name = name
        self._pool: ThreadPoolExecutor | None = None

    async def run(self, call: Callable[..., T], *args: object) -> T:
        """`call(*args)` on this game's thread."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call, *args)

    def close(self) -> None:
        """End the thread once its current decision (if any) returns."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class Hooks:
    """What a follower does at its seat; every hook but `decide` has a default."""

    who = "kafana"
    """How the follower names itself in what it writes on stderr."""

    def observe(self, event: events_pb2.Event, before: state_pb2.TableState | None) -> None:
        """Told every event of the feed once, in order, never while `decide` runs (`before`:
        the previous event's state)."""

    def may_act(self, state: state_pb2.TableState, seat: int) -> bool:
        """Whether `seat` has something to do at `state` (default: it is the seat to move)."""
        return current_seat(state) == seat

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        """The move to send at `state`, one of `legal` (or typed); None sends nothing."""
        raise NotImplementedError

    def refused(self, error: RefusedMoveError) -> bool:
        """The server refused the move (`error.move`): True asks `decide` again, False waits
        for an event (or raise, to stop the loop)."""
        return False

    def stale(self) -> None:
        """The table moved on before the move arrived (a clock, a call): the feed brings it."""

    def timed_out(self, event: events_pb2.Event) -> None:
        """The seat ran out of time: the server played `event.move` for it (a person's
        session says so on its screen; nothing by default)."""

    def stop(self, event: events_pb2.Event) -> bool:
        """Whether to stop following after `event` (before the match is over)."""
        return False

    def reconnecting(self, error: RpcError, failures: int) -> None:
        """The connection failed (`failures` times in a row); the loop tries again."""
        print(f"{self.who}: {error}; reconnecting ({failures})", file=sys.stderr, flush=True)

    def close(self) -> None:
        """The loop is done with the seat (over, stopped or failed): free what the hooks hold."""


class BotMoveRefused(IllegalMoveError):
    """A bot's move that the server refused. Asked again at the same position the bot would
    choose the same, and no event comes until the seat moves: its seat loop stops with this."""


class PlayerHooks(Hooks, Generic[P]):
    """A bot at a seat, of either game: the bot, its `Worker` when `threaded` (each decision
    on the game's own thread, so a slow bot never holds up the event loop nor another game's:
    the SDK's league and event players and a server hosting bots use it) and its name in what
    is written (`name`, default its class). A refused move stops the loop (`BotMoveRefused`)."""

    def __init__(self, bot: P, *, threaded: bool = False, name: str = "") -> None:
        self.bot = bot
        self.worker = Worker() if threaded else None
        self.name = name or type(bot).__name__

    async def decided(self, call: Callable[..., T], *args: object) -> T:
        """`call(*args, self.name)` (the bot's checked choice), on the worker if there is one."""
        if self.worker is not None:
            return await self.worker.run(call, *args, self.name)
        return call(*args, self.name)

    def refused(self, error: RefusedMoveError) -> bool:
        raise BotMoveRefused(
            f"the bot {self.name} at seat {self.bot.seat} played {error.move}, which the "
            f"server refused: {error.message}"
        )

    def timed_out(self, event: events_pb2.Event) -> None:
        """One line on stderr: the server moved for the bot (a bot too slow for the clock lost
        every move and `kafana bot run` said nothing)."""
        print(
            f"{self.who}: the bot {self.name} at seat {self.bot.seat} ran out of time; the "
            f"server played {event.move.text} for it",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


def trails(hand: list[str] | tuple[str, ...]) -> list[state_pb2.Move]:
    """The trail of each card in a Tablić hand, as the server lists moves."""
    return [state_pb2.Move(text=card, tablic=state_pb2.TablicMove(card=card)) for card in hand]


async def playable_moves(seat: AsyncSeat, state: state_pb2.TableState) -> LegalMoves | None:
    """The seat's legal moves at its turn; None when it is not its turn (an old event) or the
    match has ended meanwhile (the feed brings its end).

    On a Tablić table whose captures are too many for the server to list (TOO_MANY_MOVES,
    after a long run of trails) they are the trails of the hand in `state`, marked unlisted:
    trails need no listing and the server still checks them (a capture sent as text too).
    """
    try:
        return await seat.legal_moves()
    except (NotYourTurnRpcError, MatchOverRpcError):
        return None
    except InvalidArgumentError as error:
        if error.reason != TOO_MANY_MOVES or state.WhichOneof("game") != "tablic":
            raise
        return LegalMoves(int(state.seq), trails(tuple(state.tablic.hand)), listed=False)


class SeatLoop:
    """Follows one seat with `hooks` until the match is over (or `hooks.stop`).

    `delay` seconds pass before each action (so people can follow). `poll` seconds (None: never)
    between checks for a turn the feed did not announce. `reconnects`: failed connections in a
    row (UNAVAILABLE, deadline) that are waited out before the error is raised (0: none).
    """

    def __init__(
        self,
        seat: AsyncSeat,
        hooks: Hooks,
        *,
        delay: float = 0.0,
        poll: float | None = None,
        reconnects: int = 0,
    ) -> None:
        self.seat = seat
        self.hooks = hooks
        self.delay = delay
        self.poll = poll
        self.reconnects = reconnects
        self.last: state_pb2.TableState | None = None
        """The state of the last event told."""
        self.over = False
        """Whether the match is over (False after `hooks.stop`)."""
        self._acted = -1
        self._lock = asyncio.Lock()

    async def run(self) -> state_pb2.TableState:
        """Follow and act until the end; returns the last state seen."""
        watchdog = asyncio.create_task(self._watch()) if self.poll else None
        failures = 0
        try:
            while True:
                seen = self.last.seq if self.last is not None else -1
                try:
                    return await self._follow()
                except DISCONNECTS as error:
                    if self.last is not None and self.last.seq > seen:
                        failures = 0  # it got somewhere since the last failure
                    failures += 1
                    if failures > self.reconnects:
                        raise
                    self.hooks.reconnecting(error, failures)
                    await asyncio.sleep(min(2.0, 0.1 * 2**failures))
        finally:
            await cancel_and_wait([watchdog])
            self.hooks.close()

    async def _follow(self) -> state_pb2.TableState:
        if self.last is not None:  # resumed: the turn of the last event may still be open
            await self._unannounced()
        after = int(self.last.seq) if self.last is not None else 0
        async for event in self.seat.events(after_seq=after, with_state=True):
            async with self._lock:  # never while the poll's turn decides (a bot's threaded choose)
                self.hooks.observe(event, self.last)
                self.last = event.state
            if (
                event.kind == events_pb2.EVENT_KIND_MOVE
                and event.reason == state_pb2.EVENT_REASON_TIMEOUT
                and event.seat == self.seat.seat
            ):
                self.hooks.timed_out(event)
            if event.match_over or event.state.info.status == state_pb2.TABLE_STATUS_FINISHED:
                self.over = True
                return event.state
            if self.hooks.stop(event):
                return event.state
            await self.turn(event.state)
        self.over = True  # the feed ends only when the match is over
        return self.last if self.last is not None else await self.seat.state()

    async def _unannounced(self) -> None:
        """Act on the current state if no event came after the last one told."""
        state = await self.seat.state()
        if self.last is not None and state.seq == self.last.seq:
            await self.turn(state)

    async def _watch(self) -> None:
        assert self.poll is not None
        while True:
            await asyncio.sleep(self.poll)
            try:
                await self._unannounced()
            except RpcError:
                continue

    async def turn(self, state: state_pb2.TableState) -> None:
        """Act at `state` if the seat may and has not acted there yet."""
        async with self._lock:
            if state.seq <= self._acted or not self.hooks.may_act(state, self.seat.seat):
                return
            if self.delay:
                await asyncio.sleep(self.delay)
            legal = await playable_moves(self.seat, state)
            if legal is None or legal.seq != state.seq or not legal.moves:
                return  # the table has moved on: the next event brings the new state
            await self._send(state, legal)
            self._acted = int(state.seq)

    async def _send(self, state: state_pb2.TableState, legal: LegalMoves) -> None:
        while True:
            move = await self.hooks.decide(state, legal)
            if move is None:
                return
            try:
                await self.seat.play(move, last_seq=legal.seq, with_state=False)
                return
            except RefusedMoveError as error:
                if not self.hooks.refused(error):
                    return
            except (StaleStateError, NotYourTurnRpcError, MatchOverRpcError):
                self.hooks.stale()
                return


async def follow_seat(
    seat: AsyncSeat,
    hooks: Hooks,
    *,
    delay: float = 0.0,
    poll: float | None = None,
    reconnects: int = 0,
) -> state_pb2.TableState:
    """`SeatLoop(seat, hooks, ...).run()`: play the seat to the end; the last state seen."""
    return await SeatLoop(seat, hooks, delay=delay, poll=poll, reconnects=reconnects).run()
