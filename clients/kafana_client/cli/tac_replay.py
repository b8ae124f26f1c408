"""`kafana replay` of a Tač record: back and forth move by move, the piles after each one."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.games import tac
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from kafana_client.cli.navigate import Frame, Frames
from kafana_client.cli.render import card_text, cards_text
from kafana_client.cli.words import plural


def position(state: tac.GameState, title: str, names: Sequence[str] = ()) -> RenderableType:
    """The central pile, each seat's discard pile (top last) and closed pile count."""
    names = list(names) or [f"seat {s}" for s in range(state.rules.players)]
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
        head = f"{mark}{names[seat]}{out}: closed {state.closed_size(seat)}, discard "
        more = Text(f"… {len(discard) - 8} more, ", style="dim") if len(discard) > 8 else Text()
        lines.append(
            Text(head, style="bold") + more + cards_text([c.text for c in discard[-8:]], "(empty)")
        )
    return Panel(Group(*lines), title=title, title_align="left", border_style="magenta")


def _step_line(step: tac.Step, names: Sequence[str]) -> Text:
    line = Text(f"{names[step.seat]} ", style="bold") + Text(str(step.move))
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


def _start(record: tac.GameRecord) -> tac.GameState:
    if record.position is not None:
        return tac.start_position(record.rules, record.position)
    return tac.new_game(record.rules, seed=record.seed, deck=record.deck)


def frames(
    record: tac.GameRecord, names: Sequence[str]
) -> tuple[Frames[tac.GameState, tac.Move], Text]:
    """The start and the piles after every move, with what each move did (drawn when shown);
    the final line."""
    total = len(record.moves)

    def draw(number: int, before: tac.GameState | None, state: tac.GameState) -> Frame:
        if before is None:
            return Frame(0, position(state, f"Tač · start · {plural(total, 'move')}", names))
        step = state.last_step
        assert step is not None
        return Frame(
            number, position(state, f"After move {number}", names), [_step_line(step, names)]
        )

    shown = Frames(_start(record), record.moves, draw)
    return shown, final_line(shown.last_state, names)


def final_line(state: tac.GameState, names: Sequence[str]) -> Text:
    """`Places ana 1 · ivo 2`, or `Not finished.`"""
    places = state.places()
    return Text(
        "Places " + " · ".join(f"{names[s]} {p}" for s, p in enumerate(places))
        if places
        else "Not finished.",
        style="bold green",
    )
