"""What both games' records share: the line format (a header, then `key value` items), the
record as a table of its items (`TextRecord`), replay."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from kafana.errors import InvalidInputError, KafanaError
from kafana.games.cards import Card


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


T = TypeVar("T")

MAX_DEPTH = 64
"""How deep JSON read from a record's line or an export's line may nest (what Kafana writes
nests three deep). Deeper is refused before anything recurses into it: Python's own limit
counts the frames of the whole stack, so JSON just under it parses and then breaks the next
function that walks it (`str`, `json.dumps`)."""


JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, its escapes included; one never closed runs to the end of the text. Every
quote a search stops at starts a match that cannot fail: no backtracking, no search again
from inside a string, so linear (and no recursion)."""
NOT_BRACKET = re.compile(r"[^\[\]{}]+")
NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest, counted without parsing it (nor
    recursing): brackets inside strings do not count. Exact for JSON; for text that is none,
    a guess that does no harm (the parser refuses it either way).

    >>> json_depth('{"a": [1, "]]"], "b": {}}'), json_depth("7"), json_depth("[" * 100_000)
    (2, 0, 100000)
    """
    brackets = NOT_BRACKET.sub("", JSON_STRING.sub("", text))
    return max(accumulate(map(NESTING.__getitem__, brackets), initial=0))


def json_text(data: bytes | bytearray) -> str:
    """JSON bytes as text, decoded as `json.loads` decodes them (UTF-8, or UTF-16/32 by their
    form); UnicodeDecodeError when they are none of these."""
    return bytes(data).decode(json.detect_encoding(data), "surrogatepass")


def json_value(text: str | bytes) -> Any:
    """`json.loads(text)`, nested at most `MAX_DEPTH` deep: InvalidInputError `nested too
    deeply` past it; JSONDecodeError (a ValueError) when `text` is no JSON. Parsed first (the
    C parser refuses what is no JSON, or nests past Python's limit, at once), then JSON that
    parsed is measured (`json_depth`: no recursion) before anything walks it. Bytes are
    decoded as `json.loads` decodes them (UTF-8, or UTF-16/32 by their form).

    >>> json_value('{"a": [1, [2]]}')
    {'a': [1, [2]]}
    >>> json_value("[" * 100_000)
    Traceback (most recent call last):
    ...
    kafana.errors.InvalidInputError: nested too deeply
    """
    if isinstance(text, bytes | bytearray):
        text = json_text(text)
    try:
        value = json.loads(text)
    except RecursionError:
        raise InvalidInputError("nested too deeply") from None
    if isinstance(value, dict | list) and json_depth(text) > MAX_DEPTH:
        raise InvalidInputError("nested too deeply")
    return value


class RecordItems:
    """A record's items by key, each parsed when asked for (an error names its line)."""

    def __init__(self, text: str, header: str, what: str, keys: Collection[str]) -> None:
        self._items: dict[str, list[tuple[int, str]]] = {}
        for number, key, rest in record_items(text, header, what):
            if key not in keys:
                raise InvalidInputError(f"record line {number}: unknown item {key!r}")
            self._items.setdefault(key, []).append((number, rest))

    def every(self, key: str, parse: Callable[[str], T]) -> tuple[T, ...]:
        """Every item of `key`, in order, parsed; an item that does not parse (its JSON nested
        too deeply to read included) is InvalidInputError naming its line."""
        out = []
        for number, rest in self._items.get(key, ()):
            try:
                out.append(parse(rest))
            except (InvalidInputError, ValueError) as exc:
                raise InvalidInputError(f"record line {number}: {exc}") from None
            except RecursionError:  # JSON (rules, a position) nested past Python's stack
                raise InvalidInputError(
                    f"record line {number}: the {key} line is not valid (nested too deeply)"
                ) from None
        return tuple(out)

    def last(self, key: str, parse: Callable[[str], T]) -> T | None:
        """The last item of `key`, parsed (None: there is none)."""
        found = self.every(key, parse)
        return found[-1] if found else None

    def required(self, key: str, parse: Callable[[str], T]) -> T:
        """The last item of `key`, parsed; InvalidInputError when there is none."""
        found = self.last(key, parse)
        if found is None:
            raise InvalidInputError(f"the record has no {key} line")
        return found


def numbers(text: str) -> tuple[int, ...]:
    """Whole numbers separated by spaces (a `scores` or `places` item)."""
    return tuple(int(x) for x in text.split())


def numbers_text(values: tuple[int, ...] | None) -> str | None:
    """The text of a `scores` or `places` item (None: no item)."""
    return None if values is None else " ".join(map(str, values))


def record_text(header: str, items: Iterable[tuple[str, object]]) -> str:
    """The text of a record: `header`, then one `key value` line per item whose value is not
    None; ends with a newline."""
    lines = [header, *(f"{key} {value}" for key, value in items if value is not None)]
    return "\n".join(lines) + "\n"


def cards_text(cards: Iterable[Card]) -> str:
    """The text of a `deck` item: the cards' texts, separated by spaces."""
    return " ".join(card.text for card in cards)


@dataclass(frozen=True)
class Item(Generic[T]):
    """One kind of record line: its `key`, the record's field it fills (`name`), how its text
    is read and written; `many`: a line per element of a tuple field, in order."""

    key: str
    name: str
    parse: Callable[[str], T]
    text: Callable[[T], object] = str
    many: bool = False
    required: bool = False

    def texts(self, value: Any) -> Iterator[object]:
        """The item texts of the field's `value` (none for None)."""
        for one in value if self.many else (value,):
            if one is not None:
                yield self.text(one)

    def read(self, items: RecordItems) -> Any:
        """The field's value from a record's items (an error names the line)."""
        if self.many:
            return items.every(self.key, self.parse)
        if self.required:
            return items.required(self.key, self.parse)
        return items.last(self.key, self.parse)


def game_items(
    rules: Callable[[str], T],
    rules_text: Callable[[T], str],
    move: Callable[[str], object],
    *source: Item[Any],
    result: str,
) -> tuple[Item[Any], ...]:
    """A game record's items: its rules (read by `rules`, written by `rules_text`), a seed,
    the game's `source` items (decks, a position), one line a move (read by `move`), and
    `result` (the numbers the moves must give: `scores`, `places`)."""
    return (
        Item("rules", "rules", rules, rules_text, required=True),
        Item("seed", "seed", int),
        *source,
        Item("move", "moves", move, many=True),
        Item(result, result, numbers, numbers_text),
    )


class TextRecord:
    """A record whose fields are its `ITEMS`, written in that order after `HEADER`.

    A game's record is a frozen dataclass with this base and three class constants; the text
    form and its parser come from here."""

    HEADER: ClassVar[str]
    WHAT: ClassVar[str]
    """How a parse error names the record (`a match record`)."""
    ITEMS: ClassVar[tuple[Item[Any], ...]]

    def to_text(self) -> str:
        """The canonical text form (ends with a newline)."""
        return record_text(
            self.HEADER,
            [
                (item.key, text)
                for item in self.ITEMS
                for text in item.texts(getattr(self, item.name))
            ],
        )

    @classmethod
    def from_text(cls, text: str) -> Self:
        """Parse `to_text` output; errors name the line."""
        items = RecordItems(text, cls.HEADER, cls.WHAT, [item.key for item in cls.ITEMS])
        return cls(**{item.name: item.read(items) for item in cls.ITEMS})


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


def score_detail(winner: int | None, scores: Iterable[int]) -> str:
    """`side 1 won 108-94`: the winner's score first, then the other sides' in side order.

    >>> score_detail(1, [94, 108]), score_detail(2, [5, 7, 11]), score_detail(None, [9, 9])
    ('side 1 won 108-94', 'side 2 won 11-5-7', 'drawn 9-9')
    """
    figures = list(scores)
    if winner is None or not 0 <= winner < len(figures):
        return "drawn " + "-".join(map(str, figures))
    rest = figures[:winner] + figures[winner + 1 :]
    return f"side {winner} won " + "-".join(map(str, [figures[winner], *rest]))
