"""Repeated failures logged once per interval, with a count, instead of once per attempt.

A background loop (the clock sweeper, a feed reader, the notifier, the director's scan) that
meets a dead store fails every few milliseconds; logging each failure wrote 12,513 lines in
25 s. `Repeated` logs the first failure at once (with its traceback), then at most one line per
`interval` saying how many failures there were since, and one line when it works again.
Expected failures (`quiet`: the store is unavailable) are logged without a traceback.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

from pythonjsonlogger.json import JsonFormatter

INTERVAL_S = 30.0
"""How often, at most, a repeated failure is logged again."""


class Repeated:
    """The failures of one recurring task, logged once per `interval` seconds with a count."""

    def __init__(
        self,
        logger: logging.Logger,
        what: str,
        *,
        interval: float = INTERVAL_S,
        quiet: tuple[type[BaseException], ...] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.what = what
        self.quiet = quiet
        self.interval = interval
        self.clock = clock
        self.failures = 0  # since the last success
        self._unlogged = 0  # failures not yet counted in a log line
        self._logged_at: float | None = None

    def failed(self, error: BaseException) -> None:
        """One more failure: logged now if none was logged in the last `interval`."""
        self.failures += 1
        self._unlogged += 1
        now = self.clock()
        if self._logged_at is None:
            trace = None if isinstance(error, self.quiet) else error
            self.logger.error("%s failed: %s", self.what, _describe(error), exc_info=trace)
        elif now - self._logged_at >= self.interval:
            self.logger.error(
                "%s failed %d times in the last %.0f s (latest: %s)",
                self.what,
                self._unlogged,
                now - self._logged_at,
                _describe(error),
            )
        else:
            return
        self._logged_at = now
        self._unlogged = 0

    def succeeded(self) -> None:
        """It worked: after failures, say so once and start counting afresh."""
        if not self.failures:
            return
        self.logger.warning("%s works again after %d failures", self.what, self.failures)
        self.failures = 0
        self._unlogged = 0
        self._logged_at = None


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


SECRET_SHAPES = re.compile(
    r"kfk_[A-Za-z0-9_\-]+"  # an API key
    r"|(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{32}(?![A-Za-z0-9_\-])"  # a seat/admin/entry token
    r"|(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])"  # a fairness secret before its reveal
)
"""What a secret looks like in text: masked in every log line, whatever logged it."""
MASK = "[redacted]"


class Redact(logging.Filter):
    """Masks anything shaped like a key, a token or a secret in a record's message.

    >>> record = logging.makeLogRecord({"msg": "seat token %s", "args": ("a" * 32,)})
    >>> Redact().filter(record), record.getMessage()
    (True, 'seat token [redacted]')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = SECRET_SHAPES.sub(MASK, message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def configure(fmt: str = "text", level: int = logging.INFO) -> logging.Handler:
    """Log to stderr as readable lines (`text`) or JSON lines (`json`), secrets masked."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    handler.addFilter(Redact())
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_kafana", False)]:
        root.removeHandler(old)
    handler._kafana = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    return handler
