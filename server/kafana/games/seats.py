"""What both games' states share: their rules, the seat to move, sides and seat checks."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from kafana.errors import InvalidInputError, MatchOverError, NotYourTurnError


class SeatRules(Protocol):
    """The part of a game's Rules every state reads."""

    @property
    def players(self) -> int:
        """Number of seats."""
        ...

    def side_of(self, seat: int) -> int:
        """The side a seat plays for."""
        ...


RulesT = TypeVar("RulesT", bound=SeatRules)
RulesT_co = TypeVar("RulesT_co", bound=SeatRules, covariant=True)
ViewT = TypeVar("ViewT")


class Setup(Protocol[RulesT_co]):
    """What is fixed for a whole game: at least its rules."""

    @property
    def rules(self) -> RulesT_co:
        """The rules of the game."""
        ...


class SeatedState(Generic[RulesT, ViewT]):
    """Base of a game's state: `_setup.rules`, `_current` (the seat to move, None: over) and
    `_view(seat)`, the game's view of a seat (None: a spectator)."""

    __slots__ = ()

    _setup: Setup[RulesT]
    _current: int | None

    @property
    def rules(self) -> RulesT:
        """The rules of this game."""
        return self._setup.rules

    @property
    def seats(self) -> int:
        """Number of seats."""
        return self._setup.rules.players

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or None once the game is over."""
        return self._current

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._current is None

    def side_of(self, seat: int) -> int:
        """The side a seat plays for."""
        return self._setup.rules.side_of(self._seat(seat))

    def view(self, seat: int) -> ViewT:
        """What `seat` may know."""
        return self._view(self._seat(seat))

    def public_view(self) -> ViewT:
        """What a spectator may know."""
        return self._view(None)

    def _view(self, seat: int | None) -> ViewT:
        raise NotImplementedError

    def _seat(self, seat: int) -> int:
        """`seat`, checked to be one of this table's."""
        n = self._setup.rules.players
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise InvalidInputError(f"no seat {seat!r} at a {n}-player table")
        return seat

    def _check_turn(self, seat: int) -> None:
        """Raise unless `seat` is the seat to move (MatchOverError once the game is over)."""
        if seat != self._current:
            if self._current is None:
                raise MatchOverError("the game is over: no more moves")
            self._seat(seat)
            raise NotYourTurnError(f"it is seat {self._current}'s turn, not seat {seat}'s")
