"""What the service needs from a game beyond its rules core: conversions, one class a game.

The table logic (`tables.py`, `session.py`) plays every game through its state's protocol
(`kafana.games.protocol.GameState`: seat to move, legal moves, apply, over, outcome, record).
A `TableGame` only converts: a `RulesSpec` to the game's Rules and back (the rules in force),
a stored table to its start, wire moves to the game's move text, and the game's values to wire
messages (moves, views, what an event changed, its figures in a result).
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from typing import Any, Generic, Protocol, Self, TypeVar

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from kafana.errors import InvalidInputError, InvalidRulesError
from kafana.games.protocol import GameState, Record
from kafana.v1 import events_pb2, rules_pb2, state_pb2, storage_pb2

AnyState = GameState[Any, object, Record]
"""A table's game state as the service holds it: its moves are the game's own (only the
game's `TableGame`, typed with them, reads one); views and records through the protocol."""

S = TypeVar("S", bound=AnyState)
M = TypeVar("M")
MessageT = TypeVar("MessageT", bound=Message)


def set_present(out: Message, **fields: int | None) -> None:
    """Set the optional fields of `out` whose value is not None (None leaves one unset)."""
    for name, value in fields.items():
        if value is not None:
            setattr(out, name, value)


@functools.cache
def _field_names(descriptor: Descriptor) -> tuple[str, ...]:
    """The names of a message type's fields, in declaration order."""
    return tuple(field.name for field in descriptor.fields)


def message_of(cls: type[MessageT], source: object, **given: Any) -> MessageT:
    """A `cls` message for a value it mirrors field by field (`HandScore` a `HandResult`, a
    rules branch its game's `Rules`): each field but the `given` ones is `source`'s attribute
    of the same name (None leaves an optional field unset)."""
    names = _field_names(cls.DESCRIPTOR)
    mirrored = {name: getattr(source, name) for name in names if name not in given}
    return cls(**mirrored, **given)


def seed_of(stored: storage_pb2.StoredTable) -> int | None:
    """A stored table's seed (None: it plays given decks only)."""
    return stored.seed if stored.HasField("seed") else None


SEAT_FIELDS = ("players", "partnerships")
"""`RulesSpec`'s own fields that a game's Rules also have."""


def rules_error(error: InvalidInputError, branch: Message) -> InvalidRulesError:
    """A rules core's refusal (a switch out of range, seats that do not fit) as INVALID_RULES,
    its `field` the spec field its message names (`rules.players`, `rules.tac.decks`...)."""
    if isinstance(error, InvalidRulesError):
        return error
    text = str(error)
    own = f"rules.{branch.DESCRIPTOR.name.removesuffix('Rules').lower()}"
    found = [
        (match.start(), name)
        for name in (*SEAT_FIELDS, *(f.name for f in branch.DESCRIPTOR.fields))
        if (match := re.search(rf"\b{name}\b", text)) is not None
    ]
    field = "rules"
    if found:
        name = min(found)[1]  # the first switch the message names
        field = f"rules.{name}" if name in SEAT_FIELDS else f"{own}.{name}"
    return InvalidRulesError(text, field=field)


def set_switches(branch: Message, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The switches a rules branch (`TablicRules`, `TacRules`) sets, by field name: exactly
    the fields `ListFields()` reports (an unset optional switch keeps the preset's value)."""
    return {f.name: value for f, value in branch.ListFields() if f.name not in skip}


def game_label(value: rules_pb2.Game.ValueType) -> str:
    """A `Game` value's name, or the number when it names none."""
    return rules_pb2.Game.Name(value) if value in rules_pb2.Game.values() else str(value)


def other_branch(spec: rules_pb2.RulesSpec, game: str, own: str) -> None:
    """Refuse a spec whose `variant` is another game's branch than `own` (naming the field)."""
    branch = spec.WhichOneof("variant")
    if branch is not None and branch != own:
        raise InvalidRulesError(
            f"rules.{branch} is set but rules.game is {game}: set rules.{own} (or nothing)",
            field=f"rules.{branch}",
        )


def wrong_move_branch(move: state_pb2.Move, own: str, game: str) -> None:
    """Refuse a wire move that carries another game's structured branch, or nothing at all."""
    branch = move.WhichOneof("game")
    if branch is not None and branch != own:
        raise InvalidInputError(
            f"move.{branch} is not a move of this table's game ({game}): "
            f"set move.text or move.{own}",
            field=f"move.{branch}",
        )
    if branch is None and not move.text.strip():
        raise InvalidInputError(f"the move is empty: set move.text or move.{own}", field="move")


class GameRules(Protocol):
    """The part of a game's Rules the service uses."""

    @property
    def players(self) -> int:
        """Number of seats."""
        ...

    def to_json(self) -> str:
        """Canonical JSON of every switch."""
        ...

    @classmethod
    def from_json(cls, text: str) -> Self:
        """The Rules of `to_json`'s text."""
        ...


class TableGame(ABC, Generic[S, M]):
    """One game at a table: the conversions between the wire and the game's state `S`."""

    name: str = ""
    """The game's name, also its `Move` branch (`move.tablic`, `move.tac`)."""
    label: str = ""
    """The game's name in messages ("Tablić")."""
    game: rules_pb2.Game.ValueType = rules_pb2.GAME_UNSPECIFIED
    """The game's `Game` enum value."""
    rules_type: type[GameRules]
    """The game's Rules class (`from_json` reads their canonical JSON)."""

    @abstractmethod
    def build_rules(self, spec: rules_pb2.RulesSpec) -> GameRules:
        """The Rules of a `RulesSpec` (its seats and its branch's set switches); errors name
        the field."""

    def rules_from_json(self, text: str) -> GameRules:
        """The Rules of their canonical JSON (`GameRules.to_json`)."""
        return self.rules_type.from_json(text)

    @abstractmethod
    def spec_of(self, rules: Any, spec: rules_pb2.RulesSpec) -> rules_pb2.RulesSpec:
        """The rules in force as a `RulesSpec`: `game` and every switch of the game's branch
        set (`spec`: the one the table was created with, for what Rules do not keep, such as
        Tablić's preset)."""

    @abstractmethod
    def start(self, stored: storage_pb2.StoredTable) -> S:
        """The game at move 0 from the stored rules and seed or decks (validates them)."""

    def max_decks(self, rules: Any) -> int:
        """The most explicit decks a table may be given: as many hands as its match can last
        (a game of one deal: 1)."""
        return 1

    @abstractmethod
    def parse_move(self, text: str, seat: int) -> M:
        """The move `seat` wrote as `text`."""

    def parse_canonical(self, text: str, seat: int) -> tuple[M, str]:
        """`parse_move` and the move's canonical text (`str` of it: what the log stores)."""
        move = self.parse_move(text, seat)
        return move, str(move)

    def move_text(self, move: state_pb2.Move, seat: int) -> str:
        """The text of a wire move `seat` sends: its text, or its structured branch (the one
        named as the game) as text; with both they must name the same move. Errors name the
        field."""
        wrong_move_branch(move, self.name, self.label)
        if move.WhichOneof("game") is None:  # else it is the game's own branch
            return move.text
        named = self.structured_move(getattr(move, self.name), seat)
        if move.text.strip() and self.parse_move(move.text, seat) != named:
            raise InvalidInputError(
                f"move.text and move.{self.name} name different moves", field="move"
            )
        return str(named)

    @abstractmethod
    def structured_move(self, branch: Any, seat: int) -> M:
        """The move a wire move's structured branch (`TablicMove`, `TacMove`) names, as
        `seat` sends it; errors name the field."""

    @abstractmethod
    def move_message(self, state: S, move: M) -> state_pb2.Move:
        """One of `state.legal_moves_for(seat)` on the wire (hidden cards never shown)."""

    @abstractmethod
    def played_message(self, after: S, text: str) -> state_pb2.Move:
        """The move just played that led to `after`, on the wire."""

    def played_bytes(self, after: S, text: str) -> bytes:
        """`played_message`, serialized (a game may cache it per move text)."""
        return self.played_message(after, text).SerializeToString()

    def fill_view(self, out: state_pb2.TableState, state: S, seat: int | None) -> None:
        """Set the game's view in `out` (its branch named as the game): what `seat` (None: a
        spectator) may know."""
        view = state.public_view() if seat is None else state.view(seat)
        getattr(out, self.name).CopyFrom(self.view_message(view))

    @abstractmethod
    def view_message(self, view: Any) -> Message:
        """A seat's or a spectator's view of the game's state on the wire (`TablicView`,
        `TacView`)."""

    @abstractmethod
    def fill_event(
        self,
        out: events_pb2.Event,
        before: S,
        after: S,
        seat: int | None,
        *,
        started: bool,
        moved: bool,
    ) -> None:
        """Set what the event from `before` to `after` changed in the game, as `seat` (None: a
        spectator) may know it: the cards it dealt (`started`: the match began with it), and
        for a move (`moved`) the game's account of it (a hand's score, a Tač step)."""

    @abstractmethod
    def scores(self, state: S) -> list[int]:
        """Points per side now, on the wire ([] for a game that ranks seats instead)."""

    @abstractmethod
    def fill_result(self, out: state_pb2.Result, state: S) -> None:
        """The game's figures of a finished table on the wire: scores, or places."""
