"""The line format both games' records share: a header line, then `key value` items."""

from __future__ import annotations

from collections.abc import Iterator

from kafana.errors import InvalidInputError


def record_items(text: str, header: str, what: str) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, key, rest) of every item after `header`.

    Blank lines and `#` comments are skipped; line numbers count every line of `text`, so an
    error that names one points at the right line.
    """
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines or lines[0][1] != header:
        raise InvalidInputError(f"{what} starts with {header!r}")
    for number, line in lines[1:]:
        key, _, rest = line.partition(" ")
        yield number, key, rest
