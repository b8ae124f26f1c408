"""One person at a table: draw what happens, ask for a move when it is their turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kafana.v1 import state_pb2
from rich.console import Console
from rich.text import Text

from kafana_client.aio import AsyncSeat, LegalMoves
from kafana_client.cli import render
from kafana_client.cli.choice import read_choice
from kafana_client.convert import current_seat, rules_of
from kafana_client.errors import (
    NotYourTurnRpcError,
    RefusedMoveError,
    ResourceExhaustedError,
    StaleStateError,
)

Ask = Callable[[str], str]
PROMPT = "Your move (number, or e.g. KC:KD; q to quit): "
UNLISTED = (
    "This table allows too many captures for the server to list them: your trails are "
    "numbered below, and you may type any capture as text (e.g. KC:KD+KH); the server checks it."
)


class Quit(Exception):
    """The person asked to leave."""


@dataclass
class Outcome:
    """How the session ended: the last state, and whether the match is over."""

    state: state_pb2.TableState
    over: bool


class PersonAtTable:
    """Plays `seat` for a person at a terminal: events drawn, moves asked for by number."""

    def __init__(self, seat: AsyncSeat, console: Console, ask: Ask | None = None) -> None:
        self.seat = seat
        self.console = console
        self.ask: Ask = ask or (lambda prompt: console.input(prompt))

    async def _line(self, prompt: str) -> str:
        try:
            return await asyncio.to_thread(self.ask, prompt)
        except EOFError:
            raise Quit from None

    async def play(self, hands: int | None = None) -> Outcome:
        """Until the match ends (or `hands` hands have been scored); raises Quit on `q`."""
        before: state_pb2.TableState | None = None
        async for event in self.seat.events():
            for line in render.event_lines(event, before, self.seat.seat):
                self.console.print(line)
            before = event.state
            tv = event.state.tablic
            if event.match_over or event.state.info.status == state_pb2.TABLE_STATUS_FINISHED:
                return Outcome(event.state, True)
            if hands is not None and len(tv.hand_results) >= hands:
                return Outcome(event.state, False)
            if current_seat(event.state) == self.seat.seat:
                await self.turn()
        return Outcome(before if before is not None else await self.seat.state(), True)

    async def turn(self) -> None:
        """Show the table and the numbered legal moves; play the one chosen."""
        state = await self.seat.state()
        unlisted = False
        try:
            legal = await self.seat.legal_moves()
            seq, offered = legal.seq, legal.moves
        except NotYourTurnRpcError:
            return  # an old event of the feed: the table has moved on since
        except ResourceExhaustedError:
            # Too many captures for the server to list: offer the trails, which need no
            # listing; a capture typed as text is still sent, and the server checks it.
            unlisted = True
            seq, offered = state.seq, trails(state.tablic.hand)
        moves = render.order_moves(offered)
        self.console.print(render.table_panel(state, "Your turn"))
        if unlisted:
            self.console.print(Text(UNLISTED, style="yellow"))
        self.console.print(render.moves_list(moves))
        while True:
            choice = read_choice(await self._line(PROMPT), moves)
            if choice.quit:
                raise Quit
            if choice.problem:
                self.console.print(Text(choice.problem, style="bold red"))
                continue
            try:
                await self.seat.play(choice.move, last_seq=seq, with_state=False)
                return
            except RefusedMoveError as error:
                self.console.print(Text(f"Illegal move: {error.message}.", style="bold red"))
                self.console.print(Text("Choose one of the moves listed above.", style="dim"))
            except StaleStateError:
                self.console.print(Text("The table changed meanwhile; here it is again."))
                return await self.turn()

    def side(self) -> int | None:
        """The person's side (None before the rules are known)."""
        state = self.seat.last_state
        if state is None:
            return None
        return rules_of(state.info).side_of(self.seat.seat)


def trails(hand: Iterable[str]) -> list[state_pb2.Move]:
    """The trail of each card in a hand, as the server lists moves."""
    return [state_pb2.Move(text=card, card=card) for card in hand]


def numbered(legal: LegalMoves) -> list[str]:
    """The legal moves in the order offered to a person (for scripts and tests)."""
    return [m.text for m in render.order_moves(legal.moves)]
