"""The fair record: a Tablić match record wrapped with its seed commitment.

Format (UTF-8 text; the tablic record follows the `record` line verbatim)::

    kafana-fair-record 1
    commitment 799e5f4b...               SHA-256 of "kafana-seed-v1:<seed>", published at the start
    meta event swiss-demo                any number of `meta <key> <value>` lines
    revealed 7                           the seed, revealed once the match is over
    record
    kafana-tablic-record 1               `MatchRecord.to_text()`, untouched
    ...

`MatchRecord` itself is not changed; this wrapper only adds what a verifier needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.errors import InvalidInputError
from kafana.games.tablic import MatchRecord

HEADER = "kafana-fair-record 1"


@dataclass(frozen=True)
class FairRecord:
    """A commitment, the revealed seed, free metadata and the match record text."""

    commitment: str
    revealed: int | None
    record: str
    meta: tuple[tuple[str, str], ...] = field(default=())

    def to_text(self) -> str:
        """The envelope as text (ends with a newline)."""
        lines = [HEADER, f"commitment {self.commitment}"]
        lines += [f"meta {key} {value}" for key, value in self.meta]
        if self.revealed is not None:
            lines.append(f"revealed {self.revealed}")
        lines.append("record")
        return "\n".join(lines) + "\n" + self.record.rstrip("\n") + "\n"

    @staticmethod
    def from_text(text: str) -> FairRecord:
        """Parse `to_text` output; errors name the line."""
        lines = text.splitlines()
        if not lines or lines[0].strip() != HEADER:
            raise InvalidInputError(f"a fair record starts with {HEADER!r}")
        commit = ""
        revealed: int | None = None
        meta: list[tuple[str, str]] = []
        for number, raw in enumerate(lines[1:], start=2):
            line = raw.strip()
            key, _, rest = line.partition(" ")
            if key == "record":
                if not commit:
                    raise InvalidInputError("the fair record has no commitment line")
                body = "\n".join(lines[number:]) + "\n"
                return FairRecord(commit, revealed, body, tuple(meta))
            if key == "commitment":
                commit = rest.strip().lower()
            elif key == "revealed":
                try:
                    revealed = int(rest)
                except ValueError:
                    raise InvalidInputError(
                        f"line {number}: seed {rest!r} is not a number"
                    ) from None
            elif key == "meta":
                name, _, value = rest.partition(" ")
                meta.append((name, value))
            elif line and not line.startswith("#"):
                raise InvalidInputError(f"line {number}: unknown item {key!r}")
        raise InvalidInputError("the fair record has no `record` line")

    def match_record(self) -> MatchRecord:
        """The wrapped tablic record, parsed."""
        return MatchRecord.from_text(self.record)

    def get(self, key: str, default: str = "") -> str:
        """The first metadata value of `key`."""
        return next((value for name, value in self.meta if name == key), default)
