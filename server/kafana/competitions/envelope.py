"""The fair record: a game's record wrapped with the commitment to its secret.

Format (UTF-8 text; the game's record follows the `record` line verbatim)::

    kafana-fair-record 2
    commitment 70f55c4f...               SHA-256 of "kafana-commit-v2:<secret>", published first
    meta event swiss-demo                any number of `meta <key> <value>` lines
    revealed 0000...00                   the 64-hex secret, revealed once the game is over
    record
    kafana-tablic-record 1               the game's record (`to_text()`), untouched
    ...

The game's record itself is not changed; this wrapper only adds what a verifier needs
(`kafana.competitions.verify` checks every line). Version 1 records (a commitment to the seed
itself) are refused: their commitments could be brute-forced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.competitions.fairness import SECRET_HEX, check_secret
from kafana.errors import InvalidInputError
from kafana.games.tablic import MatchRecord

HEADER = "kafana-fair-record 2"
OLD_HEADER = "kafana-fair-record 1"
HEX = frozenset("0123456789abcdef")


def check_commitment_text(text: str) -> str:
    """`text` if it is a commitment's form (64 lowercase hex digits), else InvalidInputError."""
    if len(text) != SECRET_HEX or not set(text) <= HEX:
        raise InvalidInputError(f"a commitment is 64 lowercase hex digits, not {text[:80]!r}")
    return text


@dataclass(frozen=True)
class FairRecord:
    """A commitment, the revealed secret (None: not yet), metadata and the game's record."""

    commitment: str
    revealed: str | None
    record: str
    meta: tuple[tuple[str, str], ...] = field(default=())

    def to_text(self) -> str:
        """The envelope as text (ends with a newline)."""
        lines = [HEADER, f"commitment {self.commitment}"]
        lines += [f"meta {key} {value}".rstrip() for key, value in self.meta]
        if self.revealed is not None:
            lines.append(f"revealed {self.revealed}")
        lines.append("record")
        return "\n".join(lines) + "\n" + self.record.rstrip("\n") + "\n"

    @staticmethod
    def from_text(text: str) -> FairRecord:
        """Parse `to_text` output; errors name the line."""
        lines = text.splitlines()
        first = lines[0].strip() if lines else ""
        if first == OLD_HEADER:
            raise InvalidInputError(
                "line 1: a version 1 fair record (a commitment to the seed itself, which can "
                f"be guessed) is no longer accepted: records start with {HEADER!r}"
            )
        if first != HEADER:
            raise InvalidInputError(f"line 1: a fair record starts with {HEADER!r}")
        commit = ""
        revealed: str | None = None
        meta: list[tuple[str, str]] = []
        for number, raw in enumerate(lines[1:], start=2):
            line = raw.strip()
            key, _, rest = line.partition(" ")
            rest = rest.strip()
            try:
                if key == "record":
                    if rest:
                        raise InvalidInputError(f"`record` stands alone, not with {rest[:40]!r}")
                    if not commit:
                        raise InvalidInputError("the fair record has no commitment line before")
                    body = "\n".join(lines[number:]) + "\n"
                    return FairRecord(commit, revealed, body, tuple(meta))
                if key == "commitment":
                    if commit:
                        raise InvalidInputError("a second commitment line")
                    commit = check_commitment_text(rest)
                elif key == "revealed":
                    if revealed is not None:
                        raise InvalidInputError("a second revealed line")
                    revealed = check_secret(rest)
                elif key == "meta":
                    name, _, value = rest.partition(" ")
                    if not name:
                        raise InvalidInputError("a meta line names its key")
                    meta.append((name, value.strip()))
                elif line and not line.startswith("#"):
                    raise InvalidInputError(f"unknown item {key[:40]!r}")
            except InvalidInputError as exc:
                raise InvalidInputError(f"line {number}: {exc}") from None
        raise InvalidInputError("the fair record has no `record` line")

    def match_record(self) -> MatchRecord:
        """The wrapped record parsed as a Tablić record (`verify` reads every game's)."""
        return MatchRecord.from_text(self.record)

    def get(self, key: str, default: str = "") -> str:
        """The first metadata value of `key`."""
        return next((value for name, value in self.meta if name == key), default)

    def every(self, key: str) -> list[str]:
        """Every metadata value of `key`, in order."""
        return [value for name, value in self.meta if name == key]
