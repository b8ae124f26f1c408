"""`kafana table create`: a table of either game with every preset, switch, clock option and
bot seat, and the lines a person or a bot pastes next; bad input refused, nothing made."""

from __future__ import annotations

import re
import shlex

from kafana.v1 import rules_pb2
from kafana_client.blocking import Client
from kit import Served

from .test_cli_contract import _many, run, server

__all__ = ["server"]  # the contract test's server, shared by this module


def made(out: str) -> tuple[str, str]:
    """The table id and admin token `table create` printed."""
    table = re.search(r"^table (\w+)", out, flags=re.MULTILINE)
    admin = re.search(r"^admin token (\S+)", out, flags=re.MULTILINE)
    assert table and admin, out
    return table.group(1), admin.group(1)


def pasted(out: str, start: str) -> list[str]:
    """The printed command line that starts with `start`, split as a shell would."""
    line = next(line for line in out.splitlines() if line.strip().startswith(start))
    return shlex.split(line.strip())


def test_a_tablic_table_with_every_kind_of_option(server: Served) -> None:
    at = ("--server", server.target)
    ran = run(
        "table", "create", *at, "--preset", "tabinet", "--players", "4", "--partnerships",
        "--rule", "target=61", "--rule", "must_capture=true", "--rule", "card_points=A=1,10D=2",
        "--rule", "ace_high=no", "--move-ms", "20000", "--on-timeout", "forfeit",
        "--forfeit-after", "3", "--disconnect-grace-ms", "9000", "--no-show-ms", "60000",
        "--illegal-limit", "5", "--seed", "5", "--name", "friday", "--hints",
        "--bot", "1=greedy", "--bot", "3=ismcts,budget_ms=50",
    )  # fmt: skip
    assert ran.status == 0, ran
    table_id, admin = made(ran.out)
    assert "chosen deal" in ran.out  # --seed: whoever made it knows every hand
    with Client.connect(server.target) as client:
        info = client.get_table(table_id)
        rules, clock = info.rules, info.clock
        assert (rules.players, rules.partnerships) == (4, True)
        assert rules.tablic.preset == rules_pb2.TABLIC_PRESET_TABINET
        assert rules.tablic.target == 61 and rules.tablic.must_capture
        assert not rules.tablic.ace_high
        assert {(p.pattern, p.points) for p in rules.tablic.card_points} == {("A", 1), ("10D", 2)}
        assert clock.move_millis == 20000 and clock.policy == rules_pb2.TIMEOUT_POLICY_FORFEIT
        assert clock.forfeit_after_timeouts == 3 and clock.disconnect_grace_millis == 9000
        assert clock.no_show_millis == 60000 and clock.illegal_limit == 5
        assert info.name == "friday" and info.deal_chosen_by_creator
        assert [seat.taken for seat in info.seats] == [False, True, False, True]
        client.close_table(table_id, admin)  # the admin token printed closes it
    person = pasted(ran.out, "kafana play")
    assert person[1:] == ["play", "--table", table_id, *at], person


def test_a_tac_table_and_its_bot_line_played_when_pasted(server: Served) -> None:
    at = ("--server", server.target)
    ran = run(
        "table", "create", *at, "--game", "tac", "--players", "2", "--rule", "tac_calls=true",
        "--rule", "stall_rounds=3", "--bot", "1=loader",
    )  # fmt: skip
    assert ran.status == 0, ran
    table_id, _admin = made(ran.out)
    with Client.connect(server.target) as client:
        rules = client.get_table(table_id).rules
    assert rules.game == rules_pb2.GAME_TAC and rules.tac.tac_calls and rules.tac.stall_rounds == 3
    bot = pasted(ran.out, "kafana bot run")
    assert bot[:4] == ["kafana", "bot", "run", "SPEC"], bot
    played = run(*[("random" if word == "SPEC" else word) for word in bot[1:]])
    assert played.status == 0 and "match over: places" in played.out, played


def test_bad_tables_are_refused_and_none_is_made(server: Served) -> None:
    at = ("table", "create", "--server", server.target)
    with Client.connect(server.target) as client:
        before = len(client.list_tables(limit=500))
        cases: list[tuple[int, tuple[str, ...]]] = [
            (2, (*at, "--rule", "nope=1")),
            (2, (*at, "--rule", "target=-1")),
            (2, (*at, "--rule", "must_capture=maybe")),
            (2, (*at, "--rule", "target")),
            (2, (*at, "--game", "tac", "--rule", "must_capture=true")),
            (2, (*at, "--game", "tac", "--preset", "tabinet")),
            (2, (*at, "--bot", "5=greedy")),
            (2, (*at, "--bot", "1=nobot")),
            (2, (*at, "--bot", "1=ismcts,budget_ms=1e309")),
            (2, (*at, "--bot", "greedy")),
            (2, (*at, "--players", "3", "--partnerships")),
        ]
        lines = _many(cases)
        assert len(client.list_tables(limit=500)) == before
    assert "unknown tablic rule switch(es): nope; the tablic switches are target" in lines[0]
    assert "target=-1" in lines[1]
    assert "must_capture=maybe is not true or false" in lines[2]
    assert "expected NAME=VALUE, not 'target'" in lines[3]
    assert "unknown tac rule switch(es): must_capture" in lines[4]
    assert "--preset is an option of --game tablic" in lines[5]
    assert "budget_ms=1e309 is not a finite number" in lines[8]
    assert "expected SEAT=BOT" in lines[9]
