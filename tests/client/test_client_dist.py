"""The client-only distribution: built by scripts/build_client.py, installed alone in a fresh
virtual environment (none of the server's dependencies), it plays a whole match on a real
`kafana serve` and asks the engine for a hint at every move."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from kafana.v1 import state_pb2
from kit import healthy, serve

ROOT = Path(__file__).resolve().parents[2]
UV = str(Path(sys.executable).parent / "uv")

APP = textwrap.dedent(
    """
    import importlib.util, sys

    SERVER_ONLY = ["hypercorn", "redis", "connectrpc", "prometheus_client", "openskill",
                   "kafana.service", "kafana.store", "kafana.competitions", "kafana.cli"]
    present = [name for name in SERVER_ONLY if importlib.util.find_spec(name) is not None]
    assert present == [], present

    from kafana_client import Client, current_seat, table_config

    config = table_config(preset="serbian", players=2, seed=3)
    config.hints = True
    hints = 0
    with Client.connect(sys.argv[1]) as kafana:
        table = kafana.create_table(config)
        seats = [kafana.join(table.table_id, name=name) for name in ("ana", "bora")]
        while (seat := current_seat(kafana.get_state(table.table_id))) is not None:
            legal = seats[seat].legal_moves()
            advice = seats[seat].analyze(budget_ms=20)
            assert advice.best.text in legal.texts(), (advice.best.text, legal.texts())
            hints += 1
            seats[seat].play(advice.best.text, last_seq=legal.seq)
        result = kafana.record(table.table_id).result
    print("hints", hints, "reason", result.reason)
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
    server = serve(tmp_path, "--redis", redis_url, "--auth", "open")
    try:
        server.wait_started()
        asyncio.run(healthy(server.target))
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        played = subprocess.run(
            [python, str(tmp_path / "app.py"), server.target],
            cwd=tmp_path,  # not the repository: only the installed wheel is importable
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
        )
    finally:
        server.end()
    assert played.returncode == 0, played.stderr[-3000:]
    words = played.stdout.split()
    assert words[0] == "hints" and int(words[1]) > 40
    assert words[2:] == ["reason", str(state_pb2.RESULT_REASON_SCORE)]  # played to the end
