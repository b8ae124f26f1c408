"""What the service needs from a game: one small interface, one implementation per game.

The table logic (`tables.py`, `session.py`) and the wire conversion (`convert.py`) never ask
which game a table runs; they call its `Game`. States and moves are the game's own values,
opaque to the service.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

from google.protobuf.json_format import MessageToDict

from kafana.errors import InvalidInputError
from kafana.v1 import rules_pb2, state_pb2, storage_pb2


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


class GameRules(Protocol):
    """The part of a game's Rules the service uses."""

    @property
    def players(self) -> int:
        """Number of seats."""

    def to_json(self) -> str:
        """Canonical JSON of every switch."""


class Game(ABC):
    """One game the service can run at a table."""

    name: str = ""

    @abstractmethod
    def build_rules(self, spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> GameRules:
        """The Rules of a `RulesSpec` (`switches`: `switches_of(spec)`); errors name the switch."""

    @abstractmethod
    def start(self, stored: storage_pb2.StoredTable) -> Any:
        """The game at move 0 from the stored rules and seed or decks (validates them)."""

    @abstractmethod
    def players(self, state: Any) -> int:
        """Number of seats."""

    @abstractmethod
    def side_of(self, state: Any, seat: int) -> int:
        """The side a seat plays for."""

    @abstractmethod
    def current_seat(self, state: Any) -> int | None:
        """The seat to move (None once over)."""

    @abstractmethod
    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def legal(self, state: Any, seat: int) -> list[Any]:
        """The moves `seat` may make now (raises NotYourTurnError where the game says so)."""

    @abstractmethod
    def apply(self, state: Any, text: str, seat: int) -> tuple[Any, str]:
        """`seat` plays the move written `text`: (the new state, the canonical move text)."""

    @abstractmethod
    def replay(self, state: Any, text: str, seat: int) -> Any:
        """Apply a logged (already accepted) move."""

    @abstractmethod
    def default_move(self, state: Any) -> str:
        """The clock's move for the seat to move (raises KafanaError when there is none)."""

    @abstractmethod
    def move_message(self, state: Any, move: Any) -> state_pb2.Move:
        """One of `legal(state, seat)` on the wire (hidden cards never shown)."""

    @abstractmethod
    def played_message(self, after: Any, text: str) -> state_pb2.Move:
        """The move just played that led to `after`, on the wire."""

    def played_bytes(self, after: Any, text: str) -> bytes:
        """`played_message`, serialized (a game may cache it per move text)."""
        return self.played_message(after, text).SerializeToString()

    @abstractmethod
    def fill_view(self, out: state_pb2.TableState, state: Any, seat: int | None) -> None:
        """Set the game's view in `out`: what `seat` (None: a spectator) may know."""

    @abstractmethod
    def scores(self, state: Any) -> list[int]:
        """Points per side now ([] for a game that ranks seats instead)."""

    @abstractmethod
    def fill_result(self, out: state_pb2.Result, state: Any) -> str:
        """Scores, places and winner of a game played to its end; returns the reason."""

    @abstractmethod
    def winner(self, state: Any) -> int | None:
        """The winning side of a game played to its end (None: a draw or not over)."""

    @abstractmethod
    def forfeit_winner(self, state: Any, seat: int) -> int | None:
        """The side that wins when `seat` forfeits now."""

    @abstractmethod
    def record_text(self, state: Any) -> str:
        """The game's canonical, replayable record text."""
