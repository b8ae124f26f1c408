"""Numbers typed on a command line, refused at the edge when they are not finite.

click's `FloatRange(0)` takes `inf` and `nan` (`--delay inf` would wait for ever, `-o
budget_ms=1e309` thought for ever); `Finite` is that range without them, with the same message
style, and `bot_option` checks a number given as a bot's `-o key=value`.

>>> Finite(0, 60).convert("2.5", None, None)
2.5
>>> Finite(0).convert("inf", None, None)
Traceback (most recent call last):
...
click.exceptions.BadParameter: inf is not a finite number.
>>> bot_option("budget_ms", "-5", -5)
Traceback (most recent call last):
...
click.exceptions.BadParameter: budget_ms=-5 is negative: bot options are counts, sizes and times
"""

from __future__ import annotations

import math
from typing import Any

import click


class Finite(click.FloatRange):
    """A `click.FloatRange` that refuses `inf` and `nan`."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)

    def _describe_range(self) -> str:
        """The range for --help; click's own reads ``x<=None`` without bounds.

        >>> Finite()._describe_range(), Finite(0)._describe_range()
        ('finite', 'x>=0')
        """
        if self.min is None and self.max is None:
            return "finite"
        return str(super()._describe_range())


def bot_option(key: str, text: str, value: int | float, hint: str = "--option") -> int | float:
    """A bot option's number (typed as `text` after option `hint`), refused when it is not
    finite or negative."""
    if not math.isfinite(value):
        raise click.BadParameter(f"{key}={text} is not a finite number", param_hint=hint)
    if value < 0:
        raise click.BadParameter(
            f"{key}={text} is negative: bot options are counts, sizes and times", param_hint=hint
        )
    return value
