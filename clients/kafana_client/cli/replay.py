"""`kafana replay RECORD`: step through a match record move by move (Enter: next, q: quit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import click
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.v1 import state_pb2
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from kafana_client.cli import render, tac_replay
from kafana_client.cli.choice import Paced


def _cards(cards: Iterable[tablic.Card]) -> Text:
    return render.cards_text([c.text for c in sorted(cards)], "(empty)")


def position(state: tablic.MatchState, title: str) -> RenderableType:
    """The whole position: a record is public once the match is over, hands included."""
    rules = state.rules
    lines: list[RenderableType] = [Text("Table:  ", style="bold") + _cards(state.table)]
    for seat in range(rules.players):
        mark = "▶ " if seat == state.current_seat else "  "
        lines.append(Text(f"{mark}seat {seat}: ", style="bold") + _cards(state.hand(seat)))
    scores = " · ".join(f"side {side} {score}" for side, score in enumerate(state.scores))
    tablas = " ".join(str(state.tablas(side)) for side in range(rules.sides))
    lines.append(
        Text(
            f"Hand {state.hand_no + 1} · deck {state.deck_remaining} left · {scores} · "
            f"tablas this hand {tablas}",
            style="dim",
        )
    )
    return Panel(Group(*lines), title=title, title_align="left", border_style="blue")


def _move_line(seat: int, move: tablic.Move) -> Text:
    wire = state_pb2.Move(
        text=str(move), card=move.card.text, captured=[c.text for c in sorted(move.captured)]
    )
    return Text(f"seat {seat} played ", style="bold") + render.move_text(wire)


def step_through(
    record: tablic.MatchRecord, console: Console, ask: Callable[[str], str]
) -> tablic.MatchState:
    """Show the start, then one move per Enter until the end or `q`; returns the last state."""
    state = tablic.new_match(record.rules, seed=record.seed, decks=record.decks or None)
    total = len(record.moves)
    console.print(position(state, f"Start · {total} moves"))
    paced = Paced(record.moves, console, ask)
    for number, move in paced:
        seat = state.current_seat
        done = len(state.hand_results)
        tablas = [state.tablas(side) for side in range(state.rules.sides)]
        state = state.apply(move)
        console.print(_move_line(seat if seat is not None else 0, move))
        if len(state.hand_results) == done and any(
            state.tablas(side) > tablas[side] for side in range(state.rules.sides)
        ):
            console.print(Text("  ★ TABLA! ★", style="bold yellow"))
        for result in state.hand_results[done:]:
            console.print(
                Text(
                    f"Hand {result.hand + 1} scored: points {list(result.points)}, "
                    f"cards {list(result.cards)}, tablas {list(result.tablas)}",
                    style="bold cyan",
                )
            )
        console.print(position(state, f"After move {number}"))
    if paced.stopped:
        return state
    scores = " – ".join(map(str, state.scores))
    winner = state.winner
    console.print(
        Text(
            f"Final score {scores}"
            + (f": side {winner} wins." if winner is not None else " (not finished)."),
            style="bold green",
        )
    )
    return state


@click.command()
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def replay(record_file: Path) -> None:
    """Step through the match in RECORD_FILE (as saved by `kafana play --save`): Tablić or Tač."""
    console = Console(highlight=False)
    text = record_file.read_text()

    def ask(prompt: str) -> str:
        return console.input(prompt)

    try:
        if text.lstrip().startswith(tac.record.HEADER):
            tac_replay.step_through(tac.GameRecord.from_text(text), console, ask)
            return
        record = tablic.MatchRecord.from_text(text)
    except InvalidInputError as error:
        raise click.ClickException(f"{record_file}: {error}") from None
    step_through(record, console, ask)
