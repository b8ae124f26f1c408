"""Rules: one frozen object of independent switches; presets are named combinations."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from functools import cached_property
from typing import Any

from kafana.errors import InvalidInputError

PRESETS = ("serbian", "wild_jack", "tabinet", "tablanette")

_SERBIAN_POINTS = (("A", 1), ("10", 1), ("J", 1), ("Q", 1), ("K", 1), ("10D", 1), ("2C", 1))
_WILD_JACK_POINTS = (("A", 1), ("10D", 3), ("2C", 2))


@dataclass(frozen=True)
class Rules:
    """Every switch of Tablić. `Rules()` is `serbian` for two players.

    Card points are (pattern, points) pairs: a rank (`"A"`, `"10"`) applies to all four suits,
    a card (`"10D"`) to that card; a card's points are the sum of the pairs that match it.
    """

    players: int = 2
    partnerships: bool = False
    ace_high: bool = True  # an ace captures and is captured as 1 or 11
    wild_jack: bool = False  # a played J takes the whole table; a J on the table only by a J
    jack_value: int = 12
    queen_value: int = 13
    king_value: int = 14
    royals_by_rank_only: bool = False  # Q and K capture, and are captured, by rank only
    multi_group: bool = True  # several disjoint groups in one capture
    card_points: tuple[tuple[str, int], ...] = _SERBIAN_POINTS
    most_cards_points: int = 3
    tabla_points: int = 1
    last_card_tabla: bool = True  # a tabla made by the last card of a hand counts
    jack_off_opening_table: bool = False  # a J among the 4 opening cards goes under the deck
    target: int = 101
    must_capture: bool = False
    rank_priority: bool = False  # a card that can take by rank must take a same-rank card
    most_cards_tie_to_last: bool = False  # a most-cards tie goes to the last capturing side

    def __post_init__(self) -> None:
        if isinstance(self.card_points, list):
            object.__setattr__(
                self, "card_points", tuple((str(p), int(v)) for p, v in self.card_points)
            )
        _validate(self)

    @staticmethod
    def preset(name: str, players: int = 2, partnerships: bool = False, **switches: Any) -> Rules:
        """A named preset for 2, 3 or 4 players (4 may be 2 partnerships), then overrides."""
        if name not in PRESETS:
            raise InvalidInputError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
        base: dict[str, Any] = {"players": players, "partnerships": partnerships}
        if name == "serbian":
            base["target"] = 51 if players == 4 and not partnerships else 101
        else:
            base |= {
                "wild_jack": True,
                "jack_off_opening_table": True,
            }
            if name in ("wild_jack", "tabinet"):
                base |= {
                    "ace_high": False,
                    "queen_value": 12,
                    "king_value": 13,
                    "royals_by_rank_only": True,
                    "multi_group": False,
                    "card_points": _WILD_JACK_POINTS,
                    "last_card_tabla": False,
                    "target": 101 if name == "wild_jack" else 151,
                }
            else:
                base["target"] = 251
        unknown = set(switches) - {f.name for f in fields(Rules)}
        if unknown:
            raise InvalidInputError(f"unknown rule switch(es): {', '.join(sorted(unknown))}")
        return Rules(**(base | switches))

    def with_switches(self, **switches: Any) -> Rules:
        """A copy with some switches changed (validated like any Rules)."""
        unknown = set(switches) - {f.name for f in fields(Rules)}
        if unknown:
            raise InvalidInputError(f"unknown rule switch(es): {', '.join(sorted(unknown))}")
        return replace(self, **switches)

    @property
    def sides(self) -> int:
        """How many sides score: players, or 2 with partnerships."""
        return 2 if self.partnerships else self.players

    def side_of(self, seat: int) -> int:
        """The side a seat plays for (seats 0 and 2 against 1 and 3 with partnerships)."""
        return seat % 2 if self.partnerships else seat

    @cached_property
    def points_by_index(self) -> tuple[int, ...]:
        """Points of each card, indexed by `Card.index`."""
        from kafana.games.tablic.cards import CARDS

        return tuple(
            sum(p for pattern, p in self.card_points if pattern in (c.text, c.rank_text))
            for c in CARDS
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every switch."""
        data = asdict(self)
        data["card_points"] = [list(pair) for pair in self.card_points]
        return data

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules:
        """Inverse of `to_dict`; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, dict):
            raise InvalidInputError("rules must be a JSON object")
        unknown = set(data) - {f.name for f in fields(Rules)}
        if unknown:
            raise InvalidInputError(f"unknown rule switch(es): {', '.join(sorted(unknown))}")
        values = dict(data)
        if "card_points" in values:
            try:
                values["card_points"] = tuple((str(p), int(v)) for p, v in values["card_points"])
            except (TypeError, ValueError) as exc:
                message = f"card_points must be [pattern, points] pairs: {exc}"
                raise InvalidInputError(message) from None
        return Rules(**values)

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


def _validate(rules: Rules) -> None:
    from kafana.games.tablic.cards import RANKS, SUITS

    def need(ok: bool, message: str) -> None:
        if not ok:
            raise InvalidInputError(message)

    for f in fields(Rules):
        value = getattr(rules, f.name)
        if f.type in ("bool",):
            need(isinstance(value, bool), f"rule switch {f.name} must be true or false")
        elif f.type in ("int",):
            need(
                isinstance(value, int) and not isinstance(value, bool),
                f"rule switch {f.name} must be a whole number",
            )
    need(rules.players in (2, 3, 4), f"players must be 2, 3 or 4, not {rules.players}")
    need(
        not rules.partnerships or rules.players == 4,
        "partnerships need 4 players",
    )
    for name in ("jack_value", "queen_value", "king_value"):
        value = getattr(rules, name)
        need(2 <= value <= 20, f"{name} must be between 2 and 20, not {value}")
    need(1 <= rules.target <= 100_000, f"target must be between 1 and 100000, not {rules.target}")
    for name in ("most_cards_points", "tabla_points"):
        value = getattr(rules, name)
        need(0 <= value <= 100, f"{name} must be between 0 and 100, not {value}")
    cards = {r + s for r in RANKS for s in SUITS}
    for pattern, points in rules.card_points:
        need(pattern in RANKS or pattern in cards, f"card_points: unknown card or rank {pattern!r}")
        need(0 <= points <= 100, f"card_points: {pattern} points must be 0..100, not {points}")
