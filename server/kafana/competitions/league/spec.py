"""A league's name and spec, checked and completed with the defaults before it is stored.

>>> spec = league_spec(leagues_pb2.LeagueSpec(target=11))
>>> game_name(spec.game), preset_name(spec.preset), spec.players, spec.move_ms, spec.retention_days
('tablic', 'serbian', 2, 5000, 30)
>>> rules_of(spec).tablic.preset == rules_pb2.TABLIC_PRESET_SERBIAN, spec.join_deadline_ms
(True, 30000)
>>> league_name("spring-2027")
'spring-2027'
"""

from __future__ import annotations

from kafana.competitions.league.bands import checked
from kafana.competitions.wire import game_name, preset_name, rules_spec
from kafana.errors import InvalidInputError
from kafana.service.games import build_rules
from kafana.service.inputs import LEAGUE, check
from kafana.v1 import leagues_pb2, rules_pb2

MOVE_MS = 5_000
MAX_MOVE_MS = 600_000
TIMEOUTS_TO_FORFEIT = 3
JOIN_DEADLINE_MS = 30_000
MIN_JOIN_DEADLINE_MS = 1_000
MAX_JOIN_DEADLINE_MS = 600_000
RETENTION_DAYS = 30
DISCONNECT_GRACE_MS = 10_000
ILLEGAL_LIMIT = 3
REMATCH_LIMIT = 2
"""A player meets one opponent at most this many matches in a row (unless nobody else comes)."""
MAX_REMATCH_LIMIT = 8
"""The most a league sets (the store keeps each player's last 8 tables)."""
MAX_RETENTION_DAYS = 3650
DAY_MS = 86_400_000


def league_name(name: str) -> str:
    """`name` if it is a valid league name (`kafana.service.inputs.LEAGUE`), else
    InvalidInputError naming the rule."""
    return check(LEAGUE, name)


def _bounded(value: int, default: int, low: int, high: int, what: str) -> int:
    chosen = value or default
    if not low <= chosen <= high:
        raise InvalidInputError(f"{what} is from {low} to {high}, not {chosen}", field=what)
    return chosen


RULES_FIELDS = ("game", "preset", "target", "players")
CLOCK_FIELDS = ("move_ms", "timeouts_to_forfeit", "disconnect_grace_ms", "illegal_limit")


def _from_table_spec(spec: leagues_pb2.LeagueSpec) -> leagues_pb2.LeagueSpec:
    """`spec` with its own fields taken from its `rules` and `clock` (a table's), which are
    kept; InvalidInputError if both spellings are given."""
    out = leagues_pb2.LeagueSpec()
    out.CopyFrom(spec)
    if spec.HasField("rules"):
        given = [f for f in RULES_FIELDS if getattr(spec, f)]
        if given:
            raise InvalidInputError(
                f"give the rules (a RulesSpec) or {', '.join(given)}, not both", field="rules"
            )
        if spec.rules.partnerships:
            raise InvalidInputError(
                "a league seats one player a side: no partnerships", field="rules.partnerships"
            )
        engine = build_rules(spec.rules)  # InvalidRulesError naming the switch
        out.game = spec.rules.game or rules_pb2.GAME_TABLIC
        out.players = engine.players
        out.rules.players = engine.players
        if out.game == rules_pb2.GAME_TABLIC:
            out.preset = spec.rules.tablic.preset or rules_pb2.TABLIC_PRESET_SERBIAN
            out.target = spec.rules.tablic.target
    if spec.HasField("clock"):
        given = [f for f in CLOCK_FIELDS if getattr(spec, f)]
        if given:
            raise InvalidInputError(
                f"give the clock (a ClockSpec) or {', '.join(given)}, not both", field="clock"
            )
        out.move_ms = spec.clock.move_millis
        out.timeouts_to_forfeit = spec.clock.forfeit_after_timeouts
        out.disconnect_grace_ms = spec.clock.disconnect_grace_millis
        out.illegal_limit = spec.clock.illegal_limit
    return out


def league_spec(spec: leagues_pb2.LeagueSpec) -> leagues_pb2.LeagueSpec:
    """The spec with every default filled in; InvalidInputError for what cannot be played.
    A table's `rules` and `clock` may stand for the league's own fields (kept as given)."""
    spec = _from_table_spec(spec)
    tac = game_name(spec.game) == "tac"
    out = leagues_pb2.LeagueSpec(
        game=rules_pb2.GAME_TAC if tac else rules_pb2.GAME_TABLIC,
        preset=rules_pb2.TABLIC_PRESET_UNSPECIFIED
        if tac
        else spec.preset or rules_pb2.TABLIC_PRESET_SERBIAN,
        target=0 if tac else spec.target,
        players=spec.players or 2,
        move_ms=_bounded(spec.move_ms, MOVE_MS, 100, MAX_MOVE_MS, "move_ms"),
        timeouts_to_forfeit=_bounded(
            spec.timeouts_to_forfeit, TIMEOUTS_TO_FORFEIT, 1, 1000, "timeouts_to_forfeit"
        ),
        join_deadline_ms=_bounded(
            spec.join_deadline_ms,
            JOIN_DEADLINE_MS,
            MIN_JOIN_DEADLINE_MS,
            MAX_JOIN_DEADLINE_MS,
            "join_deadline_ms",
        ),
        retention_days=_bounded(
            spec.retention_days, RETENTION_DAYS, 1, MAX_RETENTION_DAYS, "retention_days"
        ),
        disconnect_grace_ms=_bounded(
            spec.disconnect_grace_ms, DISCONNECT_GRACE_MS, 500, MAX_MOVE_MS, "disconnect_grace_ms"
        ),
        illegal_limit=_bounded(spec.illegal_limit, ILLEGAL_LIMIT, 1, 1000, "illegal_limit"),
        rematch_limit=_bounded(
            spec.rematch_limit, REMATCH_LIMIT, 1, MAX_REMATCH_LIMIT, "rematch_limit"
        ),
    )
    out.band_edges.extend(checked(spec.band_edges).edges)
    if spec.HasField("rules"):
        out.rules.CopyFrom(spec.rules)
    if spec.HasField("clock"):  # with the defaults filled in (a league always has a clock)
        out.clock.CopyFrom(spec.clock)
        out.clock.move_millis = out.move_ms
        out.clock.forfeit_after_timeouts = out.timeouts_to_forfeit
        out.clock.disconnect_grace_millis = out.disconnect_grace_ms
        out.clock.illegal_limit = out.illegal_limit
    build_rules(rules_of(out))  # the game, preset, players and target can be played
    return out


def rules_of(spec: leagues_pb2.LeagueSpec) -> rules_pb2.RulesSpec:
    """The rules of the league's tables (its table spec's, when it has one)."""
    if spec.HasField("rules"):
        return spec.rules
    game = game_name(spec.game)
    preset = preset_name(spec.preset) if game == "tablic" else ""
    return rules_spec(game, preset, spec.target, spec.players, False)


def dump(spec: leagues_pb2.LeagueSpec) -> str:
    """The spec as stored (hex of its bytes)."""
    return bytes(spec.SerializeToString()).hex()


def load(text: str) -> leagues_pb2.LeagueSpec:
    """A stored spec."""
    return leagues_pb2.LeagueSpec.FromString(bytes.fromhex(text))
