"""One person at a Tač table: draw what happens, ask for a move whenever they may act."""

from __future__ import annotations

import asyncio

from kafana.errors import InvalidInputError
from kafana.games import tac
from kafana.v1 import state_pb2
from rich.console import Console
from rich.text import Text

from kafana_client.aio import AsyncSeat
from kafana_client.cli import tac_render
from kafana_client.cli.choice import read_choice
from kafana_client.cli.session import Ask, Outcome, Quit
from kafana_client.convert import current_seat
from kafana_client.errors import NotYourTurnRpcError, RefusedMoveError, StaleStateError

PROMPT = "Your move (number, or e.g. play X->C; q to quit): "
CALLS = frozenset({"call", "tac", "tač", "tač!", "tac!"})


def parse_tac(text: str) -> str:
    """A typed Tač move in canonical form; a bare `call` stays `call` (the server names you)."""
    if text.strip().lower() in CALLS:
        return "call"
    try:
        return str(tac.Move.parse(text))
    except InvalidInputError:
        raise InvalidInputError("expected flip, play D->C, play X->P1, play X->D or call") from None


class TacPersonAtTable:
    """Plays a Tač seat for a person at a terminal: events drawn, moves asked for by number."""

    def __init__(self, seat: AsyncSeat, console: Console, ask: Ask | None = None) -> None:
        self.seat = seat
        self.console = console
        self.ask: Ask = ask or (lambda prompt: console.input(prompt))

    async def _line(self, prompt: str) -> str:
        try:
            return await asyncio.to_thread(self.ask, prompt)
        except EOFError:
            raise Quit from None

    async def play(self) -> Outcome:
        """Until the game ends; raises Quit on `q`."""
        before: state_pb2.TableState | None = None
        async for event in self.seat.events():
            for line in tac_render.event_lines(event, before, self.seat.seat):
                self.console.print(line)
            before = event.state
            if event.match_over or event.state.info.status == state_pb2.TABLE_STATUS_FINISHED:
                return Outcome(event.state, True)
            if current_seat(event.state) == self.seat.seat:
                await self.turn(event.state.seq)
        return Outcome(before if before is not None else await self.seat.state(), True)

    async def turn(self, seq: int) -> None:
        """Show the table and the numbered moves at `seq`; play the one chosen."""
        try:
            legal = await self.seat.legal_moves()
        except NotYourTurnRpcError:
            return
        if legal.seq != seq or not legal.moves:
            return  # an old event of the feed: the table has moved on since
        state = await self.seat.state()
        if state.seq != seq:
            return
        moves = list(legal.moves)
        self.console.print(tac_render.table_panel(state, "Your turn"))
        self.console.print(tac_render.moves_list(moves, state, self.seat.seat))
        while True:
            choice = read_choice(await self._line(PROMPT), moves, parse_tac, "play X->C")
            if choice.quit:
                raise Quit
            if choice.problem:
                self.console.print(Text(choice.problem, style="bold red"))
                continue
            try:
                await self.seat.play(choice.move, last_seq=legal.seq, with_state=False)
                return
            except RefusedMoveError as error:
                self.console.print(Text(f"Refused: {error.message}.", style="bold red"))
                self.console.print(Text("Choose one of the moves listed above.", style="dim"))
            except StaleStateError:
                self.console.print(Text("The table changed meanwhile (a call?).", style="dim"))
                return
