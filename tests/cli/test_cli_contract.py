"""The command line's contract: every bad input is one line on stderr, no traceback, the
documented exit status (2 usage, 1 failure; `serve` 3 for an address it cannot listen on), and
nothing changed on the server where the command refused. A real `kafana serve` on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from kafana.cli.boundary import guarded
from kafana.store.redis_server import free_port
from kafana_client.blocking import Client
from kafana_client.convert import table_config
from kit import KAFANA, Served, serving


@dataclass(frozen=True)
class Ran:
    """What one command line did (`peak_bytes`: its largest resident set, where measured)."""

    args: tuple[str, ...]
    status: int
    out: str
    err: str
    seconds: float
    peak_bytes: int = 0


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Ran:
    """Run `kafana ARGS` with no input, no KAFANA_* settings but `env`."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    environment = {k: v for k, v in environment.items() if k != "GRPC_VERBOSITY"}  # as a user's
    environment.update(env or {})
    started = time.monotonic()
    done = subprocess.run(
        [KAFANA, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=environment,
        cwd=cwd,
        timeout=60,
    )
    return Ran(args, done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def one_line(ran: Ran, status: int) -> str:
    """Assert the contract of a refusal; the line."""
    lines = ran.err.strip().splitlines()
    assert ran.status == status, ran
    assert len(lines) == 1, ran
    assert "Traceback" not in ran.err + ran.out and "unexpected" not in ran.err, ran
    assert lines[0].startswith("kafana"), ran
    return lines[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("contract"), "--memory") as servers:
        servers[0].wait_started()
        yield servers[0]


@dataclass(frozen=True)
class Tables:
    """An open table (no seat taken) and a closed one."""

    open: str
    closed: str


@pytest.fixture(scope="module")
def tables(server: Served) -> Tables:
    with Client.connect(server.target) as client:
        free = client.create_table(table_config(name="free"))
        shut = client.create_table(table_config(name="shut"))
        client.close_table(shut.table_id, shut.admin_token)
    return Tables(free.table_id, shut.table_id)


def _many(cases: list[tuple[int, tuple[str, ...]]], cwd: Path | None = None) -> list[str]:
    """Run every case (6 at a time); the line each printed, after checking its contract."""
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda case: run(*case[1], cwd=cwd), cases))
    return [one_line(ran, status) for (status, _), ran in zip(cases, done, strict=True)]


def test_usage_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("frobnicate",)),
        (2, ("demo", "--partnerships")),
        (2, ("demo", "--players", "9")),
        (2, ("arena", "--bots", "greedy,random", "--partnerships")),
        (2, ("arena", "--bots", "nobot,random")),
        (2, ("arena", "--bots", "greedy")),
        (2, ("play", "--tac-calls")),
        (2, ("play", "--game", "tac", "--partnerships")),
        (2, ("play", "--partnerships")),
        (2, ("play", "--seed", str(2**64))),
        (2, ("play", "--bots", "nobot")),
        (2, ("tournament", "run", "greedy")),
        (2, ("tournament", "run", "greedy", "nobot")),
        (2, ("tournament", "run", "greedy", "random", "--preset", "nope")),
        (2, ("tournament", "run", "greedy", "random", "--rounds", "-1")),
        (2, ("tournament", "run", "greedy", "random", "--target", "-5")),
        (2, ("tournament", "run", "greedy", "random", "--move-ms", "-5")),
        (2, ("tournament", "run", "greedy", "random", "--parallel", "0")),
        (2, ("verify",)),
        (2, ("verify", str(tmp_path / "missing.txt"))),
        (2, ("replay", str(tmp_path / "missing.txt"))),
        (2, ("account", "list", "--redis", "localhost:1")),
        (2, ("play", "--save", str(tmp_path / "no-such-folder" / "m.txt"))),
        (2, ("play", "--delay", "inf")),
        (2, ("play", "--delay", "1e300")),
        (2, ("arena", "--bots", "ismcts,greedy", "--budget-ms", "inf")),
        (2, ("watch", "t", "--server", "localhost:1", "--save", str(tmp_path / "no" / "m.txt"))),
        (2, ("play", "--bots", "greedy,greedy,greedy")),  # two players: was taken, two dropped
        (2, ("league", "report", "lg", "--alpha", "nan")),  # was taken
        (2, ("tournament", "run", "a=greedy", "a=random")),  # was renamed a-2
    ]
    lines = _many(cases)
    assert f"no folder {tmp_path / 'no-such-folder'} to write m.txt in" in lines[22]
    assert "see `kafana play --help`" in lines[22]
    assert f"no folder {tmp_path / 'no'} to write m.txt in" in lines[26]
    assert "'--delay': inf is not a finite number" in lines[23]
    assert "'--delay': 1e+300 is not in the range 0<=x<=60" in lines[24]
    assert "'--budget-ms': inf is not a finite number" in lines[25]
    assert "partnerships need --players 4" in lines[1]
    assert "see `kafana demo --help`" in lines[2]
    assert "--tac-calls is an option of --game tac" in lines[6]
    assert "an event needs two or more entrants" in lines[11]
    assert "unknown bot 'nobot'" in lines[12]
    assert "3 bots for the 1 other seat(s) of a table of 2" in lines[27]
    assert "nan is not a finite number" in lines[28]
    assert "entrant 'a' is named twice" in lines[29]


def test_a_key_or_target_no_call_can_carry_is_a_usage_error() -> None:
    # Before: gRPC's own log lines (4-6 of them), then "unexpected ExecuteBatchError" or "the
    # server at  refused: Failed to create channel", exit 1.
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("tables", "--server", "localhost:1", "--key", "bad\nkey")),
        (2, ("account", "list", "--server", "localhost:1", "--key", "k\x01")),
        (2, ("watch", "t", "--server", "localhost:1", "--key", "ключ")),
        (2, ("tables", "--server", "")),
        (2, ("tables", "--server", "127.0.0.1:99999")),
        (1, ("tables", "--server", "localhost:1")),  # a fine target nobody serves: reached
    ]
    lines = _many(cases)
    for line in lines[:3]:
        assert "--key" in line and "character" in line, line
    assert "--server" in lines[3] and "HOST:PORT" in lines[3]
    assert "--server" in lines[4] and "99999" in lines[4]
    assert "cannot reach a Kafana server at localhost:1" in lines[5]


def test_a_server_given_as_a_url_is_a_usage_error() -> None:
    # Before: each passed the check, then "cannot reach a Kafana server at http://..." after
    # 5 s (exit 1), a server listening there or not: grpc has no http scheme.
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("tables", "--server", "http://127.0.0.1:50051")),
        (2, ("tables", "--server", "https://kafana.example:443/")),
        (2, ("watch", "t", "--server", "grpc://localhost:1")),
        (2, ("play", "--server", "HTTP://127.0.0.1:50051")),
        (2, ("tables", "--server", "http:127.0.0.1:50051")),
        (1, ("tables", "--server", "dns:///localhost:1")),  # a gRPC target URI: grpc's to judge
        (1, ("tables", "--server", "[::1]:1")),
    ]
    lines = _many(cases)
    for line, given in zip(lines[:4], ("http", "https", "grpc", "HTTP"), strict=True):
        assert "--server" in line and f"{given}://" in line and "HOST:PORT" in line, line
    assert "--server 127.0.0.1:50051" in lines[0], lines[0]
    assert "--server kafana.example:443 --tls-ca PEM" in lines[1], lines[1]
    assert "--server" in lines[4] and "HOST:PORT" in lines[4], lines[4]
    assert "cannot reach a Kafana server at dns:///localhost:1" in lines[5]
    assert "cannot reach a Kafana server at [::1]:1" in lines[6]
    table = run("table", "create", env={"KAFANA_SERVER": "https://127.0.0.1:50051"})
    assert "--server" in one_line(table, 2) and "https://" in table.err


def test_a_file_that_is_not_pem_is_named(tmp_path: Path) -> None:
    # Before: grpc's log lines, then "cannot reach a Kafana server" (exit 1) or "cannot listen
    # on 127.0.0.1:0" (exit 3): the file was never named.
    text = tmp_path / "notes.txt"
    text.write_text("not a certificate\n")
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("watch", "t", "--server", "localhost:1", "--tls-ca", str(text))),
        (2, ("serve", "--port", "0", "--memory", "--tls-cert", str(text), "--tls-key", str(text))),
    ]
    for line, option in zip(_many(cases), ("--tls-ca", "--tls-cert"), strict=True):
        assert option in line and f"{text} is not PEM" in line, line


def test_bot_run_refuses_before_it_takes_a_seat(
    server: Served, tables: Tables, tmp_path: Path
) -> None:
    (tmp_path / "mybot.py").write_text(
        "from kafana_bots import Bot\n\nclass NotABot:\n    pass\n\n"
        "class Misspelt(Bot):\n    def chose(self, view, legal_moves):\n"
        "        return legal_moves[0]\n"
    )
    at = ("--server", server.target, "--table", tables.open)
    cases: list[tuple[int, tuple[str, ...]]] = [
        (2, ("bot", "run", "greedy", *at, "-o", "foo=1")),
        (2, ("bot", "run", "ismcts", *at, "-o", "budget_ms=abc")),
        (2, ("bot", "run", "ismcts", *at, "-o", "noequals")),
        (2, ("bot", "run", "nobot", *at)),
        (2, ("bot", "run", "./missing.py:X", *at)),
        (2, ("bot", "run", "mybot:NotABot", *at)),
        (2, ("bot", "run", "nomodule:X", *at)),
        (2, ("bot", "run", "loader", *at)),  # a Tač bot at a Tablić table
        (1, ("bot", "run", "greedy", "--server", server.target, "--table", "nope")),
        (1, ("bot", "run", "greedy", "--server", server.target, "--table", tables.closed)),
        (1, ("bot", "run", "greedy", *at, "--token", "wrong")),
        (2, ("bot", "run", "ismcts", *at, "-o", "budget_ms=1e309")),
        (2, ("bot", "run", "ismcts", *at, "-o", "budget_ms=-5")),
        (2, ("bot", "run", "ismcts", *at, "-o", "iterations=nan")),
        (2, ("bot", "run", "greedy", *at, "--delay", "inf")),
        (2, ("bot", "run", "greedy", *at, "--poll", "nan")),
        (2, ("bot", "run", ":", *at)),  # was exit 1, "ValueError: Empty module name"
        (2, ("bot", "run", "./notes.txt:X", *at)),  # was "unexpected AssertionError: "
        (1, ("bot", "run", "quits:X", *at)),  # was exit 0 and nothing played
        (2, ("bot", "run", "mybot:Misspelt", *at)),  # was exit 1, "unexpected TypeError"
        (2, ("bot", "run", "mybot:MyBott", *at)),
    ]
    (tmp_path / "notes.txt").write_text("not Python\n")
    (tmp_path / "quits.py").write_text("raise SystemExit(0)\n")
    lines = _many(cases, cwd=tmp_path)
    assert "SPEC" in lines[16] and "module:Class" in lines[16]
    assert "./notes.txt is not a Python file" in lines[17]
    assert "cannot load quits:X: SystemExit" in lines[18]
    assert "'Misspelt' in mybot does not define choose" in lines[19]
    assert "no class 'MyBott' in mybot" in lines[20]
    assert "budget_ms=1e309 is not a finite number" in lines[11]
    assert "budget_ms=-5 is negative" in lines[12]
    assert "iterations=nan is not a finite number" in lines[13]
    assert "'--delay': inf is not a finite number" in lines[14]
    assert "'--poll': nan is not a finite number" in lines[15]
    assert "greedy takes no option foo" in lines[0]
    assert "budget_ms='abc' is not a float" in lines[1]
    assert "unknown bot 'nobot'" in lines[3]
    assert "no file ./missing.py" in lines[4]
    assert "'NotABot' in mybot is not a kafana_bots.Bot or TacBot subclass" in lines[5]
    assert "no module 'nomodule'" in lines[6]
    assert "plays tac, not tablic" in lines[7]
    assert f"the server at {server.target} refused: no table 'nope'" in lines[8]
    assert "is over: nothing to play" in lines[9]
    with Client.connect(server.target) as client:
        info = client.get_table(tables.open)
    assert not any(seat.taken for seat in info.seats)  # nothing changed where it refused


def test_an_unreachable_server_is_named_within_5_seconds() -> None:
    """A closed port, and one that accepts and never answers (a server stopped or lost
    behind the network): `watch`, `play`, `tables` and `account` waited for the first call's
    10 s deadline on the second."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # connections complete in the kernel; nothing reads them
        for dead in (f"127.0.0.1:{free_port()}", f"127.0.0.1:{silent.getsockname()[1]}"):
            cases: list[tuple[str, ...]] = [
                ("bot", "run", "greedy", "--server", dead, "--table", "t"),
                ("play", "--server", dead),
                ("watch", "t", "--server", dead),
                ("tables", "--server", dead),
                ("tournament", "run", "greedy", "random", "--server", dead),
                ("account", "list", "--server", dead, "--key", "k"),
            ]
            baseline = ("demo", "--players", "9")  # the same start-up, no connection
            with ThreadPoolExecutor(len(cases) + 1) as pool:
                done = list(pool.map(lambda args: run(*args), [*cases, baseline]))
            start_up = done[-1].seconds
            for ran in done[:-1]:
                line = one_line(ran, 1)
                assert f"cannot reach a Kafana server at {dead}" in line
                assert "kafana serve" in line  # what to do
                # the wait is at most 5 s, not the first call's 10 s deadline: 3.5 s of slack
                # for seven processes starting at once on 2 busy cores (1.5 failed CI at load 5)
                assert ran.seconds < start_up + 5 + 3.5, ran


def test_serve_refuses_a_taken_port_or_a_foreign_host(server: Served) -> None:
    taken = run("serve", "--port", str(server.port), "--memory")
    assert "is taken by another process" in one_line(taken, 3)
    foreign = run("serve", "--host", "192.0.2.1", "--port", str(free_port()), "--memory")
    assert "cannot listen on 192.0.2.1" in one_line(foreign, 3)
    metrics = run("serve", "--port", "0", "--memory", "--metrics", str(server.port))
    said = one_line(metrics, 3)  # was exit 1, "Address already in use", no port named
    assert f"--metrics: cannot listen on 127.0.0.1:{server.port}" in said


def test_a_record_that_does_not_parse_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("not a record\n")
    assert str(bad) in one_line(run("replay", str(bad)), 1)


INTERRUPTED_AT = """
import runpy, sys
module, script, sys.argv = sys.argv[1], sys.argv[2], sys.argv[2:]
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == module:
            raise KeyboardInterrupt  # Ctrl-C while this module is imported
sys.meta_path.insert(0, Interrupt())
runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize("module", ["click", "kafana_client", "kafana.cli.league"])
def test_ctrl_c_while_starting_is_one_line(module: str) -> None:
    """Ctrl-C in the first 0.2 s (the imports) printed a traceback of the import."""
    command = [sys.executable, "-c", INTERRUPTED_AT, module, KAFANA, "league", "list"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    ran = Ran(("league", "list"), done.returncode, done.stdout, done.stderr, 0.0)
    assert one_line(ran, 130).endswith(": interrupted")


def test_debug_shows_the_traceback() -> None:
    flag = run("--debug", "demo", "--partnerships")
    env = run("demo", "--partnerships", env={"KAFANA_DEBUG": "1"})
    anywhere = run("demo", "--partnerships", "--debug")
    for ran in (flag, env, anywhere):
        assert ran.status == 2 and "Traceback" in ran.err, ran
        assert ran.err.strip().splitlines()[-1].startswith("kafana demo: "), ran


@pytest.mark.parametrize(
    ("args", "env"), [(["--debug", "demo"], ""), (["demo", "--debug"], ""), (["demo"], "1")]
)
def test_debug_prints_the_traceback_and_no_hint_to_ask_for_it(
    args: list[str], env: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the traceback, then "... (run again with --debug for the traceback)" though it was.
    def broken(_: list[str]) -> None:
        raise RuntimeError("boom")

    monkeypatch.setenv("KAFANA_DEBUG", env)
    assert guarded(broken, args) == 1
    said = capsys.readouterr().err
    assert "Traceback" in said and "RuntimeError: boom" in said, said
    assert said.splitlines()[-1] == "kafana: unexpected RuntimeError: boom", said


def test_without_debug_an_unexpected_error_says_how_to_see_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_: list[str]) -> None:
        raise RuntimeError("boom")

    monkeypatch.delenv("KAFANA_DEBUG", raising=False)
    assert guarded(broken, ["demo"]) == 1
    said = capsys.readouterr().err
    assert (
        said == "kafana: unexpected RuntimeError: boom (run again with --debug for the traceback)\n"
    )


def test_serve_says_whether_it_serves_tls(server: Served, tmp_path: Path) -> None:
    from reliability.reliability_support import make_certs

    assert "tls: off (plaintext" in server.output()
    (tmp_path / "certs").mkdir()
    certs = make_certs(tmp_path / "certs")
    args = ["--memory", "--tls-cert", str(certs / "server.pem")]
    with serving(tmp_path, *args, "--tls-key", str(certs / "server.key")) as (secure,):
        secure.wait_started()
        said = secure.output()
    assert f"tls: on, certificate {certs / 'server.pem'} (clients connect with --tls-ca)" in said


def test_organiser_commands_refuse_an_unknown_event(redis_url: str) -> None:
    dead = f"redis://127.0.0.1:{free_port()}"
    cases: list[tuple[int, tuple[str, ...]]] = [
        (1, ("tournament", "pause", "nope", "--redis", redis_url)),
        (1, ("tournament", "end", "nope", "--redis", redis_url)),
        (1, ("tournament", "adjudicate", "nope", "g1", "0", "--redis", redis_url)),
        (1, ("tournament", "pause", "nope", "--redis", dead)),
        (2, ("tournament", "pause", "nope", "--redis", "localhost:1")),
    ]
    lines = _many(cases)
    assert all(f"no event 'nope' at {redis_url}" in line for line in lines[:3])
    assert f"the control Redis at {dead} failed" in lines[3]
    assert "not a Redis URL" in lines[4]


def test_play_refuses_before_it_creates_a_table(server: Served) -> None:
    with Client.connect(server.target) as client:
        before = len(client.list_tables())
        cases: list[tuple[int, tuple[str, ...]]] = [
            (2, ("play", "--server", server.target, "--seat", "5")),
            (2, ("play", "--server", server.target, "--bots", "loader")),
            (2, ("play", "--server", server.target, "--game", "tac", "--target", "11")),
            (1, ("play", "--server", server.target, "--table", "nope")),
        ]
        lines = _many(cases)
        assert len(client.list_tables()) == before  # no table left behind
    assert "seat 5 does not exist at a table of 2" in lines[0]
    assert "unknown tablic bot 'loader'" in lines[1]
