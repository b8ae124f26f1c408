"""`kafana bot run` for bot authors: a Tač bot by name and one in a file, and a bot in a file of
the current folder (by `module:Class` with no PYTHONPATH, and by path) play whole games on a
real server; a bot whose move the server refuses stops at once, naming it."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafana.v1 import state_pb2
from kafana_client.blocking import Client
from kafana_client.convert import table_config
from kafana_client.tac import tac_table_config
from kit import KAFANA, Served, serving

MYBOT = """
from kafana_bots import Bot


class MyBot(Bot):
    def choose(self, view, legal_moves):
        return max(legal_moves, key=lambda move: len(move.captured))
"""
MYTACBOT = """
from kafana_bots import TacBot


class First(TacBot):
    def choose(self, view, legal_moves):
        return legal_moves[0]
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("botrun"), "--memory") as servers:
        servers[0].wait_started()
        yield servers[0]


def _play(server: Served, seats: list[tuple[str, str]], cwd: Path) -> list[str]:
    """Run one `kafana bot run SPEC --table TABLE` per (table, spec) at once, to the end; their
    outputs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFANA_", "PYTHONPATH"))}
    base = [KAFANA, "bot", "run"]
    processes = [
        subprocess.Popen(
            [*base, spec, "--server", server.target, "--table", table_id],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for table_id, spec in seats
    ]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert "Traceback" not in err
        outputs.append(out)
    return outputs


def test_a_tac_bot_and_an_authors_file_bots_play_to_the_end(server: Served, tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(MYBOT)
    (tmp_path / "mytacbot.py").write_text(MYTACBOT)  # from kafana_bots, as Bot is
    with Client.connect(server.target) as client:
        tac_table = client.create_table(tac_table_config(players=2, seed=3)).table_id
        tablic_table = client.create_table(table_config(target=11, seed=4)).table_id
    seats = [(tac_table, "loader"), (tac_table, "./mytacbot.py:First")]
    seats += [(tablic_table, "mybot:MyBot"), (tablic_table, "./mybot.py:MyBot")]
    outputs = _play(server, seats, tmp_path)
    tac_out, tablic_out = outputs[:2], outputs[2:]
    assert all("match over: places" in out for out in tac_out)
    assert all("match over: scores" in out for out in tablic_out)
    with Client.connect(server.target) as client:
        for table_id in (tac_table, tablic_table):
            info = client.get_table(table_id)
            assert info.status == state_pb2.TABLE_STATUS_FINISHED
        names = [seat.name for seat in client.get_table(tablic_table).seats]
    assert sorted(names) == ["./mybot.py:MyBot", "mybot:MyBot"]


BADBOT = """
from kafana.games import tablic
from kafana_bots import Bot


class Bad(Bot):
    def choose(self, view, legal_moves):
        held = {move.card for move in legal_moves}
        return tablic.Move(next(card for card in tablic.CANONICAL_DECK if card not in held))
"""


def test_a_bot_that_plays_an_illegal_move_exits_naming_it(server: Served, tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(BADBOT)
    with Client.connect(server.target) as client:
        table_id = client.create_table(table_config(target=11, seed=4)).table_id
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFANA_", "PYTHONPATH"))}
    run = [KAFANA, "bot", "run", "--server", server.target, "--table", table_id]
    other = subprocess.Popen(
        [*run, "greedy"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        bad = subprocess.run(
            [*run, "./bot.py:Bad"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        other.kill()
        other.wait()
    lines = [line for line in bad.stderr.splitlines() if not line.startswith("seat ")]
    assert bad.returncode == 1, bad.stderr
    assert len(lines) == 1, bad.stderr
    assert lines[0].startswith("kafana bot run: the bot ./bot.py:Bad at seat ")
    assert re.search(r"seat [01] played [2-9TJQKA][CDHS], which the server refused: ", lines[0])


def test_a_local_tournament_takes_an_authors_bot(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(MYBOT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFANA_", "PYTHONPATH"))}
    args = ["mine=mybot:MyBot", "file=./mybot.py:MyBot", "greedy", "--kind", "round_robin"]
    done = subprocess.run(
        [KAFANA, "tournament", "run", *args, "--target", "11"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"mine\s", done.stdout) and re.search(r"file\s", done.stdout), done.stdout
    assert done.stdout.count(" (score)") == 3, done.stdout  # every pairing played to the end
