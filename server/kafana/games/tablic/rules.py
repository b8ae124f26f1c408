"""Rules: one frozen object of independent switches; presets are named combinations (data)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from kafana.errors import InvalidInputError
from kafana.games.cards import CARDS, RANKS, SUITS
from kafana.games.switches import Switches, need

_SERBIAN_POINTS = (("A", 1), ("10", 1), ("J", 1), ("Q", 1), ("K", 1), ("10D", 1), ("2C", 1))
_WILD_JACK_POINTS = (("A", 1), ("10D", 3), ("2C", 2))
_WILD_JACK = {"wild_jack": True, "jack_off_opening_table": True}
_BY_RANK = {
    "ace_high": False,
    "queen_value": 12,
    "king_value": 13,
    "royals_by_rank_only": True,
    "multi_group": False,
    "card_points": _WILD_JACK_POINTS,
    "last_card_tabla": False,
}

PRESET_SWITCHES: dict[str, dict[str, Any]] = {
    "serbian": {"target": 101},
    "wild_jack": _WILD_JACK | _BY_RANK | {"target": 101},
    "tabinet": _WILD_JACK | _BY_RANK | {"target": 151},
    "tablanette": {
        "multi_group": False,
        "card_points": _WILD_JACK_POINTS,
        "last_card_tabla": False,
        "target": 251,
    },
}
"""Each preset's switches, over the defaults (serbian for four single players: target 51).

`tablanette` is seed 001's "1939 rules": its base form (one group, its card points, no tabla
on the last card) with A 1 or 11, J 12 (not wild), Q 13, K 14, target 251 (RULES.md).
"""

PRESETS = tuple(PRESET_SWITCHES)
_CARD_TEXTS = frozenset(r + s for r in RANKS for s in SUITS)


@dataclass(frozen=True)
class Rules(Switches):
    """Every switch of Tablić. `Rules()` is `serbian` for two players.

    Card points are (pattern, points) pairs: a rank (`"A"`, `"10"`) applies to all four suits,
    a card (`"10D"`) to that card; a card's points are the sum of the pairs that match it.
    """

    BOUNDS: ClassVar[dict[str, tuple[int, int]]] = {
        "jack_value": (2, 20),
        "queen_value": (2, 20),
        "king_value": (2, 20),
        "target": (1, 100_000),
        "most_cards_points": (0, 100),
        "tabla_points": (0, 100),
    }

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
    building: bool = False  # builds and raises (RULES.md "Building"; docs/rules.md)

    def __post_init__(self) -> None:
        if isinstance(self.card_points, list):
            object.__setattr__(
                self, "card_points", tuple((str(p), int(v)) for p, v in self.card_points)
            )
        super().__post_init__()

    def _check(self) -> None:
        need(self.players in (2, 3, 4), f"players must be 2, 3 or 4, not {self.players}")
        need(not self.partnerships or self.players == 4, "partnerships need 4 players")
        for pattern, points in self.card_points:
            need(
                pattern in RANKS or pattern in _CARD_TEXTS,
                f"card_points: unknown card or rank {pattern!r}",
            )
            need(0 <= points <= 100, f"card_points: {pattern} points must be 0..100, not {points}")

    @staticmethod
    def preset(name: str, players: int = 2, partnerships: bool = False, **switches: Any) -> Rules:
        """A named preset for 2, 3 or 4 players (4 may be 2 partnerships), then overrides."""
        if name not in PRESET_SWITCHES:
            raise InvalidInputError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
        base: dict[str, Any] = {"players": players, "partnerships": partnerships}
        base |= PRESET_SWITCHES[name]
        if name == "serbian" and players == 4 and not partnerships:
            base["target"] = 51
        Rules.check_names(switches)
        return Rules(**(base | switches))

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
        return tuple(
            sum(p for pattern, p in self.card_points if pattern in (c.text, c.rank_text))
            for c in CARDS
        )

    def to_dict(self) -> dict[str, Any]:
        """Every switch as `Switches.to_dict`, but `building` only when on: the rules of a
        match without it write the same JSON (records, stored tables) as before it existed."""
        out = super().to_dict()
        if not self.building:
            del out["building"]
        return out

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        """card_points from [pattern, points] lists (errors say so)."""
        if "card_points" in values:
            try:
                values["card_points"] = tuple((str(p), int(v)) for p, v in values["card_points"])
            except (TypeError, ValueError) as exc:
                message = f"card_points must be [pattern, points] pairs: {exc}"
                raise InvalidInputError(message) from None
        return values
