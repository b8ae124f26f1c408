"""`kafana replay` of a Tač record: one move per Enter, the piles after each turn."""

from __future__ import annotations

from collections.abc import Callable

from kafana.games import tac
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from kafana_client.cli.choice import Paced
from kafana_client.cli.render import card_text, cards_text


def position(state: tac.GameState, title: str) -> RenderableType:
    """The central pile, each seat's discard pile (top last) and closed pile count."""
    central = state.central
    lines: list[RenderableType] = [
        Text("Central: ", style="bold")
        + (card_text(central[-1].text) if central else Text("(empty)", style="dim"))
        + Text(f"  ({len(central)} card{'s' if len(central) != 1 else ''})", style="dim")
    ]
    if state.turned is not None:
        lines.append(Text("Turned up: ", style="bold") + card_text(state.turned.text))
    for seat in range(state.rules.players):
        mark = "▶ " if seat == state.current_seat else "  "
        out = " — out" if state.is_out(seat) else ""
        discard = state.discard(seat)
        head = f"{mark}seat {seat}{out}: closed {state.closed_size(seat)}, discard "
        more = Text(f"… {len(discard) - 8} more, ", style="dim") if len(discard) > 8 else Text()
        lines.append(
            Text(head, style="bold") + more + cards_text([c.text for c in discard[-8:]], "(empty)")
        )
    return Panel(Group(*lines), title=title, title_align="left", border_style="magenta")


def _step_line(step: tac.Step) -> Text:
    line = Text(f"seat {step.seat} ", style="bold") + Text(str(step.move))
    if step.card is not None:
        line += Text(": ") + card_text(step.card.text)
    if step.turned_over:
        line += Text(" (discard pile turned over)", style="dim")
    if step.penalty:
        cards = f"{step.penalty} penalty card{'s' if step.penalty != 1 else ''}"
        line += Text(f" — Tač! {cards}", style="bold magenta")
    if step.offence:
        line += Text(" — out of order", style="yellow")
    return line


def step_through(
    record: tac.GameRecord, console: Console, ask: Callable[[str], str]
) -> tac.GameState:
    """Show the start, then one move per Enter until the end or `q`; returns the last state."""
    if record.position is not None:
        state = tac.start_position(record.rules, record.position)
    else:
        state = tac.new_game(record.rules, seed=record.seed, deck=record.deck)
    total = len(record.moves)
    console.print(position(state, f"Tač · start · {total} moves"))
    paced = Paced(record.moves, console, ask)
    for number, move in paced:
        before = state.current_seat
        state = state.apply(move)
        step = state.last_step
        assert step is not None
        console.print(_step_line(step))
        if state.current_seat != before or move.kind == "call" or state.is_over:
            console.print(position(state, f"After move {number}"))
    if paced.stopped:
        return state
    places = state.places()
    console.print(
        Text(
            f"Places {' '.join(map(str, places))}" if places else "Not finished.",
            style="bold green",
        )
    )
    return state
