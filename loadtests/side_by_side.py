"""Side-by-side benchmarks of a few modes: a server process per mode, the modes in alternating
order each round (neither always goes first on a machine whose load drifts), and the rounds'
medians as a Markdown table.

>>> list(alternating(("a", "b"), 3))
[(0, 'a'), (0, 'b'), (1, 'b'), (1, 'a'), (2, 'a'), (2, 'b')]
>>> print("\\n".join(medians_table({"x": [{"n": 1.0}, {"n": 3.0}]}, "mode", [("n/s", "n", ".1f")])))
| mode | n/s |
|---|---|
| x | 2.0 |
"""

from __future__ import annotations

import contextlib
import statistics
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from instructions import wait_serving
from kafana.store.redis_server import free_port
from run import stop

Figures = dict[str, list[dict[str, float]]]
"""Each mode's figures, a dict a round."""
Column = tuple[str, str, str]
"""A table column: its title, the figure's key, the figure's format (".2f")."""
Servers = dict[str, tuple[str, subprocess.Popen[bytes]]]
"""Each mode's server: its target ("127.0.0.1:PORT") and process."""


def alternating(modes: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, mode) for every round and mode, the order of the modes reversed every other
    round."""
    for round_ in range(rounds):
        for mode in modes if round_ % 2 == 0 else modes[::-1]:
            yield round_, mode


@contextlib.contextmanager
def serving(
    commands: Mapping[str, Callable[[int], list[str]]], work: Path, timeout: float = 900.0
) -> Iterator[Servers]:
    """A server per mode, `commands[mode](port)` on a free loopback port (its output in
    `work`/MODE.log), each serving before the next starts; all stopped afterwards."""
    servers: Servers = {}
    try:
        for mode, command in commands.items():
            port = free_port()
            with open(work / f"{mode}.log", "wb") as log:
                process = subprocess.Popen(command(port), stdout=log, stderr=log)
            servers[mode] = (f"127.0.0.1:{port}", process)
            wait_serving(port, process, timeout)
        yield servers
    finally:
        for _target, process in servers.values():
            stop(process)


def rounds_of(
    modes: Sequence[str], rounds: int, measure: Callable[[int, str], dict[str, float]]
) -> Figures:
    """`measure(round, mode)` for each round and mode in `alternating` order, each round's
    figures printed as they come."""
    figures: Figures = {mode: [] for mode in modes}
    for round_, mode in alternating(modes, rounds):
        got = measure(round_, mode)
        figures[mode].append(got)
        print(f"round {round_ + 1} {mode}: " + ", ".join(f"{k} {v:.1f}" for k, v in got.items()))
    return figures


def medians_table(figures: Figures, first: str, columns: Sequence[Column]) -> list[str]:
    """A Markdown table, a row a mode (`first`: the modes' column title), of the medians of
    the rounds' figures."""
    lines = ["| " + " | ".join([first, *(title for title, _key, _format in columns)]) + " |"]
    lines.append("|---" * (len(columns) + 1) + "|")
    for mode, rounds in figures.items():
        cells = [
            format(statistics.median(got[key] for got in rounds), spec)
            for _title, key, spec in columns
        ]
        lines.append("| " + " | ".join([mode, *cells]) + " |")
    return lines
