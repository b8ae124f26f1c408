"""What the service needs from a game beyond its rules core: conversions, one class a game.

The table logic (`tables.py`, `session.py`) plays every game through its state's protocol
(`kafana.games.protocol.GameState`: seat to move, legal moves, apply, over, outcome, record).
A `TableGame` only converts: a `RulesSpec` to the game's Rules, a stored table to its start,
move text to the game's move, and the game's values to wire messages.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from kafana.errors import InvalidInputError
from kafana.games.protocol import GameState, Record
from kafana.v1 import rules_pb2, state_pb2, storage_pb2

AnyState = GameState[Any, object, Record]
"""A table's game state as the service holds it: its moves are the game's own (only the
game's `TableGame`, typed with them, reads one); views and records through the protocol."""

S = TypeVar("S", bound=AnyState)
M = TypeVar("M")


def _plain(value: Any) -> Any:
    """JSON numbers arrive as floats from a Struct; whole ones become ints again."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def switches_of(spec: rules_pb2.RulesSpec) -> dict[str, Any]:
    """The spec's extra switches as plain JSON values (whole numbers as ints)."""
    if not spec.HasField("switches"):
        return {}
    try:
        return dict(_plain(MessageToDict(spec.switches)))
    except ValueError as error:  # NaN or infinity: not JSON
        raise InvalidInputError(f"switches must be plain JSON values: {error}") from None


def set_present(out: Message, **fields: int | None) -> None:
    """Set the optional fields of `out` whose value is not None (None leaves one unset)."""
    for name, value in fields.items():
        if value is not None:
            setattr(out, name, value)


def seed_of(stored: storage_pb2.StoredTable) -> int | None:
    """A stored table's seed (None: it plays given decks only)."""
    return stored.seed if stored.HasField("seed") else None


class GameRules(Protocol):
    """The part of a game's Rules the service uses."""

    @property
    def players(self) -> int:
        """Number of seats."""
        ...

    def to_json(self) -> str:
        """Canonical JSON of every switch."""
        ...


class TableGame(ABC, Generic[S, M]):
    """One game at a table: the conversions between the wire and the game's state `S`."""

    name: str = ""

    @abstractmethod
    def build_rules(self, spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> GameRules:
        """The Rules of a `RulesSpec` (`switches`: `switches_of(spec)`); errors name the switch."""

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

    @abstractmethod
    def move_message(self, state: S, move: M) -> state_pb2.Move:
        """One of `state.legal_moves_for(seat)` on the wire (hidden cards never shown)."""

    @abstractmethod
    def played_message(self, after: S, text: str) -> state_pb2.Move:
        """The move just played that led to `after`, on the wire."""

    def played_bytes(self, after: S, text: str) -> bytes:
        """`played_message`, serialized (a game may cache it per move text)."""
        return self.played_message(after, text).SerializeToString()

    @abstractmethod
    def fill_view(self, out: state_pb2.TableState, state: S, seat: int | None) -> None:
        """Set the game's view in `out`: what `seat` (None: a spectator) may know."""

    @abstractmethod
    def scores(self, state: S) -> list[int]:
        """Points per side now, on the wire ([] for a game that ranks seats instead)."""

    @abstractmethod
    def fill_result(self, out: state_pb2.Result, state: S) -> None:
        """The game's figures of a finished table on the wire: scores, or places."""
