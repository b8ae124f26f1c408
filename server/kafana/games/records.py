"""What both games' records share: the line format (a header, then `key value` items), replay."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol, Self, TypeVar

from kafana.errors import InvalidInputError, KafanaError


def record_items(text: str, header: str, what: str) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, key, rest) of every item after `header`.

    Blank lines and `#` comments are skipped; line numbers count every line of `text`, so an
    error that names one points at the right line.
    """
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines or lines[0][1] != header:
        raise InvalidInputError(f"{what} starts with {header!r}")
    for number, line in lines[1:]:
        key, _, rest = line.partition(" ")
        yield number, key, rest


class Replayable(Protocol):
    """A state that a record's moves are applied to."""

    def apply(self, move: Any) -> Self:
        """The state after `move`."""
        ...


S = TypeVar("S", bound=Replayable)


def replay_moves(state: S, moves: Iterable[object]) -> S:
    """Apply a record's moves in order; a refused one is bad input naming its number and text."""
    for number, move in enumerate(moves, start=1):
        try:
            state = state.apply(move)
        except KafanaError as exc:
            raise InvalidInputError(f"record move {number} ({move}): {exc}") from None
    return state


def check_result(what: str, said: object, got: object) -> None:
    """Raise InvalidInputError when a record's stated result is not what its moves give."""
    if said is not None and said != got:
        raise InvalidInputError(f"record says {what} {said} but the moves give {got}")
