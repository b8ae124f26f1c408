"""`kafana replay` and `kafana verify` on input made to hurt, and `kafana league match` on a
number past its field: one line, no traceback, the documented exit status, at once.

A file past `INPUT_BYTES` or endless (`/dev/zero`) was read whole: 9.2 GB in 18 s, Ctrl-C
unheard. JSON nested past Python's stack (a record's rules line, an export's line) was
"unexpected RecursionError". `league match lg1 99999999999999999999` was "unexpected
ValueError: Value out of range". Each child runs under a 1 GiB address-space cap, so a
regression fails in seconds instead of eating the machine's memory.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from kafana.competitions.exports import records_jsonl
from kafana.competitions.local_runner import registry_bots, run_local
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana_client.cli.paths import INPUT_BYTES
from kit import KAFANA

from .test_cli_contract import Ran, one_line

CAP = 2**30
"""The address space a child may map: far above the bound, far below the old 9.2 GB."""
TIMEOUT_S = 60.0
DEEP = "[" * 100_000
"""JSON nested past Python's stack (its limit is ~1,000 frames)."""
CAPPED = """
import os, resource, sys
pid = os.fork()
if not pid:
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as peak:
    peak.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""
"""Runs the command in a child of its own under the cap, and writes the child's peak resident
set (KiB) to the file named first. Measured by the test's own `wait4`, the peak was that of
the pytest worker the child was forked from (exec keeps the high-water mark): 395 MB in a CI
run for a command whose own peak is under 140 MB."""


def run(*args: str, stdin: str | None = None) -> Ran:
    """`kafana ARGS` under the address-space cap, stdin from the file `stdin` (else none)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    with (
        tempfile.TemporaryDirectory() as folder,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        open(stdin or os.devnull, "rb") as given,
    ):
        peak = Path(folder) / "peak"
        capped = [sys.executable, "-c", CAPPED.format(cap=CAP), str(peak), KAFANA, *args]
        started = time.monotonic()
        child = subprocess.Popen(
            capped, stdin=given, stdout=out, stderr=err, env=env, start_new_session=True
        )
        try:
            status = child.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            said = f"kafana {' '.join(args)} still running after {TIMEOUT_S} s"
            raise AssertionError(said) from None
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        said = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        peak_bytes = int(peak.read_text()) * 1024
    return Ran(args, status, *said, seconds, peak_bytes)


def many(*cases: tuple[str, ...]) -> list[Ran]:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda args: run(*args), cases))


def test_a_file_past_the_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with open(big, "wb") as file:
        file.truncate(INPUT_BYTES + 1)  # sparse: nothing is written
    replayed, verified = many(("replay", str(big)), ("verify", str(big)))
    said = f"{big}: larger than 64 MiB, the most a command reads of a file"
    assert one_line(replayed, 2) == f"kafana replay: {said}"
    assert one_line(verified, 2) == f"kafana verify: {said}"


def test_an_endless_file_is_read_to_the_bound_and_no_further() -> None:
    cases = [("replay", "/dev/zero"), ("verify", "/dev/zero"), ("verify", "-")]
    with ThreadPoolExecutor(3) as pool:
        done = list(pool.map(lambda args: run(*args, stdin="/dev/zero"), cases))
    for ran in done:
        assert f"{ran.args[1]}: larger than 64 MiB" in one_line(ran, 2)
        assert ran.peak_bytes < INPUT_BYTES + 192 * 2**20, ran  # the bound, and the start-up
        assert ran.seconds < 20, ran  # before: 18 s to 9.2 GB, Ctrl-C unheard


def event(game: str, bots: dict[str, str]) -> list[dict[str, Any]]:
    """A round robin of `bots` (entrant: registry bot) to 11, played in-process; its export's
    lines."""
    config = EventConfig("cup", Kind.ROUND_ROBIN, tuple(bots), target=11, game=game)
    played = run_local(Tournament(config), registry_bots(bots))
    return [json.loads(line) for line in records_jsonl(played).splitlines()]


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    return event("tablic", {"ana": "greedy", "bob": "random"})


def with_deep_rules(record: str) -> str:
    """`record` (a record or a fair record) with its rules line nested past the stack."""
    out = [f"rules {DEEP}" if line.startswith("rules ") else line for line in record.split("\n")]
    assert out != record.split("\n")
    return "\n".join(out)


def test_a_rules_line_nested_too_deeply_is_one_line(
    lines: list[dict[str, Any]], tmp_path: Path
) -> None:
    tablic = tmp_path / "tablic.txt"
    tablic.write_text(f"kafana-tablic-record 1\nrules {DEEP}\nseed 1\n")
    tac = tmp_path / "tac.txt"
    tac.write_text(f"kafana-tac-record 1\nrules {DEEP}\nseed 1\n")
    fair = tmp_path / "game.fair"
    fair.write_text(with_deep_rules(str(lines[0]["record"])))
    replayed = many(("replay", str(tablic)), ("replay", str(tac)), ("replay", str(fair)))
    for ran, path in zip(replayed, (tablic, tac, fair), strict=True):
        said = one_line(ran, 1)  # as any record that does not parse (test_cli_contract)
        assert said.startswith(f"kafana replay: {path}: record line "), said
        assert said.endswith(": the rules line is not valid (nested too deeply)"), said
    verified = run("verify", str(fair))
    assert verified.status == 1 and not verified.err, verified  # a rejection, as any other
    assert verified.out == (
        f"{fair}: REJECTED: the match record does not parse: record line 2: the rules line is"
        " not valid (nested too deeply)\n"
    )


def test_an_export_line_nested_too_deeply_is_rejected_and_the_rest_checked(
    lines: list[dict[str, Any]], tmp_path: Path
) -> None:
    first, *_ = lines
    export = tmp_path / "records.jsonl"
    inner = dict(first, record=with_deep_rules(str(first["record"])))
    export.write_text("\n".join([json.dumps(first), DEEP, json.dumps(inner)]) + "\n")
    deep = tmp_path / "deep.jsonl"
    deep.write_text(f'{{"game": {DEEP}\n')
    verified, replayed = many(("verify", str(export)), ("replay", str(deep)))
    assert verified.status == 1 and not verified.err, verified
    said = verified.out.splitlines()  # in the lines' order
    assert said[0].startswith(f"{export} {first['game']}: OK: tablic"), said
    assert said[1] == f"{export}: REJECTED: line 2: not a JSON object: nested too deeply"
    assert said[2] == (
        f"{export}: REJECTED: line 3: field record: the match record does not parse: record"
        " line 2: the rules line is not valid (nested too deeply)"
    )
    assert one_line(replayed, 1) == (
        f"kafana replay: {deep}: line 1: not a JSON object: nested too deeply"
    )


def test_league_match_refuses_a_number_past_its_uint64_field() -> None:
    dead = ("--server", "127.0.0.1:1")  # refused before any call
    past, huge = many(
        ("league", "match", "lg1", str(2**64), *dead),
        ("league", "match", "lg1", "99999999999999999999", *dead),
    )
    for ran in (past, huge):
        said = one_line(ran, 2)
        assert f"'NUMBER': {ran.args[3]} is not in the range 1<=x<=18446744073709551615" in said
        assert ran.seconds < 20, ran
