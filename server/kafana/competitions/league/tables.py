"""The table of a league match: the league's rules and clock, seats bound to the players."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.competitions.fairness import deal_seed
from kafana.competitions.league.spec import rules_of
from kafana.v1 import leagues_pb2, rules_pb2


def table_name(league: str, number: int) -> str:
    """The table's label: the league and the match number (nothing secret).

    >>> table_name("spring", 7), match_of("league spring #7")
    ('league spring #7', ('spring', 7))
    """
    return f"league {league} #{number}"


def match_of(name: str) -> tuple[str, int] | None:
    """(league, match) of a league table's name; None for another table."""
    kind, _, rest = name.partition(" ")
    league, _, number = rest.partition(" #")
    if kind != "league" or not league or not number.isdigit():
        return None
    return league, int(number)


def table_of(match: dict[str, str]) -> tuple[str, str]:
    """(table id, admin token) of a match ("" before its table is made)."""
    table, _, admin = match.get("table", "").partition(" ")
    return table, admin


def league_table(
    league: str, number: int, players: Sequence[str], secret: str, spec: leagues_pb2.LeagueSpec
) -> rules_pb2.TableConfig:
    """Match `number`'s table: dealt from the match's secret; seat k only for players[k]; the
    league's fault policy on its clock (the join deadline is the referee's: `referee`). A seat
    taken for a player who then never uses it forfeits as a no-show at twice the deadline."""
    clock = rules_pb2.ClockSpec(
        move_millis=spec.move_ms,
        policy=rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
        forfeit_after_timeouts=spec.timeouts_to_forfeit,
        disconnect_grace_millis=spec.disconnect_grace_ms,
        on_disconnect=rules_pb2.TIMEOUT_POLICY_FORFEIT,
        no_show_millis=2 * spec.join_deadline_ms,
        illegal_limit=spec.illegal_limit,
    )
    if spec.HasField("clock"):  # the league's table clock, as given (its policies too)
        clock.CopyFrom(spec.clock)
        clock.no_show_millis = 2 * spec.join_deadline_ms
    return rules_pb2.TableConfig(
        rules=rules_of(spec),
        clock=clock,
        name=table_name(league, number),
        seed=deal_seed(secret),
        seat_accounts=list(players),
    )
