"""What both games' `Rules` share: frozen switches, checked and serialised the same way.

A game's `Rules` is a frozen dataclass that inherits `Switches`; its bounds are data
(`BOUNDS`: switch -> (lowest, highest)), checked with the types of every switch in one place;
a game adds only its own checks (`_check`). The JSON form, `with_switches` and the unknown
switch errors are written here once.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar, Self

from kafana.errors import InvalidInputError


def need(ok: bool, message: str) -> None:
    """Raise InvalidInputError(message) unless `ok`."""
    if not ok:
        raise InvalidInputError(message)


class Switches:
    """Base of a game's Rules (a frozen dataclass): validation, copies and the JSON form."""

    __slots__ = ()

    BOUNDS: ClassVar[dict[str, tuple[int, int]]] = {}
    """Whole-number switches and their inclusive range."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.type == "bool":
                need(isinstance(value, bool), f"rule switch {f.name} must be true or false")
            elif f.type == "int":
                need(
                    isinstance(value, int) and not isinstance(value, bool),
                    f"rule switch {f.name} must be a whole number",
                )
        self._check()
        for name, (low, high) in self.BOUNDS.items():
            value = getattr(self, name)
            need(low <= value <= high, f"{name} must be between {low} and {high}, not {value}")

    def _check(self) -> None:
        """The game's own checks, before the bounds (a hook: nothing by default)."""

    @classmethod
    def names(cls) -> frozenset[str]:
        """Every switch's name."""
        return frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def check_names(cls, switches: dict[str, Any]) -> None:
        """Raise InvalidInputError naming every switch these rules do not have."""
        unknown = set(switches) - cls.names()
        if unknown:
            raise InvalidInputError(f"unknown rule switch(es): {', '.join(sorted(unknown))}")

    def with_switches(self, **switches: Any) -> Self:
        """A copy with some switches changed (validated like any Rules)."""
        self.check_names(switches)
        return dataclasses.replace(self, **switches)  # type: ignore[type-var]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every switch (tuples as lists)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))  # type: ignore[call-overload, no-any-return]

    @classmethod
    def _decode(cls, values: dict[str, Any]) -> dict[str, Any]:
        """Switch values from JSON to their Python form (a hook: unchanged by default)."""
        return values

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_dict`; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, dict):
            raise InvalidInputError("rules must be a JSON object")
        cls.check_names(data)
        return cls(**cls._decode(dict(data)))

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no spaces."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Self:
        """Parse `to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"rules are not valid JSON: {exc}") from None
        return cls.from_dict(data)
