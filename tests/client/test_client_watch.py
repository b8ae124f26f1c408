"""`kafana watch`: the spectator's view of a match, live and after the end."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

from click.testing import CliRunner
from kafana.cli import main
from kafana_bots import registry
from kafana_client import Client, rules_of, table_config
from kafana_client.bots import run_bot

from .kafana_client_live import LiveServer


def test_watch_follows_a_live_match_to_its_end(server: LiveServer, tmp_path: Path) -> None:
    with Client.connect(server.target) as client:
        table = client.create_table(table_config(seed=4, target=1, name="live"))
        runner = CliRunner()
        saved = tmp_path / "watched.txt"
        result: list[str] = []
        watching = threading.Thread(
            target=lambda: result.append(
                runner.invoke(
                    main, ["watch", table.table_id, "--server", server.target, "--save", str(saved)]
                ).output
            )
        )
        watching.start()
        rules = rules_of(table.info)
        seats = [client.join(table.table_id, name=n) for n in ("ana", "ben")]
        bots = [
            registry.create("greedy", seat=s.seat, rules=rules, rng=random.Random(1)) for s in seats
        ]

        async def both() -> None:
            await asyncio.gather(*(run_bot(s.held, b) for s, b in zip(seats, bots, strict=True)))

        client._loop.run(both())
        watching.join(timeout=30)
        record = client.record(table.table_id)
    out = result[0]
    assert f"Watching table {table.table_id} 'live'" in out
    assert "Tablić serbian, 2 players, to 1" in out  # the rules in force
    assert "ana sat down at seat 0." in out and "All seats taken" in out
    assert out.count(" played ") == len(record.events) - 2
    assert "Your hand" not in out  # a spectator never sees a hand
    assert "Hand 1 scored" in out and "Match over" in out
    assert saved.read_text() == record.record + "# seat 0: ana\n# seat 1: ben\n"  # for replay


def test_watch_an_unknown_table(server: LiveServer) -> None:
    result = CliRunner().invoke(main, ["watch", "nope", "--server", server.target])
    assert result.exit_code == 1
    assert "no table 'nope'" in result.output and "NOT_FOUND" in result.output
