"""The files a command is given: `--save FILE`, written at its end and checked before anything
starts; a record or an export it reads, at most `INPUT_BYTES` of it.

A match can take an hour; a path it cannot write must be refused at once, not after the end.
A file to read may be anything (`/dev/zero`, a pipe that never ends): it is read up to its bound
and no further.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> OUTPUT_FILE.convert(f"{folder}/m.txt", None, None).name
'm.txt'
>>> OUTPUT_FILE.convert(f"{folder}/nope/m.txt", None, None)
Traceback (most recent call last):
...
click.exceptions.BadParameter: no folder .../nope to write m.txt in
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import click
from kafana.errors import InvalidInputError


class OutputFile(click.ParamType[Path]):
    """A file to be written later: its folder exists and may be written, it is no folder, and
    if it exists it may be overwritten. Converts to a `Path`."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        folder = path.parent
        if path.is_dir():
            self.fail(f"{path} is a folder, not a file", param, ctx)
        if not folder.is_dir():
            self.fail(f"no folder {folder} to write {path.name} in", param, ctx)
        if not os.access(path if path.exists() else folder, os.W_OK):
            self.fail(f"{path} cannot be written (permission denied)", param, ctx)
        return path


OUTPUT_FILE = OutputFile()
"""The click type of `--save` and other files written at the end."""


INPUT_BYTES = 64 * 2**20
"""The most bytes `kafana replay` and `kafana verify` read of one file (64 MiB).

The largest legitimate inputs, measured: a four-player Tablić match to the highest target
(100,000 points) is an export line of 8.3 MB (its fair record, a little less); a Tač record
is a few KB. An event's `records.jsonl` arrives in one `GetEvent` answer, which the SDK
receives up to 64 MiB (`kafana_client.connection.MAX_MESSAGE_BYTES`); a 512-entrant Swiss to
101 (2,304 games of ~4.2 KB) is ~10 MB."""


def read_at_most(path: str | Path, limit: int = INPUT_BYTES) -> bytes:
    """The bytes of the file at `path` (`-`: standard input): InvalidInputError naming `limit`
    when it holds more. Never more than `limit` + 1 bytes are read, so memory and time are
    bounded whatever the file is; OSError as opening or reading raises it.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = Path(f"{folder}/r.txt").write_bytes(b"0123456789")
    >>> read_at_most(f"{folder}/r.txt", 10)
    b'0123456789'
    >>> read_at_most(f"{folder}/r.txt", 9)
    Traceback (most recent call last):
    ...
    kafana.errors.InvalidInputError: larger than 9 bytes, the most a command reads of a file
    """
    if str(path) == "-":
        return _bounded(sys.stdin.buffer, limit)
    with open(path, "rb") as file:
        status = os.fstat(file.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:  # refused unread
            raise _too_large(limit)
        return _bounded(file, limit)


def _bounded(file: Any, limit: int) -> bytes:  # a binary file (sys.stdin.buffer types as BinaryIO)
    """Up to `limit` bytes of `file`, read into one buffer of the bound's size (`kafana
    replay /dev/zero` peaks at 137 MiB, start-up included)."""
    buffer = bytearray(limit + 1)  # pages are taken as bytes arrive, not all at once
    view = memoryview(buffer)
    got = 0
    while got <= limit:
        read = file.readinto(view[got:])
        if not read:
            break
        got += read
    if got > limit:
        raise _too_large(limit)
    return bytes(view[:got])


def _too_large(limit: int) -> InvalidInputError:
    size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"
    return InvalidInputError(f"larger than {size}, the most a command reads of a file")
