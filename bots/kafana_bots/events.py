"""Public events a bot is told of: every move played, every hand start and end, the match end."""

from __future__ import annotations

from dataclasses import dataclass

from kafana.games.tablic import Card, HandResult, Move


@dataclass(frozen=True)
class HandStarted:
    """A hand was dealt: its number and the four cards face up on the table."""

    hand_no: int
    table: tuple[Card, ...]


@dataclass(frozen=True)
class MovePlayed:
    """`seat` played `move` (captures are made face up, so the whole move is public)."""

    seat: int
    move: Move


@dataclass(frozen=True)
class HandEnded:
    """A hand was scored."""

    result: HandResult


@dataclass(frozen=True)
class MatchEnded:
    """The match is over: final points per side."""

    scores: tuple[int, ...]


Event = HandStarted | MovePlayed | HandEnded | MatchEnded
