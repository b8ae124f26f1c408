"""`kafana arena --jobs`: bounded, never more workers than deals, and no worker outlives the
command, however it is stopped (Ctrl-C, SIGTERM, even SIGKILL on Linux)."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import psutil
import pytest
from click.testing import CliRunner
from kafana.cli import main
from kafana_bots.arena import ArenaConfig, DealResult, run
from kit import KAFANA, default_sigint

arena_command = importlib.import_module("kafana.cli.arena")  # the module, not the command

MAX_JOBS = 64
"""The most `--jobs` takes (docs/bots.md)."""
LONG = ("arena", "--bots", "greedy", "--vs", "greedy", "--hands", "100000", "--jobs", "2")
"""A run that would take minutes: two workers playing when the signal comes."""


def test_jobs_above_the_maximum_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[int] = []

    def spy(config: ArenaConfig, jobs: int = 1, **_: Any) -> list[DealResult]:
        played.append(jobs)  # nothing is played (the old code would fork `jobs` workers)
        raise SystemExit(0)

    monkeypatch.setattr(arena_command, "run", spy)
    for jobs in (str(MAX_JOBS + 1), "10000", "0"):
        args = ["arena", "--bots", "greedy", "--vs", "greedy", "--hands", "1", "--jobs", jobs]
        result = CliRunner().invoke(main, args)
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2, result.output
        assert len(lines) == 1 and "--jobs" in lines[0], result.output
        assert "Traceback" not in result.output
    assert played == []
    ok = CliRunner().invoke(main, ["arena", "--bots", "greedy,random", "--jobs", str(MAX_JOBS)])
    assert ok.exit_code == 0 and played == [MAX_JOBS], ok.output


def test_the_library_bounds_jobs_too() -> None:
    config = ArenaConfig(bots=("greedy", "greedy"), hands=1)
    for jobs in (0, MAX_JOBS + 1):
        with pytest.raises(ValueError, match="jobs"):
            run(config, jobs=jobs)


def _new_children(before: set[int]) -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in before]


@pytest.mark.parametrize(("hands", "most"), [(1, 1), (3, 3)])
def test_no_more_workers_than_deals(monkeypatch: pytest.MonkeyPatch, hands: int, most: int) -> None:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    counted: list[int] = []
    real = arena_command.run

    def counting(config: ArenaConfig, jobs: int = 1, progress: Any = None) -> list[DealResult]:
        def seen(result: DealResult) -> None:
            counted.append(len(_new_children(before)))  # the workers, while they play
            progress(result)

        return real(config, jobs=jobs, progress=seen)

    monkeypatch.setattr(arena_command, "run", counting)
    args = ["arena", "--bots", "greedy", "--vs", "greedy", "--hands", str(hands), "--jobs", "50"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert len(counted) == hands and max(counted) <= most, counted
    assert psutil.wait_procs(_new_children(before), timeout=5)[1] == []


@contextmanager
def _started(
    *args: str, out: Path
) -> Iterator[tuple[subprocess.Popen[bytes], list[psutil.Process]]]:
    """`kafana ARGS` in its own session, once its two workers run; nothing of it outlives
    the test."""
    with (out / "stdout").open("wb") as stdout, (out / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            [KAFANA, *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=default_sigint,
        )
    workers: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 30
        while len(workers) < 2:
            assert process.poll() is None, (out / "stderr").read_text()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.05)
            workers = psutil.Process(process.pid).children(recursive=True)
        time.sleep(0.3)  # playing deals
        yield process, workers
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        for worker in workers:  # psutil signals none that is not the worker it saw
            with suppress(psutil.NoSuchProcess):
                worker.kill()


def _gone(workers: list[psutil.Process]) -> list[psutil.Process]:
    """The workers still alive a few seconds on."""
    return psutil.wait_procs(workers, timeout=5)[1]


@pytest.mark.parametrize(
    ("signum", "group", "status"),
    [
        (signal.SIGTERM, False, 143),  # `kill PID`
        (signal.SIGINT, False, 130),  # `kill -INT PID`
        (signal.SIGINT, True, 130),  # Ctrl-C at a terminal: the whole foreground group
    ],
    ids=["sigterm", "sigint", "ctrl-c"],
)
def test_a_stopped_arena_leaves_no_worker(
    tmp_path: Path, signum: int, group: bool, status: int
) -> None:
    with _started(*LONG, out=tmp_path) as (process, workers):
        (os.killpg if group else os.kill)(process.pid, signum)
        assert process.wait(10) == status, (tmp_path / "stderr").read_text()
        assert _gone(workers) == [], workers
        err = (tmp_path / "stderr").read_text()
        assert "Traceback" not in err and err.strip().endswith("kafana arena: interrupted"), err


@pytest.mark.skipif(sys.platform != "linux", reason="workers die with their parent on Linux")
def test_workers_die_with_a_killed_arena(tmp_path: Path) -> None:
    with _started(*LONG, out=tmp_path) as (process, workers):
        process.kill()
        assert process.wait(10) == -signal.SIGKILL
        assert _gone(workers) == [], workers
