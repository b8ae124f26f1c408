"""Table makers for the matchmaker: create a league match's table with the service's `Tables`."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.competitions.league.matchmaking import TableMaker
from kafana.service.tables import Tables
from kafana.v1 import rules_pb2


def league_table(
    league: str, number: int, players: Sequence[str], seed: int, *, preset: str = "serbian",
    target: int = 0, move_ms: int = 0,
) -> rules_pb2.TableConfig:  # fmt: skip
    """The table of league match `number`: the league's rules and clock, the match's seed."""
    rules = rules_pb2.RulesSpec(game="tablic", preset=preset, players=len(players), target=target)
    clock = rules_pb2.ClockSpec(move_millis=move_ms, policy=rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE)
    name = f"{league}/{number}: {' - '.join(players)}"
    return rules_pb2.TableConfig(rules=rules, clock=clock, name=name, seed=seed)


def store_tables(
    tables: Tables, *, league: str, preset: str = "serbian", target: int = 0, move_ms: int = 0
) -> TableMaker:
    """A `TableMaker` that creates each match's table in the store the servers serve."""

    async def make(number: int, players: Sequence[str], seed: int) -> str:
        config = league_table(
            league, number, players, seed, preset=preset, target=target, move_ms=move_ms
        )
        table_id, _admin_token, _session = await tables.create(config)
        return table_id

    return make
