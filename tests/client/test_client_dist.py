"""The client-only distribution: built by scripts/build_client.py, installed alone in a fresh
virtual environment (none of the server's dependencies), it plays a whole match against a bot
the server seats and plays (one CreateTable call), asks the engine for a hint at every move,
and rides out a SIGKILL of the server and a restart mid-match."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from signal import SIGKILL

from kafana.v1 import state_pb2
from kit import free_port, healthy, serve

ROOT = Path(__file__).resolve().parents[2]
UV = str(Path(sys.executable).parent / "uv")

APP = textwrap.dedent(
    """
    import importlib.util, sys, time

    SERVER_ONLY = ["hypercorn", "redis", "connectrpc", "prometheus_client", "openskill",
                   "kafana.service", "kafana.store", "kafana.competitions", "kafana.cli"]
    present = [name for name in SERVER_ONLY if importlib.util.find_spec(name) is not None]
    assert present == [], present

    from kafana_client import Client, current_seat, table_config
    from kafana_client.connection import Retry
    from kafana.v1 import rules_pb2

    config = table_config(preset="serbian", players=2, target=31)
    config.hints = True
    config.bots.append(rules_pb2.BotSeat(seat=1, bot="greedy"))  # the server plays it
    hints = 0
    retry = Retry(attempts=60, max_backoff=1.0)  # rides out the server's crash and restart
    with Client.connect(sys.argv[1], retry=retry) as kafana:
        table = kafana.create_table(config)
        assert table.info.seats[1].bot == "greedy"
        me = kafana.join(table.table_id, name="ana")
        while True:
            state = kafana.get_state(table.table_id)
            seat = current_seat(state)
            if seat is None:
                break
            if seat != 0:
                time.sleep(0.02)  # the bot's turn: it plays from the server
                continue
            legal = me.legal_moves()
            advice = me.analyze(budget_ms=20)
            assert advice.best.text in legal.texts(), (advice.best.text, legal.texts())
            hints += 1
            me.play(advice.best.text, last_seq=legal.seq)
            if hints == 10:
                print("HALFWAY", flush=True)
                sys.stdin.readline()  # the driver kills the server and starts another
        record = kafana.record(table.table_id)
    bot_moves = sum(1 for e in record.events if e.move.text and e.seat == 1)
    print("hints", hints, "bot", bot_moves, "reason", record.result.reason)
    """
)


def test_the_client_distribution_plays_a_match_without_the_server_installed(
    tmp_path: Path, redis_url: str
) -> None:
    built = subprocess.run(
        [sys.executable, str(ROOT / "scripts/build_client.py"), "--out", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        check=True,
    )
    wheel = Path(built.stdout.strip().splitlines()[-1])
    assert wheel.name.startswith("kafana_client-") and wheel.suffix == ".whl"
    venv = tmp_path / "app-venv"
    subprocess.run([UV, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    lock = str(ROOT / "requirements/lock.txt")  # the versions the suite runs on
    subprocess.run(
        [UV, "pip", "install", "-q", "--python", python, str(wheel), "--constraint", lock],
        check=True,
    )
    (tmp_path / "app.py").write_text(APP)
    port = free_port()
    server = serve(tmp_path / "first", "--redis", redis_url, "--auth", "open", port=port)
    again = None
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    server.wait_started()
    asyncio.run(healthy(server.target))
    app = subprocess.Popen(
        [python, str(tmp_path / "app.py"), f"127.0.0.1:{port}"],
        cwd=tmp_path,  # not the repository: only the installed wheel is importable
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert app.stdout is not None and app.stdin is not None
        assert app.stdout.readline().strip() == "HALFWAY", app.stderr.read() if app.stderr else ""
        server.stop(SIGKILL)  # a crash, mid-match: the bot's process with it
        again = serve(tmp_path / "second", "--redis", redis_url, "--auth", "open", port=port)
        app.stdin.write("go\n")
        app.stdin.flush()
        out, err = app.communicate(timeout=240)
    finally:
        app.kill()
        server.end()
        if again is not None:
            again.end()
    played = subprocess.CompletedProcess(app.args, app.returncode, out, err)
    assert played.returncode == 0, played.stderr[-3000:]
    words = played.stdout.split()
    assert words[0] == "hints" and int(words[1]) > 20
    assert words[2] == "bot" and abs(int(words[3]) - int(words[1])) <= 1  # the server's bot
    assert words[4:] == ["reason", str(state_pb2.RESULT_REASON_SCORE)]  # played to the end
