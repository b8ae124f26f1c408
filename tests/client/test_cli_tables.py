"""`kafana tables`: the server's tables, newest first, paged through up to `--limit`."""

from __future__ import annotations

import time

from click.testing import CliRunner
from kafana.cli import main
from kafana.v1 import rules_pb2
from kafana_client import Client, table_config
from kafana_client.tac import tac_table_config

from .kafana_client_live import LiveServer


def _made(client: Client, config: rules_pb2.TableConfig) -> str:
    time.sleep(0.01)  # a later creation time than the table before: "newest first" is clear
    return client.create_table(config).table_id


def test_tables_lists_newest_first_with_rules_and_seats(server: LiveServer) -> None:
    with Client.connect(server.target) as client:
        made = [_made(client, table_config(name=f"t{n}", target=61)) for n in range(3)]
        client.join(made[1], name="ana")
        tac = _made(client, tac_table_config(players=3, tac_calls=True, name="tac"))
    runner = CliRunner()
    every = runner.invoke(main, ["tables", "--server", server.target])
    assert every.exit_code == 0, every.output
    lines = every.output.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == [tac, *reversed(made)]
    assert lines[-1] == "4 tables shown"
    assert "open     1/2 seats  Tablić serbian, 2 players, to 61  't1'" in lines[2]
    assert "0/3 seats  Tač, 3 players, 1 deck, tac_calls  'tac'" in lines[0]

    two = runner.invoke(main, ["tables", "--server", server.target, "--limit", "2"])
    assert [line.split()[0] for line in two.output.splitlines()[:-1]] == [tac, made[2]]
    tacs = runner.invoke(main, ["tables", "--server", server.target, "--game", "tac"])
    assert tacs.output.splitlines()[-1] == "1 table shown"
    none = runner.invoke(main, ["tables", "--server", server.target, "--status", "finished"])
    assert none.output == "0 tables shown\n"


def test_a_long_line_stays_one_line_when_piped(server: LiveServer) -> None:
    # Before: rich wrapped at 80 columns off a terminal: a table with a long name took two
    # lines, breaking "one line each" for scripts.
    with Client.connect(server.target) as client:
        made = _made(client, table_config(name="n" * 60, target=61))
    listed = CliRunner().invoke(main, ["tables", "--server", server.target, "--limit", "1"])
    assert listed.exit_code == 0, listed.output
    first = listed.output.splitlines()[0]
    assert first.startswith(made) and first.endswith("n" * 60 + "'"), listed.output
