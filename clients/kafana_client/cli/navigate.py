"""Stepping through a replay back and forth: one frame per move, jumps to a move or a hand.

Keys (one line each): Enter or `n` next move, `b` back one, a number goes to that move
(`0`: the start), `h N` to the first move of hand N, `e` the end, `s` the start, `q` quit,
`?` these keys.

>>> parse_key("h 3"), parse_key("12"), parse_key(""), parse_key("b")
(('hand', 3), ('move', 12), ('step', 1), ('step', -1))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from kafana.games.protocol import GameState
from rich.console import Console, RenderableType
from rich.text import Text

KEYS = (
    "Enter/n: next move · b: back · N: go to move N · h N: go to hand N · "
    "s: start · e: end · q: quit"
)


@dataclass(frozen=True)
class Frame:
    """The position after `number` moves: what the last move did, and the position."""

    number: int
    panel: RenderableType
    lines: list[RenderableType] = field(default_factory=list)
    hand: int | None = None
    """The hand (from 1) this position is in (None: a game without hands)."""


S = TypeVar("S", bound=GameState[Any, Any, Any])
M = TypeVar("M")


class Frames(Generic[S, M]):
    """The frames of a game replayed from `start` through `moves`, each drawn when it is shown
    (`draw(number, state before the move or None for the start, state after)`). Drawing them
    all first took 12 s and 280 MB for a record of 37,000 moves (replaying it, 0.16 s), and
    the longest legitimate records have about twenty times as many. A state is kept every
    `EVERY` moves; a frame replays from the nearest one."""

    EVERY = 64

    def __init__(
        self,
        start: S,
        moves: Sequence[M],
        draw: Callable[[int, S | None, S], Frame],
        hand: Callable[[S], int | None] = lambda state: None,
    ) -> None:
        self._moves, self._draw = moves, draw
        self._kept = [start]
        self.hands = [hand(start)]
        """The hand (from 1) of each position, or None: what `h N` jumps by."""
        state = start
        for number, move in enumerate(moves, start=1):
            state = state.apply(move)
            if number % self.EVERY == 0:
                self._kept.append(state)
            self.hands.append(hand(state))
        self.last_state = state

    def __len__(self) -> int:
        return len(self._moves) + 1

    def state(self, number: int) -> S:
        """The state after `number` moves."""
        state = self._kept[number // self.EVERY]
        for move in self._moves[number // self.EVERY * self.EVERY : number]:
            state = state.apply(move)
        return state

    def __getitem__(self, number: int) -> Frame:
        if not 0 <= number < len(self):
            raise IndexError(number)
        if number == 0:
            return self._draw(0, None, self._kept[0])
        before = self.state(number - 1)
        return self._draw(number, before, before.apply(self._moves[number - 1]))


def parse_key(text: str) -> tuple[str, int]:
    """What a line asks for: ("step", ±1), ("move", N), ("hand", N), ("quit", 0), ("help", 0),
    ("start", 0), ("end", 0), or ("unknown", 0)."""
    cleaned = text.strip().lower()
    simple = {
        "": ("step", 1),
        "n": ("step", 1),
        "next": ("step", 1),
        "b": ("step", -1),
        "back": ("step", -1),
        "p": ("step", -1),
        "q": ("quit", 0),
        "quit": ("quit", 0),
        "s": ("start", 0),
        "e": ("end", 0),
        "?": ("help", 0),
        "help": ("help", 0),
    }
    if cleaned in simple:
        return simple[cleaned]
    if cleaned.isdigit():
        return ("move", int(cleaned))
    if cleaned.startswith("h") and cleaned[1:].strip().isdigit():
        return ("hand", int(cleaned[1:].strip()))
    return ("unknown", 0)


def _hand_start(hands: Sequence[int | None], hand: int) -> int | None:
    for index, at in enumerate(hands):
        if at == hand and (index == 0 or hands[index - 1] != hand):
            return index
    return None


def navigate(
    frames: Frames[S, M],
    console: Console,
    ask: Callable[[str], str],
    ending: RenderableType | None = None,
) -> int:
    """Show frames as asked until `q` or the end of input; the index of the last one shown.

    `ending` is shown on arriving at the last frame.
    """
    last = len(frames) - 1
    at = 0
    console.print(frames[0].panel)
    console.print(Text(KEYS, style="dim"))
    while True:
        try:
            answer = ask(f"move {at}/{last} (Enter: next, b: back, N, h N, q) > ")
        except EOFError:
            answer = "q"
        kind, value = parse_key(answer)
        target = at
        if kind == "quit":
            console.print("Stopped.")
            return at
        if kind == "help":
            console.print(Text(KEYS, style="dim"))
            continue
        if kind == "step":
            target = at + value
        elif kind == "move":
            target = value
        elif kind == "start":
            target = 0
        elif kind == "end":
            target = last
        elif kind == "hand":
            found = _hand_start(frames.hands, value)
            if found is None:
                hands = sorted({h for h in frames.hands if h is not None})
                console.print(Text(_no_hand(value, hands), style="bold red"))
                continue
            target = found
        else:
            console.print(Text(f"Not a key: {answer.strip()!r}. {KEYS}", style="bold red"))
            continue
        if not 0 <= target <= last:
            where = "the start" if target < 0 else "the end"
            console.print(Text(f"That is past {where} (moves 0 to {last}).", style="yellow"))
            continue
        if target == at and kind == "step":
            continue
        at = target
        frame = frames[at]
        if kind != "step" or value != 1:
            console.print(Text(f"— move {at} of {last} —", style="bold"))
        for line in frame.lines:
            console.print(line)
        console.print(frame.panel)
        if at == last and ending is not None:
            console.print(ending)


def _no_hand(hand: int, hands: list[int]) -> str:
    if not hands:
        return "This game has no hands: go to a move by its number."
    return f"There is no hand {hand}: hands {hands[0]} to {hands[-1]}."
