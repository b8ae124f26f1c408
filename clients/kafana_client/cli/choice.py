"""Reading a person's input: a move (a number from the list, or typed as text), Enter, q or ?.

>>> from kafana.v1 import state_pb2
>>> moves = [state_pb2.Move(text="7S"), state_pb2.Move(text="KC:KD")]
>>> read_choice("2", moves).move, read_choice("kc:kd", moves).move
('KC:KD', 'KC:KD')
>>> read_choice("9", moves).problem
'There is no move 9: choose a number from 1 to 2.'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.v1 import state_pb2

QUIT = frozenset({"q", "quit", "exit"})
HELP = frozenset({"?", "help"})
M = TypeVar("M")


@dataclass(frozen=True)
class Choice:
    """The move to send (canonical text), or the problem to tell the person, or quitting, or
    the help screen asked for."""

    move: str = ""
    problem: str = ""
    quit: bool = False
    help: bool = False


def read_choice(
    text: str,
    moves: Sequence[state_pb2.Move],
    parse: Callable[[str], object] = tablic.Move.parse,
    example: str = "KC:KD+KH",
) -> Choice:
    """Understand one line of input against the numbered legal moves.

    A move typed as text that is well formed but not in the list is still returned: the
    server is the judge and says why it is illegal. `parse` and `example` are the game's
    (Tablić by default; Tač: `tac.Move.parse`, "play X->C").
    """
    cleaned = text.strip()
    if cleaned.lower() in QUIT:
        return Choice(quit=True)
    if cleaned.lower() in HELP:
        return Choice(help=True)
    if not cleaned:
        return Choice(problem=f"Type a move number (1-{len(moves)}) or a move like {example}.")
    if cleaned.isdigit():
        number = int(cleaned)
        if not 1 <= number <= len(moves):
            return Choice(
                problem=f"There is no move {number}: choose a number from 1 to {len(moves)}."
            )
        return Choice(move=moves[number - 1].text)
    try:
        move = parse(cleaned)
    except InvalidInputError as error:
        like = "KC:KD+KH or 7S" if example == "KC:KD+KH" else example
        return Choice(
            problem=f"Mistyped: {cleaned!r} is neither a move number (1-{len(moves)}) "
            f"nor a move like {like} ({error})."
        )
    return Choice(move=str(move))
