"""Rules of Tač: one frozen object of independent switches."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from kafana.errors import InvalidInputError

PLAYERS_FOR_DECKS: dict[int, tuple[int, ...]] = {1: (2, 3, 4), 2: (2, 4, 8)}
"""The player counts each number of decks allows."""


@dataclass(frozen=True)
class Rules:
    """Every switch of Tač. `Rules()` is two players, one deck, the order strictly enforced.

    >>> Rules(players=3).extra_cards, Rules(players=8, decks=2).pile_size
    (1, 13)
    """

    players: int = 2
    decks: int = 1
    tac_calls: bool = False  # accept out-of-order moves; other players may call "Tač!"
    play_on: bool = False  # after the first player out, play on for every place
    stall_rounds: int = 104  # rounds without a card onto the central pile: the game is drawn

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def cards(self) -> int:
        """Cards in play: 52 per deck."""
        return 52 * self.decks

    @property
    def extra_cards(self) -> int:
        """Cards left over by an even deal: 1 (an ace to the centre) with 3 players, else 0."""
        return self.cards % self.players

    @property
    def pile_size(self) -> int:
        """Cards each closed pile is dealt."""
        return self.cards // self.players

    def with_switches(self, **switches: Any) -> Rules:
        """A copy with some switches changed (validated like any Rules)."""
        _check_names(switches)
        return replace(self, **switches)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every switch."""
        return asdict(self)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules:
        """Inverse of `to_dict`; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, dict):
            raise InvalidInputError("rules must be a JSON object")
        _check_names(data)
        return Rules(**data)

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no spaces."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Rules:
        """Parse `to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"rules are not valid JSON: {exc}") from None
        return Rules.from_dict(data)


def _check_names(switches: dict[str, Any]) -> None:
    unknown = set(switches) - {f.name for f in fields(Rules)}
    if unknown:
        raise InvalidInputError(f"unknown rule switch(es): {', '.join(sorted(unknown))}")


def _validate(rules: Rules) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise InvalidInputError(message)

    for f in fields(Rules):
        value = getattr(rules, f.name)
        if f.type == "bool":
            need(isinstance(value, bool), f"rule switch {f.name} must be true or false")
        else:
            need(
                isinstance(value, int) and not isinstance(value, bool),
                f"rule switch {f.name} must be a whole number",
            )
    need(rules.decks in PLAYERS_FOR_DECKS, f"decks must be 1 or 2, not {rules.decks}")
    allowed = PLAYERS_FOR_DECKS[rules.decks]
    need(
        rules.players in allowed,
        f"players must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} "
        f"with {rules.decks} deck{'s' if rules.decks > 1 else ''}, not {rules.players}",
    )
    need(
        1 <= rules.stall_rounds <= 100_000,
        f"stall_rounds must be between 1 and 100000, not {rules.stall_rounds}",
    )
