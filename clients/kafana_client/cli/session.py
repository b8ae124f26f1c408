"""One person at a table of either game: draw what happens, ask for a move at their turn.

It is the seat loop (`kafana_client.seat_loop`) whose `decide` hook asks the person: the
table and the numbered moves are shown, a number or a move typed as text is read, and a
move the server refuses is explained and asked for again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.tasks import cancel_and_wait
from kafana.v1 import events_pb2, state_pb2
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from kafana_client.aio import AsyncSeat, LegalMoves
from kafana_client.cli import explain, render, tac_render
from kafana_client.cli.choice import read_choice
from kafana_client.cli.prompt import LineReader, TimedOut
from kafana_client.convert import rules_of
from kafana_client.errors import RefusedMoveError, RpcError
from kafana_client.seat_loop import Decision, Hooks, SeatLoop
from kafana_client.tac import tac_rules_of

Ask = Callable[[str], str]
Offered = tuple[list[state_pb2.Move], list[RenderableType]]
"""The moves as numbered for the person, and what to show them."""
Offer = Callable[[state_pb2.TableState, LegalMoves, float], Offered]
"""The moves and what to show, from the state, the legal moves and when the state arrived."""
UNLISTED = (
    "This table allows too many captures for the server to list them: your trails are "
    "numbered below, and you may type any capture as text (e.g. KC:KD+KH); the server checks it."
)
CALLS = frozenset({"call", "tac", "tač", "tač!", "tac!"})


class Quit(Exception):
    """The person asked to leave (and confirmed), or their input ended (Ctrl-D)."""


LEAVE_FORFEITS = "your seat forfeits the match (the other side wins)"
"""What leaving a live game costs, said before the person confirms."""
YES = frozenset({"y", "yes"})


@dataclass
class Outcome:
    """How the session ended: the last state, and whether the match is over."""

    state: state_pb2.TableState
    over: bool


def parse_tac(text: str) -> str:
    """A typed Tač move in canonical form; a bare `call` stays `call` (the server names you)."""
    if text.strip().lower() in CALLS:
        return "call"
    try:
        return str(tac.Move.parse(text))
    except InvalidInputError:
        raise InvalidInputError("expected flip, play D->C, play X->P1, play X->D or call") from None


@dataclass(frozen=True)
class Speech:
    """What a person is told and how their moves are read, in one game."""

    prompt: str
    parse: Callable[[str], object]
    example: str
    refused: str
    stale: str
    offer: Offer


def _tablic_offer(state: state_pb2.TableState, legal: LegalMoves, received: float) -> Offered:
    moves = render.order_moves(legal.moves)
    shown: list[RenderableType] = [render.table_panel(state, "Your turn", received)]
    if not legal.listed:
        shown.append(Text(UNLISTED, style="yellow"))
    return moves, [*shown, render.moves_list(moves)]


def _tac_offer(state: state_pb2.TableState, legal: LegalMoves, received: float) -> Offered:
    moves = list(legal.moves)
    seat = state.tac.seat
    return moves, [
        tac_render.table_panel(state, "Your turn", received),
        tac_render.moves_list(moves, state, seat),
    ]


SPEECH = {
    "tablic": Speech(
        prompt="Your move (number, or e.g. KC:KD; ? help, q quit): ",
        parse=tablic.Move.parse,
        example="KC:KD+KH",
        refused="Illegal move",
        stale="The table changed meanwhile.",
        offer=_tablic_offer,
    ),
    "tac": Speech(
        prompt="Your move (number, or e.g. play X->C; ? help, q quit): ",
        parse=parse_tac,
        example="play X->C",
        refused="Refused",
        stale="The table changed meanwhile (a call?).",
        offer=_tac_offer,
    ),
}


def _game(state: state_pb2.TableState) -> str:
    return "tac" if state.WhichOneof("game") == "tac" else "tablic"


def help_panel(state: state_pb2.TableState) -> RenderableType:
    """The `?` screen: the keys, how to write a move, and this table's rules in words."""
    game = _game(state)
    lines = (
        explain.tac_rules(tac_rules_of(state.info))
        if game == "tac"
        else (explain.tablic_rules(rules_of(state.info)))
    )
    body = [Text("Keys", style="bold"), *(Text(f"  {line}") for line in explain.keys(game))]
    body += [Text(f"The rules of this table ({render.rules_text(state.info.rules)})", style="bold")]
    body += [Text(f"  {line}") for line in lines]
    return Panel(Group(*body), title="Help", title_align="left", border_style="cyan")


class PersonAtTable(Hooks):
    """Plays `seat` for a person at a terminal: events drawn, moves asked for by number."""

    def __init__(
        self,
        seat: AsyncSeat,
        console: Console,
        ask: Ask | None = None,
        *,
        leaving: str = LEAVE_FORFEITS,
        reader: LineReader | None = None,
    ) -> None:
        self.seat = seat
        self.console = console
        self.ask = ask
        """A blocking line reader (tests); None: standard input, with the clock shown."""
        self.reader = reader or LineReader()
        self.leaving = leaving
        """What leaving costs here (asked before `q` leaves)."""
        self.hands: int | None = None
        self._offered: tuple[int, list[state_pb2.Move]] | None = None
        self._game = "tablic"

    async def play(self, hands: int | None = None) -> Outcome:
        """Until the match ends (or, in Tablić, `hands` hands are scored); Quit on `q`."""
        self.hands = hands
        loop = SeatLoop(self.seat, self)
        state = await loop.run()
        return Outcome(state, loop.over)

    async def turn(self) -> None:
        """One turn at the table as it is now (nothing if it is not the person's turn)."""
        await SeatLoop(self.seat, self).turn(await self.seat.state())

    # -- the seat loop's hooks --------------------------------------------------------------

    def observe(self, event: events_pb2.Event, before: state_pb2.TableState | None) -> None:
        draw = tac_render if _game(event.state) == "tac" else render
        for line in draw.event_lines(event, before, self.seat.seat):
            self.console.print(line)

    def stop(self, event: events_pb2.Event) -> bool:
        return self.hands is not None and len(event.state.tablic.hand_results) >= self.hands

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        self._game = _game(state)
        speech = SPEECH[self._game]
        state, received = await self._clocked(state)
        if self._offered is None or self._offered[0] != legal.seq:
            moves, shown = speech.offer(state, legal, received)
            for item in shown:
                self.console.print(item)
            self._offered = (legal.seq, moves)
        moves = self._offered[1]
        deadline = render.deadline_of(state, received)
        helped = help_panel(state)
        if self.ask is not None:  # a blocking reader (tests): nothing to race
            return await self._choose(moves, speech, deadline, helped)
        choosing = asyncio.create_task(self._choose(moves, speech, deadline, helped))
        moved = asyncio.create_task(self._moved_on(int(legal.seq)))
        try:
            await asyncio.wait({choosing, moved}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # Ctrl-C: neither goes on
            await cancel_and_wait([choosing, moved])
            raise
        await cancel_and_wait([moved])
        if not choosing.done():  # the table moved on without the person: the feed says how
            await cancel_and_wait([choosing])
            self.reader.discard()
            if deadline is not None and time.time() >= deadline - 0.1:
                self.console.print(
                    Text("\nTime is up: the server plays for you.", style="bold red")
                )
            else:
                self.console.print(Text("\nThe table moved on meanwhile.", style="dim"))
            return None
        return choosing.result()

    async def _choose(
        self,
        moves: list[state_pb2.Move],
        speech: Speech,
        deadline: float | None,
        helped: RenderableType,
    ) -> Decision:
        try:
            while True:
                line = await self._line(speech.prompt, deadline)
                choice = read_choice(line, moves, speech.parse, speech.example)
                if choice.quit:
                    if await self._confirm_leave(deadline):
                        raise Quit
                    continue
                if choice.help:
                    self.console.print(helped)
                    continue
                if not choice.problem:
                    return choice.move
                self.console.print(Text(choice.problem, style="bold red"))
        except TimedOut:
            self.console.print(Text("Time is up: the server plays for you.", style="bold red"))
            return None

    async def _moved_on(self, seq: int, every: float = 1.0) -> None:
        """Return once the table is past `seq` (a close, a forfeit, a call, the clock)."""
        while True:
            await asyncio.sleep(every)
            try:
                state = await self.seat.state()
            except RpcError:
                continue
            if state.seq != seq:
                return

    async def _clocked(self, state: state_pb2.TableState) -> tuple[state_pb2.TableState, float]:
        """`state` with the time left for the move (`remaining_millis`: an event's state may
        have none, the seat's own state fetched now has), and when that count was taken."""
        received = time.time()
        if state.remaining_millis or not state.info.clock.move_millis:
            return state, received
        fresh = await self.seat.state()
        return (fresh, time.time()) if fresh.seq == state.seq else (state, received)

    async def _confirm_leave(self, deadline: float | None) -> bool:
        """Ask before leaving a live game, naming what it costs."""
        cost = self.leaving[:1].upper() + self.leaving[1:]
        answer = await self._line(f"Leave the match? {cost}. [y/N] ", deadline)
        return answer.strip().lower() in YES

    def refused(self, error: RefusedMoveError) -> bool:
        label = SPEECH[self._game].refused
        message = error.message.replace(f"the hand of seat {self.seat.seat}", "your hand")
        self.console.print(Text(f"{label}: {message}.", style="bold red"))
        self.console.print(Text("Choose one of the moves listed above.", style="dim"))
        return True

    def stale(self) -> None:
        self.console.print(Text(SPEECH[self._game].stale, style="dim"))

    async def _line(self, prompt: str, deadline: float | None = None) -> str:
        """A line typed by the person; Quit when their input ends (Ctrl-D)."""
        try:
            if self.ask is not None:
                return await asyncio.to_thread(self.ask, prompt)
            return await self.reader.read(prompt, deadline)
        except EOFError:
            self.console.print(Text(f"\nEnd of input: leaving ({self.leaving}).", style="bold"))
            raise Quit from None

    def side(self) -> int | None:
        """The person's side (None before the rules are known)."""
        state = self.seat.last_state
        if state is None:
            return None
        return rules_of(state.info).side_of(self.seat.seat)
