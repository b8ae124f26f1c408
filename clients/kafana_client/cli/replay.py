"""`kafana replay`'s drawing: step through a match record back and forth, with the seats' names.

The keys are `kafana_client.cli.navigate`'s: Enter next, b back, a number a move, h N a hand.
Names come from `--names`, from `# seat N: name` comment lines (as `kafana play --save` and
`kafana watch --save` write them); else `seat N`. The command itself (`kafana.cli.replay`)
also opens fair records and the lines of event and league exports.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence

import click
from kafana.games import tablic, tac
from kafana.v1 import state_pb2
from kafana_bots.analysis import review
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kafana_client.cli import render, tac_replay
from kafana_client.cli.navigate import Frame, Frames, navigate
from kafana_client.cli.words import plural

SEAT_COMMENT = re.compile(r"^#\s*seat\s+(\d+):\s*(.*)$")


def names_comment(names: Sequence[str]) -> str:
    """`# seat 0: ana` lines, for a saved record (its parser skips comments)."""
    return "".join(f"# seat {seat}: {name}\n" for seat, name in enumerate(names))


def names_in(text: str, players: int) -> list[str]:
    """The seat names a record's comments give (`seat N` for the others)."""
    found: dict[int, str] = {}
    for line in text.splitlines():
        match = SEAT_COMMENT.match(line.strip())
        if match and match.group(2).strip():
            found[int(match.group(1))] = match.group(2).strip()
    return [found.get(seat, f"seat {seat}") for seat in range(players)]


def _cards(cards: Iterable[tablic.Card]) -> Text:
    return render.cards_text([c.text for c in sorted(cards)], "(empty)")


def position(state: tablic.MatchState, title: str, names: Sequence[str] = ()) -> RenderableType:
    """The whole position: a record is public once the match is over, hands included."""
    rules = state.rules
    names = list(names) or [f"seat {s}" for s in range(rules.players)]
    lines: list[RenderableType] = [Text("Table:  ", style="bold") + _cards(state.table)]
    for seat in range(rules.players):
        mark = "▶ " if seat == state.current_seat else "  "
        lines.append(Text(f"{mark}{names[seat]}: ", style="bold") + _cards(state.hand(seat)))
    sides = _sides(rules, names)
    scores = " · ".join(f"{sides[side]} {score}" for side, score in enumerate(state.scores))
    tablas = " ".join(str(state.tablas(side)) for side in range(rules.sides))
    lines.append(
        Text(
            f"Hand {state.hand_no + 1} · deck {state.deck_remaining} left · {scores} · "
            f"tablas this hand {tablas}",
            style="dim",
        )
    )
    return Panel(Group(*lines), title=title, title_align="left", border_style="blue")


def _sides(rules: tablic.Rules, names: Sequence[str]) -> list[str]:
    by_side: dict[int, list[str]] = {}
    for seat in range(rules.players):
        by_side.setdefault(rules.side_of(seat), []).append(names[seat])
    return [" & ".join(by_side[side]) for side in sorted(by_side)]


def _move_line(name: str, move: tablic.Move) -> Text:
    played = state_pb2.TablicMove(
        card=move.card.text, captured=[c.text for c in sorted(move.captured)]
    )
    wire = state_pb2.Move(text=str(move), tablic=played)
    return Text(f"{name} played ", style="bold") + render.move_text(wire)


def frames(
    record: tablic.MatchRecord, names: Sequence[str]
) -> tuple[Frames[tablic.MatchState, tablic.Move], Text]:
    """The start and the position after every move, with what each move did (drawn when
    shown); the final line."""
    start = tablic.new_match(record.rules, seed=record.seed, decks=record.decks or None)
    total = len(record.moves)

    def draw(number: int, before: tablic.MatchState | None, state: tablic.MatchState) -> Frame:
        if before is None:
            return Frame(0, position(state, f"Start · {plural(total, 'move')}", names), hand=1)
        seat = before.current_seat if before.current_seat is not None else 0
        done = len(before.hand_results)
        lines: list[RenderableType] = [_move_line(names[seat], record.moves[number - 1])]
        if len(state.hand_results) == done and any(
            state.tablas(side) > before.tablas(side) for side in range(state.rules.sides)
        ):
            lines.append(Text("  ★ TABLA! ★", style="bold yellow"))
        for result in state.hand_results[done:]:
            lines.append(
                Text(
                    f"Hand {result.hand + 1} scored: points {list(result.points)}, "
                    f"cards {list(result.cards)}, tablas {list(result.tablas)}",
                    style="bold cyan",
                )
            )
        panel = position(state, f"After move {number}", names)
        return Frame(number, panel, lines, hand=state.hand_no + 1)

    shown = Frames(start, record.moves, draw, hand=lambda state: state.hand_no + 1)
    return shown, final_line(shown.last_state, names)


def final_line(state: tablic.MatchState, names: Sequence[str]) -> Text:
    """`Final score 122 – 78: ana wins.`"""
    scores = " – ".join(map(str, state.scores))
    winner = state.winner
    sides = _sides(state.rules, names)
    return Text(
        f"Final score {scores}"
        + (f": {sides[winner]} wins." if winner is not None else " (not finished)."),
        style="bold green",
    )


def step_through(
    record: tablic.MatchRecord | tac.GameRecord,
    console: Console,
    ask: Callable[[str], str],
    names: Sequence[str] = (),
) -> int:
    """Navigate the record of either game (see `navigate`); the number of the move shown last."""
    names = list(names) or [f"seat {s}" for s in range(record.rules.players)]
    if isinstance(record, tac.GameRecord):
        tac_frames, tac_ending = tac_replay.frames(record, names)
        return navigate(tac_frames, console, ask, tac_ending)
    shown, ending = frames(record, names)
    return navigate(shown, console, ask, ending)


def print_review(
    record: tablic.MatchRecord,
    console: Console,
    names: Sequence[str],
    seats: set[int] | None,
    budget_ms: float,
) -> None:
    """The engine's review: each move, the engine's choice and what the move cost."""
    table = Table(title="Game review: the engine's choice at every move", title_justify="left")
    for column in ("move", "seat", "played", "engine", "cost", "how"):
        table.add_column(column, justify="right" if column in ("move", "cost") else "left")
    totals: dict[int, float] = {}
    reviewed = review(record, seats, budget_ms=budget_ms, rng=random.Random(0))
    for item in reviewed:
        cost = item.cost
        totals[item.seat] = totals.get(item.seat, 0.0) + cost
        best = item.analysis.best
        table.add_row(
            str(item.number),
            names[item.seat],
            str(item.played),
            "=" if best == item.played else str(best),
            f"{cost:.1f}" if cost >= 0.05 else "",
            item.analysis.method,
        )
    console.print(table)
    for seat, total in sorted(totals.items()):
        moves = sum(1 for r in reviewed if r.seat == seat)
        agreed = sum(1 for r in reviewed if r.seat == seat and r.analysis.best == r.played)
        console.print(
            f"{names[seat]}: {agreed} of {moves} moves as the engine would; "
            f"{total:.1f} points of margin given up in all"
        )


def show_record(
    text: str,
    console: Console,
    ask: Callable[[str], str],
    *,
    names: Sequence[str] | None = None,
    reviewing: bool = False,
    seat: int | None = None,
    budget_ms: float = 100.0,
) -> None:
    """Step through the match record `text` (Tablić or Tač) with `ask`'s answers, or with
    `reviewing` print the engine's review (Tablić; `seat`: only that seat's moves).

    Seat names: `names`, else the record's `# seat N: name` comments, else `seat N`. A record
    that does not parse raises InvalidInputError; a wrong `names` or `seat`, click's
    BadParameter; a review of Tač, ClickException."""
    if text.lstrip().startswith(tac.record.HEADER):
        if reviewing:
            raise click.ClickException("--review reviews Tablić matches")
        record = tac.GameRecord.from_text(text)
        seat_names = names or names_in(text, record.rules.players)
        step_through(record, console, ask, _fit(seat_names, record.rules.players))
        return
    match = tablic.MatchRecord.from_text(text)
    seat_names = _fit(names or names_in(text, match.rules.players), match.rules.players)
    if reviewing:
        if seat is not None and seat >= match.rules.players:
            raise click.BadParameter(
                f"seat {seat} is not a seat of this match (0..{match.rules.players - 1})",
                param_hint="--seat",
            )
        print_review(match, console, seat_names, None if seat is None else {seat}, budget_ms)
        return
    step_through(match, console, ask, seat_names)


def _fit(names: Sequence[str], players: int) -> list[str]:
    if len(names) != players:
        raise click.BadParameter(f"{len(names)} names for {players} seats", param_hint="--names")
    return list(names)
