"""Reading a person's line without a thread, so Ctrl-C works at once and a clock can run.

`LineReader.read` waits for a line on standard input with the event loop's reader (no thread
blocked in `input()`): Ctrl-C interrupts at once, Ctrl-D (end of input) raises EOFError, and a
deadline ends the wait (`TimedOut`) while the prompt's clock counts down in place on a
terminal (`[ 12s]` at the start of the line, rewritten each second without touching what is
being typed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from typing import TextIO


class TimedOut(Exception):
    """The deadline passed before a line was read."""


def clock_text(seconds: float) -> str:
    """`[ 12s]`: a fixed width, so it can be rewritten in place.

    >>> clock_text(12.3), clock_text(0.2), clock_text(125)
    ('[ 13s]', '[  1s]', '[125s]')
    """
    left = max(0, int(-(-seconds // 1)))
    return f"[{left:>3}s]"


class LineReader:
    """Lines of `stream` (standard input), read on the running event loop."""

    def __init__(self, stream: TextIO | None = None, out: TextIO | None = None) -> None:
        self.stream = stream or sys.stdin
        self.out = out or sys.stdout
        self._buffer = b""
        self._eof = False

    def _terminal(self) -> bool:
        return self.out.isatty()

    async def read(self, prompt: str, deadline: float | None = None) -> str:
        """One line (without its newline); `deadline`: time.time() at which to give up."""
        lead = clock_text(deadline - time.time()) + " " if deadline is not None else ""
        self.out.write(lead + prompt)
        self.out.flush()
        try:
            return await self._line(deadline)
        except TimedOut:
            self.out.write("\n")
            self.out.flush()
            self.discard()
            raise

    async def _line(self, deadline: float | None) -> str:
        while b"\n" not in self._buffer:
            if self._eof:
                if self._buffer:
                    line, self._buffer = self._buffer, b""
                    return line.decode(errors="replace")
                raise EOFError
            await self._fill(deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")

    async def _fill(self, deadline: float | None) -> None:
        loop = asyncio.get_running_loop()
        fd = self.stream.fileno()
        ready: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(fd, readable)
        except PermissionError:  # a regular file or /dev/null: always readable, never waits
            self._take(os.read(fd, 4096))
            return
        try:
            while not ready.done():
                if deadline is None:
                    await asyncio.shield(ready)
                    break
                remaining = deadline - time.time()
                if remaining <= 0:
                    raise TimedOut
                step = min(remaining, remaining % 1.0 or 1.0)
                try:
                    await asyncio.wait_for(asyncio.shield(ready), step + 0.01)
                except TimeoutError:
                    self._tick(deadline)
        finally:
            loop.remove_reader(fd)
        self._take(os.read(fd, 4096))

    def _take(self, data: bytes) -> None:
        if not data:
            self._eof = True
        self._buffer += data

    def _tick(self, deadline: float) -> None:
        """Rewrite the clock at the start of the prompt's line (cursor saved and restored)."""
        if self._terminal():
            self.out.write(f"\x1b7\r{clock_text(deadline - time.time())}\x1b8")
            self.out.flush()

    def discard(self) -> None:
        """Forget what was typed and not yet read (it was meant for a turn that is gone)."""
        self._buffer = b""
        if self.stream.isatty():
            with contextlib.suppress(Exception):
                import termios

                termios.tcflush(self.stream.fileno(), termios.TCIFLUSH)
