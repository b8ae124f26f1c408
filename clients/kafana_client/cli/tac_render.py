"""Drawing Tač for people: the central pile, each discard pile's top, closed piles as counts.

Every function returns rich text or renderables; printing is the caller's business. Nothing
here could show a closed pile: the wire view carries only their sizes.

>>> from kafana.v1 import state_pb2
>>> played = state_pb2.TacMove(play=state_pb2.TacPlay(card="5H"))
>>> move_phrase(state_pb2.Move(text="play X->P1", tac=played), ["ana", "bob"], 0).plain
'5♥ onto bob's discard pile'
"""

from __future__ import annotations

from collections.abc import Sequence

from kafana.v1 import events_pb2, state_pb2
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kafana_client.cli.render import (
    card_text,
    clock_line,
    deal_notice,
    seat_line,
    seat_names,
    timeout_notice,
)
from kafana_client.convert import current_seat


def _count(n: int) -> str:
    return f"{n} card{'s' if n != 1 else ''}"


def _target(target: str, names: Sequence[str], mover: int, viewer: int | None) -> str:
    if target == "C":
        return "the central pile"
    if target == "D":
        return "your own discard pile" if viewer == mover else "their own discard pile"
    seat = int(target[1:])
    return "your discard pile" if seat == viewer else f"{names[seat]}'s discard pile"


def move_phrase(
    move: state_pb2.Move,
    names: Sequence[str],
    mover: int,
    viewer: int | None = None,
    card: str = "",
) -> Text:
    """What a move does, in words: `5♥ onto bob's discard pile`, `call Tač! on ana`.

    `card` is the card it turned up or moved (an event's `step.card`); a play's structured
    form names its card too.
    """
    text = move.text
    card = card or move.tac.play.card
    if text == "flip":
        if card:
            return Text("turned up ") + card_text(card)
        return Text("flip: turn up the top card of your closed pile")
    if text.startswith("call P"):
        return Text("call ") + Text("Tač!", style="bold magenta")
    source, _, target = text[len("play ") :].partition("->")
    shown = card_text(card) if card else Text("the card")
    if source == "D":
        own = "your" if viewer == mover else "their"
        shown = shown + Text(f" from {own} discard pile")
    return shown + Text(" onto " + _target(target, names, mover, viewer))


def _offender(state: state_pb2.TableState) -> int | None:
    tv = state.tac
    return tv.pending_offender if tv.HasField("pending_offender") else None


def moves_list(
    moves: Sequence[state_pb2.Move], state: state_pb2.TableState, seat: int
) -> RenderableType:
    """The seat's moves numbered from 1, out-of-order ones marked, calls explained."""
    names = seat_names(state.info)
    texts = [m.text for m in moves]
    fits = any(t.startswith("play D->") for t in texts)
    placed = any(t.startswith("play X->") and t != "play X->D" for t in texts)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="bold cyan")
    grid.add_column()
    for number, move in enumerate(moves, start=1):
        line = move_phrase(move, names, seat, seat)
        if move.text.startswith("call P"):
            offender = _offender(state)
            who = names[offender] if offender is not None else "the offender"
            line += Text(f" on {who}: they broke the order and take a card from each of you")
        elif (move.text == "flip" and fits) or (move.text == "play X->D" and placed):
            line += Text("  (out of order: may be called Tač!)", style="yellow")
        elif move.text == "play X->D":
            line += Text(" (ends your turn)", style="dim")
        grid.add_row(f"{number})", line)
    return grid


def table_panel(
    state: state_pb2.TableState, title: str = "", received: float | None = None
) -> RenderableType:
    """The central pile, every seat's discard top and closed pile count, the turned-up card
    (`received`: when `state` arrived, for the clock; None: just now)."""
    info, tv = state.info, state.tac
    names = seat_names(info)
    viewer = tv.seat if tv.HasField("seat") else None
    current = current_seat(state)
    notice = deal_notice(info)
    lines: list[RenderableType] = [notice] if notice else []
    central = Text("Central pile: ", style="bold")
    if tv.central:
        central += card_text(tv.central[-1]) + Text(f"  ({_count(len(tv.central))})", style="dim")
    else:
        central += Text("(empty: it starts with an ace)", style="dim")
    lines.append(central)
    if tv.turned and current is not None:
        whose = "You have" if current == viewer else f"{names[current]} has"
        lines.append(Text(f"{whose} turned up: ", style="bold") + card_text(tv.turned))
    grid = Table(box=None, padding=(0, 1), show_edge=False)
    for column, justify in (
        ("", "left"),
        ("seat", "left"),
        ("discard top", "left"),
        ("discard", "right"),
        ("closed", "right"),
        ("holds", "right"),
    ):
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    for seat, name in enumerate(names):
        pile = tv.discards[seat].cards if seat < len(tv.discards) else []
        top = card_text(pile[-1]) if pile else Text("—", style="dim")
        label = name + (" (you)" if seat == viewer else "")
        if seat in tv.out_order:
            label += " — out"
        grid.add_row(
            "▶" if seat == current else "",
            Text(label, style="bold" if seat == current else ""),
            top,
            str(len(pile)),
            str(tv.closed_sizes[seat]) if seat < len(tv.closed_sizes) else "?",
            str(tv.held[seat]) if seat < len(tv.held) else "?",
        )
    lines.append(grid)
    offender = _offender(state)
    if offender is not None:
        lines.append(
            Text(f"{names[offender]} broke the order: anyone else may call Tač!", style="yellow")
        )
    clock = clock_line(state, viewer, received)
    if clock is not None:
        lines.append(clock)
    heading = title or f"Tač · table {info.table_id} · move {tv.move_count}"
    return Panel(Group(*lines), title=heading, title_align="left", border_style="magenta")


def event_lines(
    event: events_pb2.Event, before: state_pb2.TableState | None, viewer: int | None
) -> list[RenderableType]:
    """What one event means to a person: joins, moves in words, calls and penalties, outs."""
    state = event.state
    names = seat_names(state.info)

    def who(seat: int) -> str:
        return "You" if viewer is not None and seat == viewer else names[seat]

    seated = seat_line(event, names, who(event.seat))
    out: list[RenderableType] = [seated] if seated is not None else []
    if event.kind == events_pb2.EVENT_KIND_MOVE:
        step = event.step if event.HasField("step") else state.tac.last_step
        notice = timeout_notice(event, viewer)
        if notice is not None:
            out.append(notice)
        timed_out = event.reason == state_pb2.EVENT_REASON_TIMEOUT
        verb = " ran out of time; " if timed_out else " "
        if event.move.text.startswith("call P"):
            offender = _offender(before) if before is not None else None
            victim = who(offender) if offender is not None else "the offender"
            line = Text(who(event.seat), style="bold") + Text(" called ")
            line += Text("Tač!", style="bold magenta")
            line += Text(f" on {victim}: {_count(step.penalty)} penalty, the turn ends.")
            out.append(line)
        else:
            if step.turned_over:
                out.append(Text(f"{who(event.seat)} turned the discard pile over.", style="dim"))
            mover = event.seat
            phrase = move_phrase(event.move, names, mover, viewer, step.card)
            if event.move.text.startswith("play"):
                phrase = Text("played ") + phrase
            line = Text(who(mover), style="bold") + Text(verb) + phrase
            if step.offence:
                line += Text("  — out of order!", style="bold yellow")
            out.append(line)
        done = len(before.tac.out_order) if before is not None else 0
        for seat in state.tac.out_order[done:]:
            out.append(Text(f"  ★ {who(seat)} {'are' if seat == viewer else 'is'} out! ★"))
    if event.match_started:
        out.append(Text("All seats taken: the game begins.", style="bold green"))
    return out


def result_panel(state: state_pb2.TableState, viewer: int | None) -> RenderableType:
    """The end: places, cards still held, and who won."""
    result, tv = state.result, state.tac
    names = seat_names(state.info)
    if result.HasField("winner_side"):
        winner = result.winner_side
        headline = "You win!" if winner == viewer else f"{names[winner]} wins."
    else:
        stalled = result.reason == state_pb2.RESULT_REASON_STALLED
        headline = "A draw." if stalled else "No winner."
    lines: list[RenderableType] = [Text(headline, style="bold green")]
    places = list(result.places)
    if places:
        for seat in sorted(range(len(places)), key=lambda s: (places[s], s)):
            held = tv.held[seat] if seat < len(tv.held) else 0
            lines.append(Text(f"{places[seat]}. {names[seat]} ({_count(held)} left)"))
    lines.append(Text(result.detail, style="dim"))
    return Panel(Group(*lines), title="Game over", title_align="left", border_style="green")
