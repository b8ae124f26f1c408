"""The Tač core is pure: it imports without grpc, redis or protobuf; rules round-trip."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from kafana.games.tac import InvalidInputError, Rules

BLOCKER = textwrap.dedent(
    """
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("grpc", "redis", "google"):
                raise ImportError("blocked: " + name)
            return None

    sys.meta_path.insert(0, Block())
    from kafana.games import tac
    state = tac.new_game(tac.Rules(players=4, decks=2, tac_calls=True), seed=1)
    state = state.apply(state.legal_moves()[0])
    print(sorted(m for m in sys.modules if m.split(".")[0] in ("grpc", "redis", "google")))
    """
)


def test_the_tac_core_imports_with_grpc_redis_and_protobuf_blocked() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_rules_round_trip_through_json() -> None:
    for rules in (Rules(), Rules(players=8, decks=2, tac_calls=True, play_on=True)):
        assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_json("{}") == Rules()
    assert Rules().with_switches(play_on=True).play_on


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"colour": 1}', "unknown rule switch"),
        ('{"tac_calls": 1}', "tac_calls must be true or false"),
        ('{"players": "2"}', "players must be a whole number"),
        ('{"stall_rounds": 0}', "stall_rounds must be between"),
        ('{"decks": 3}', "decks must be 1 or 2"),
        ('{"players": 3, "decks": 2}', "players must be 2, 4 or 8 with 2 decks, not 3"),
        ("[1", "not valid JSON"),
        ("[1]", "must be a JSON object"),
    ],
)
def test_bad_rules_are_refused_with_a_reason(data: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        Rules.from_json(data)
