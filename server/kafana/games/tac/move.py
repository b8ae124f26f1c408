"""Moves of Tač: small frozen values with a canonical text form.

There are three kinds, each one action of one seat:

* ``flip``: turn up the top card of the own closed pile (turning the discard pile over first
  when the closed pile is empty). Which card comes up is decided by the deck.
* ``play S->T``: move a card from source ``S`` to target ``T``. ``S`` is ``D`` (the top of the
  own discard pile) or ``X`` (the card just turned up). ``T`` is ``C`` (the central pile),
  ``P<k>`` (the discard pile of seat k, 0-based, another player) or ``D`` (the own discard
  pile: only for ``X``, and it ends the turn).
* ``call P<k>``: seat k calls "Tač!" on an out-of-order move (only with `tac_calls`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafana.errors import InvalidInputError

KINDS = ("flip", "play", "call")
_PLAY = re.compile(r"PLAY ([DX]) ?-> ?(C|D|P\d{1,2})")
_CALL = re.compile(r"CALL P(\d{1,2})")


@dataclass(frozen=True, slots=True)
class Move:
    """One action: `kind`, and for a play its `source` and `target`, for a call its `caller`.

    >>> Move.parse("play x->p2")
    Move.parse('play X->P2')
    >>> str(Move.flip()), Move.parse("call P1").caller, Move.play("D", "C").target
    ('flip', 1, 'C')
    """

    kind: str
    source: str | None = None  # "D" or "X" for a play
    target: str | None = None  # "C", "D" or "P<k>" for a play
    caller: int | None = None  # the calling seat for a call

    def __post_init__(self) -> None:
        ok = {
            "flip": self.source is None and self.target is None and self.caller is None,
            "play": self.source in ("D", "X")
            and isinstance(self.target, str)
            and (self.target in ("C", "D") or re.fullmatch(r"P\d{1,2}", self.target) is not None)
            and not (self.source == "D" and self.target == "D")
            and self.caller is None,
            "call": self.source is None
            and self.target is None
            and isinstance(self.caller, int)
            and not isinstance(self.caller, bool)
            and 0 <= self.caller < 100,
        }.get(self.kind, False)
        if not ok:
            raise InvalidInputError(f"not a Tač move: {self._describe()}")

    def _describe(self) -> str:
        return f"kind={self.kind!r} source={self.source!r} target={self.target!r}"

    @staticmethod
    def flip() -> Move:
        """Turn up the top card of the own closed pile."""
        return Move("flip")

    @staticmethod
    def play(source: str, target: str | int) -> Move:
        """Play from `source` ("D" or "X") onto `target` ("C", "D", or a seat number)."""
        return Move("play", source, f"P{target}" if isinstance(target, int) else target)

    @staticmethod
    def call(caller: int) -> Move:
        """Seat `caller` calls "Tač!"."""
        return Move("call", caller=caller)

    @property
    def target_seat(self) -> int | None:
        """The seat whose discard pile a play targets, if it targets another player's pile."""
        if self.target is not None and self.target.startswith("P"):
            return int(self.target[1:])
        return None

    @staticmethod
    def parse(text: str) -> Move:
        """Parse `flip`, `play D->C`, `play X->P2`, `play X->D` or `call P1` (any case)."""
        if not isinstance(text, str) or len(text) > 40:
            raise InvalidInputError(
                f"a Tač move is text like 'flip', 'play X->P2' or 'call P1', not {text!r}"
            )
        cleaned = " ".join(text.split()).upper()
        if cleaned == "FLIP":
            return Move.flip()
        found = _PLAY.fullmatch(cleaned)
        if found:
            source, target = found.groups()
            if source == "D" and target == "D":
                raise InvalidInputError("'play D->D' moves nothing: choose C or P<k>")
            return Move("play", source, "P" + str(int(target[1:])) if target[0] == "P" else target)
        found = _CALL.fullmatch(cleaned)
        if found:
            return Move.call(int(found.group(1)))
        raise InvalidInputError(
            f"unknown Tač move {text!r}: expected 'flip', 'play D->C', 'play X->P2', "
            "'play X->D' or 'call P1'"
        )

    def __str__(self) -> str:
        if self.kind == "play":
            return f"play {self.source}->{self.target}"
        if self.kind == "call":
            return f"call P{self.caller}"
        return "flip"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"
