"""Drawing Tablić for people: cards with suit symbols and colours, the table, moves, scores.

Every function returns rich text or renderables; printing is the caller's business.

>>> card_text("10D").plain, card_text("AS").plain
('10♦', 'A♠')
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.games.cards import Card
from kafana.v1 import events_pb2, rules_pb2, state_pb2
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kafana_client.convert import current_seat, game_name, preset_name, switches_of, word

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
COLOURS = {"C": "bold bright_white", "D": "bold red", "H": "bold red", "S": "bold bright_white"}


def card_text(card: str) -> Text:
    """One card as `10♦` in its suit's colour (red for ♦ ♥)."""
    rank, suit = card[:-1], card[-1].upper()
    return Text(rank + SYMBOLS.get(suit, suit), style=COLOURS.get(suit, ""))


def cards_text(cards: Iterable[str], empty: str = "(none)") -> Text:
    """Cards separated by spaces (`empty` when there are none)."""
    items = list(cards)
    if not items:
        return Text(empty, style="dim")
    return Text(" ").join(card_text(c) for c in items)


def tablic_move(move: state_pb2.Move) -> state_pb2.TablicMove:
    """A Tablić move's structured form: as sent, or read from its text (a move given as text
    only); an unreadable text is the card "?"."""
    if move.HasField("tablic"):
        return move.tablic
    try:
        parsed = tablic.Move.parse(move.text)
    except InvalidInputError:
        return state_pb2.TablicMove(card="?")
    return state_pb2.TablicMove(
        card=parsed.card.text,
        captured=[c.text for c in sorted(parsed.captured)],
        joined=[c.text for c in sorted(parsed.joined)],
        build_value=parsed.build_value,
    )


def move_text(move: state_pb2.Move) -> Text:
    """`7♦ trail`, `K♣ takes K♦ K♥` or (`building`) `2♣ builds 7 on 5♦`."""
    played = tablic_move(move)
    out = card_text(played.card)
    if played.build_value:
        return out + Text(f" builds {played.build_value} on ") + cards_text(played.joined)
    if not played.captured:
        return out + Text(" trail", style="dim")
    return out + Text(" takes ") + cards_text(played.captured)


def builds_text(view: state_pb2.TablicView, names: Sequence[str]) -> Text:
    """`5♦ 2♣ = 7 (ana) · ...`: the builds on the table with their value and owner."""
    parts = [
        cards_text(b.cards) + Text(f" = {b.value} ({names[b.owner]})", style="bold")
        for b in view.builds
    ]
    return Text(" · ").join(parts)


def seat_names(info: state_pb2.TableInfo) -> list[str]:
    """A display name per seat (`seat N` when it has none)."""
    return [s.name or f"seat {s.seat}" for s in info.seats]


def side_names(info: state_pb2.TableInfo) -> list[str]:
    """A display name per side: its seats' names joined with `&`."""
    sides: dict[int, list[str]] = {}
    for seat, name in zip(info.seats, seat_names(info), strict=True):
        sides.setdefault(seat.side, []).append(name)
    return [" & ".join(sides[side]) for side in sorted(sides)]


def scores_text(info: state_pb2.TableInfo, view: state_pb2.TablicView) -> Text:
    """`ana 12 · greedy 9`: match points so far, plus this hand's cards taken and tablas."""
    parts = []
    for side, name in enumerate(side_names(info)):
        score = view.scores[side] if side < len(view.scores) else 0
        tablas = view.tablas[side] if side < len(view.tablas) else 0
        taken = len(view.captured[side].cards) if side < len(view.captured) else 0
        part = Text(f"{name} ", style="bold") + Text(str(score), style="bold cyan")
        extras = [f"{taken} cards"] if taken else []
        if tablas:
            extras.append(f"{tablas} tabla{'s' if tablas > 1 else ''}")
        if extras:
            part += Text(f" ({', '.join(extras)})", style="yellow" if tablas else "dim")
        parts.append(part)
    return Text(" · ").join(parts)


def deal_notice(info: state_pb2.TableInfo) -> Text | None:
    """A warning for a table whose creator chose the deal (a seed or decks), else None."""
    if not info.deal_chosen_by_creator:
        return None
    return Text(
        "The creator of this table chose its deal (a fixed seed or decks): they know every hand.",
        style="bold yellow",
    )


def table_panel(
    state: state_pb2.TableState, title: str = "", received: float | None = None
) -> RenderableType:
    """The table: face-up cards, the viewer's hand (if a seat), other hands' sizes, scores
    (`received`: when `state` arrived, time.time(), for the clock; None: just now)."""
    info, view = state.info, state.tablic
    names = seat_names(info)
    notice = deal_notice(info)
    lines: list[RenderableType] = [notice] if notice else []
    lines.append(Text("Table:     ", style="bold") + cards_text(view.table, "(empty)"))
    if view.builds:
        lines.append(Text("Builds:    ", style="bold") + builds_text(view, names))
    if view.HasField("seat"):
        lines.append(Text("Your hand: ", style="bold") + cards_text(view.hand, "(empty)"))
    others = [
        f"{names[seat]} {size} card{'s' if size != 1 else ''}"
        for seat, size in enumerate(view.hand_sizes)
        if not view.HasField("seat") or seat != view.seat
    ]
    lines.append(Text("Hands:     " + ", ".join(others), style="dim"))
    lines.append(
        Text(f"Hand {view.hand_no + 1} · deck {view.deck_remaining} left · ", style="dim")
        + scores_text(info, view)
    )
    clock = clock_line(state, view.seat if view.HasField("seat") else None, received)
    if clock is not None:
        lines.append(clock)
    heading = title or f"Tablić · table {info.table_id} · move {view.move_count}"
    return Panel(Group(*lines), title=heading, title_align="left", border_style="blue")


def moves_list(moves: Sequence[state_pb2.Move]) -> RenderableType:
    """The legal moves numbered from 1, captures first (most cards first), trails last."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="bold cyan")
    grid.add_column()
    for number, move in enumerate(moves, start=1):
        grid.add_row(f"{number})", move_text(move))
    return grid


def _rank(card: str) -> int:
    """A card's place in rank order (A 2 ... 10 J Q K, suits C D H S); unknown text last."""
    try:
        return Card.parse(card).index
    except InvalidInputError:
        return 52


def order_moves(moves: Iterable[state_pb2.Move]) -> list[state_pb2.Move]:
    """Captures first, most cards taken first; then builds, then trails, in rank order
    (A 2 ... K)."""

    def key(move: state_pb2.Move) -> tuple[int, int, int, str]:
        played = tablic_move(move)
        kind = 0 if played.captured else 1 if played.build_value else 2
        return (kind, -len(played.captured), _rank(played.card), move.text)

    return sorted(moves, key=key)


def deadline_of(state: state_pb2.TableState, received: float | None = None) -> float | None:
    """When (time.time()) the seat to move runs out of time: `received` (when `state`
    arrived; None: now) plus its `remaining_millis`; None without a clock or a seat to move."""
    to_move = current_seat(state)
    if to_move is None or to_move >= len(state.remaining_millis):
        return None
    start = time.time() if received is None else received
    return start + state.remaining_millis[to_move] / 1000


def clock_line(
    state: state_pb2.TableState, viewer: int | None, received: float | None = None
) -> Text | None:
    """`Clock 5 s a move: ▶ you 3 s left · greedy 5 s` (None on a table without a clock).

    The seat to move has what is left of its move, counted down from the state's
    `remaining_millis` since `received` (when it arrived; None: now); every other seat has a
    whole move.
    """
    millis = state.info.clock.move_millis
    if not millis:
        return None
    to_move = current_seat(state)
    deadline = deadline_of(state, received)
    names = seat_names(state.info)
    parts = []
    for seat, name in enumerate(names):
        label = "you" if seat == viewer else name
        if seat == to_move and deadline is not None:
            left = max(0.0, deadline - time.time())
            parts.append(Text(f"▶ {label} {left:.0f} s left", style="bold yellow"))
        else:
            parts.append(Text(f"{label} {_seconds(millis)}", style="dim"))
    return Text(f"Clock {_seconds(millis)} a move: ", style="dim") + Text(" · ").join(parts)


def _seconds(millis: int) -> str:
    return f"{millis / 1000:g} s"


def timeout_notice(event: events_pb2.Event, viewer: int | None) -> Text | None:
    """When the server played a move for the person (the clock ran out, or they were away)."""
    if event.kind != events_pb2.EVENT_KIND_MOVE or viewer is None or event.seat != viewer:
        return None
    if event.reason == state_pb2.EVENT_REASON_TIMEOUT:
        return Text("Your time ran out: the server played for you.", style="bold red")
    if event.reason == state_pb2.EVENT_REASON_DISCONNECT:
        return Text("You were away: the server played for you.", style="bold red")
    return None


def hand_score_table(info: state_pb2.TableInfo, score: state_pb2.HandScore) -> RenderableType:
    """One finished hand's score per side."""
    table = Table(title=f"Hand {score.hand + 1} scored", title_style="bold", show_lines=False)
    table.add_column("side", style="bold")
    for column in ("cards", "card points", "most cards", "tablas", "points"):
        table.add_column(column, justify="right")
    for side, name in enumerate(side_names(info)):
        table.add_row(
            name,
            str(score.cards[side]),
            str(score.card_points[side]),
            str(score.most_cards[side]),
            str(score.tablas[side]),
            Text(str(score.points[side]), style="bold cyan"),
        )
    return table


def seat_line(event: events_pb2.Event, names: Sequence[str], who: str) -> Text | None:
    """The line of an event of either game that is not a move: a seat taken or left, a
    forfeit (`who`: "You" or the seat's name), the table closed; None for a move."""
    if event.kind == events_pb2.EVENT_KIND_SEAT_TAKEN:
        return Text(f"{event.name or names[event.seat]} sat down at seat {event.seat}.")
    if event.kind == events_pb2.EVENT_KIND_SEAT_LEFT:
        return Text(f"Seat {event.seat} left the table.")
    if event.kind == events_pb2.EVENT_KIND_FORFEIT:
        why = word(state_pb2.EventReason, event.reason) or "no reason given"
        return Text(f"{who} forfeited ({why}).", style="bold red")
    if event.kind == events_pb2.EVENT_KIND_CLOSED:
        why = word(state_pb2.EventReason, event.reason)
        return Text(f"The table was closed{f' ({why})' if why else ''}.", style="bold red")
    return None


def event_lines(
    event: events_pb2.Event, before: state_pb2.TableState | None, viewer: int | None
) -> list[RenderableType]:
    """What one event means to a person: who joined, who played what, tablas, hand scores."""
    state = event.state
    names = seat_names(state.info)
    who = "You" if viewer is not None and event.seat == viewer else names[event.seat]
    seated = seat_line(event, names, who)
    out: list[RenderableType] = [seated] if seated is not None else []
    if event.kind == events_pb2.EVENT_KIND_MOVE:
        notice = timeout_notice(event, viewer)
        if notice is not None:
            out.append(notice)
        timed_out = event.reason == state_pb2.EVENT_REASON_TIMEOUT
        verb = " ran out of time; played " if timed_out else " played "
        line = Text(who, style="bold") + Text(verb) + move_text(event.move)
        out.append(line)
        old = list(before.tablic.tablas) if before is not None else []
        new = list(state.tablic.tablas)
        done = len(before.tablic.hand_results) if before is not None else 0
        if len(state.tablic.hand_results) == done and any(
            n > (old[i] if i < len(old) else 0) for i, n in enumerate(new)
        ):
            whom = "you" if who == "You" else who
            out.append(Text(f"  ★ TABLA for {whom}! ★", style="bold yellow"))
        for score in state.tablic.hand_results[done:]:
            out.append(hand_score_table(state.info, score))
            out.append(Text("Match: ") + scores_text(state.info, state.tablic))
    if event.match_started:
        out.append(Text("All seats taken: the match begins.", style="bold green"))
    return out


def ending(state: state_pb2.TableState) -> str:
    """How the match ended, in words: a scored match names the winner's score first."""
    result = state.result
    if result.reason == state_pb2.RESULT_REASON_SCORE and result.HasField("winner_side"):
        names = side_names(state.info)
        winner = result.winner_side
        others = [s for i, s in enumerate(result.scores) if i != winner]
        return f"{names[winner]} won {result.scores[winner]}-" + "-".join(map(str, others))
    return result.detail


def result_panel(state: state_pb2.TableState, viewer_side: int | None) -> RenderableType:
    """The end of the match: final scores and who won."""
    result = state.result
    names = side_names(state.info)
    scores = " – ".join(f"{names[i]} {s}" for i, s in enumerate(result.scores))
    if result.HasField("winner_side"):
        winner = result.winner_side
        if viewer_side is not None:
            headline = "You win!" if winner == viewer_side else f"{names[winner]} wins."
        else:
            headline = f"{names[winner]} wins."
    else:
        headline = "No winner."
    body = Group(
        Text(headline, style="bold green"),
        Text(f"Final score: {scores}"),
        Text(ending(state), style="dim"),
    )
    return Panel(body, title="Match over", title_align="left", border_style="green")


def rules_text(spec: rules_pb2.RulesSpec) -> str:
    """The rules in force in one line: `Tablić serbian, 2 players, to 101` or
    `Tač, 3 players, 1 deck, tac_calls` (switches that are on, for Tač)."""
    players = spec.players or 2
    if game_name(spec) == "tac":
        decks = spec.tac.decks or 1
        on = [name for name, value in switches_of(spec).items() if value is True]
        parts = [f"Tač, {players} players", f"{decks} deck{'s' if decks != 1 else ''}", *on]
        return ", ".join(parts)
    seats = "2 partnerships" if spec.partnerships else f"{players} players"
    target = f", to {spec.tablic.target}" if spec.tablic.HasField("target") else ""
    return f"Tablić {preset_name(spec)}, {seats}{target}"
