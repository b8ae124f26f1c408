"""`--save FILE`: a file a command writes at its end, checked before anything starts.

A match can take an hour; a path it cannot write must be refused at once, not after the end.

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
from pathlib import Path
from typing import Any

import click


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
