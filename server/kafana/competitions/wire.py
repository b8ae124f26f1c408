"""Competition names as the API's enums, and back: games, presets, faults, table reasons.

Events and leagues keep plain names ("tablic", "serbian", "timeout") in their stores, records
and exports; the messages carry `kafana.v1` enums. Each pair of functions converts one closed
set both ways, and `rules_spec` makes the typed `RulesSpec` of a competition's tables.

>>> game_name(game_enum("tac")), preset_name(preset_enum("wild_jack"))
('tac', 'wild_jack')
>>> rules_spec("tablic", "tabinet", 151, 2, False).tablic.target
151
>>> reason_name(state_pb2.EVENT_REASON_NO_SHOW), result_name(state_pb2.RESULT_REASON_OUT)
('no_show', 'out')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafana.competitions.model import Ending
from kafana.competitions.policy import Action, Fault, Reason
from kafana.competitions.tournament import Kind, Status
from kafana.errors import InvalidInputError
from kafana.v1 import competitions_pb2, rules_pb2, state_pb2

GAMES = {"tablic": rules_pb2.GAME_TABLIC, "tac": rules_pb2.GAME_TAC}
PRESETS = {
    "serbian": rules_pb2.TABLIC_PRESET_SERBIAN,
    "wild_jack": rules_pb2.TABLIC_PRESET_WILD_JACK,
    "tabinet": rules_pb2.TABLIC_PRESET_TABINET,
    "tablanette": rules_pb2.TABLIC_PRESET_TABLANETTE,
}
ACTIONS = {
    Action.DEFAULT_MOVE: competitions_pb2.FAULT_ACTION_DEFAULT_MOVE,
    Action.FORFEIT_HAND: competitions_pb2.FAULT_ACTION_FORFEIT_HAND,
    Action.FORFEIT_MATCH: competitions_pb2.FAULT_ACTION_FORFEIT_MATCH,
}
FORMATS = {
    competitions_pb2.EVENT_FORMAT_ROUND_ROBIN: Kind.ROUND_ROBIN,
    competitions_pb2.EVENT_FORMAT_SWISS: Kind.SWISS,
    competitions_pb2.EVENT_FORMAT_DUPLICATE: Kind.DUPLICATE,
    competitions_pb2.EVENT_FORMAT_ARENA: Kind.ARENA,
}
PHASES = {
    "open": competitions_pb2.EVENT_PHASE_OPEN,
    "started": competitions_pb2.EVENT_PHASE_STARTED,
    "finished": competitions_pb2.EVENT_PHASE_FINISHED,
}
STATUSES = {
    Status.RUNNING: competitions_pb2.EVENT_STATUS_RUNNING,
    Status.PAUSED: competitions_pb2.EVENT_STATUS_PAUSED,
    Status.ENDED: competitions_pb2.EVENT_STATUS_ENDED,
}
GAME_ENDINGS = {
    Ending.SCORE: competitions_pb2.GAME_ENDING_SCORE,
    Ending.FORFEIT: competitions_pb2.GAME_ENDING_FORFEIT,
    Ending.ADJUDICATED: competitions_pb2.GAME_ENDING_ADJUDICATED,
    Ending.NOT_PLAYED: competitions_pb2.GAME_ENDING_NOT_PLAYED,
}
REASONS = {
    Reason.TIMEOUT: competitions_pb2.FAULT_REASON_TIMEOUT,
    Reason.TIMEOUTS: competitions_pb2.FAULT_REASON_TIMEOUTS,
    Reason.DISCONNECT: competitions_pb2.FAULT_REASON_DISCONNECT,
    Reason.ILLEGAL_MOVE: competitions_pb2.FAULT_REASON_ILLEGAL_MOVE,
    Reason.NO_SHOW: competitions_pb2.FAULT_REASON_NO_SHOW,
    Reason.ADJUDICATED: competitions_pb2.FAULT_REASON_ADJUDICATED,
    Reason.EVENT_ENDED: competitions_pb2.FAULT_REASON_EVENT_ENDED,
}


def format_enum(kind: Kind) -> competitions_pb2.EventFormat.ValueType:
    """The EventFormat of an event's kind."""
    return next(value for value, known in FORMATS.items() if known is kind)


def phase_enum(phase: str) -> competitions_pb2.EventPhase.ValueType:
    """The EventPhase of a stored phase ("open", "started", "finished")."""
    return PHASES.get(phase, competitions_pb2.EVENT_PHASE_UNSPECIFIED)


def status_enum(status: str) -> competitions_pb2.EventStatus.ValueType:
    """The EventStatus of a stored status ("" is running)."""
    return STATUSES[Status(status or "running")]


def game_enum(name: str) -> rules_pb2.Game.ValueType:
    """The Game of a game's name ("" is Tablić)."""
    return GAMES[name or "tablic"]


def game_name(value: rules_pb2.Game.ValueType) -> str:
    """The name of a Game (UNSPECIFIED is Tablić); InvalidInputError for an unknown value."""
    if value == rules_pb2.GAME_UNSPECIFIED:
        return "tablic"
    for name, known in GAMES.items():
        if known == value:
            return name
    raise InvalidInputError(f"unknown game {value}: choose GAME_TABLIC or GAME_TAC", field="game")


def preset_enum(name: str) -> rules_pb2.TablicPreset.ValueType:
    """The TablicPreset of a preset's name ("": UNSPECIFIED)."""
    return PRESETS[name] if name else rules_pb2.TABLIC_PRESET_UNSPECIFIED


def preset_name(value: rules_pb2.TablicPreset.ValueType) -> str:
    """The name of a TablicPreset (UNSPECIFIED is "serbian"); InvalidInputError if unknown."""
    if value == rules_pb2.TABLIC_PRESET_UNSPECIFIED:
        return "serbian"
    for name, known in PRESETS.items():
        if known == value:
            return name
    raise InvalidInputError(f"unknown Tablić preset {value}", field="preset")


def action_of(value: competitions_pb2.FaultAction.ValueType, default: Action) -> Action:
    """The Action of a FaultAction (UNSPECIFIED: `default`)."""
    if value == competitions_pb2.FAULT_ACTION_UNSPECIFIED:
        return default
    for action, known in ACTIONS.items():
        if known == value:
            return action
    raise InvalidInputError(f"unknown fault action {value}", field="policy")


def fault_message(fault: Fault | str) -> competitions_pb2.Fault:
    """A fault (or its code, ``seat1:timeout->forfeit_hand@12``) as a message."""
    if isinstance(fault, str):
        fault = parse_fault(fault)
    return competitions_pb2.Fault(
        seat=fault.seat,
        reason=REASONS[fault.reason],
        action=ACTIONS[fault.action],
        move_no=fault.move_no,
        code=fault.code(),
    )


def parse_fault(code: str) -> Fault:
    """The fault of a code ``seat<k>:<reason>-><action>@<moves>`` (ValueError if malformed).

    >>> parse_fault("seat1:timeout->forfeit_hand@12")
    Fault(seat=1, reason=<Reason.TIMEOUT: 'timeout'>, action=<Action.FORFEIT_HAND: \
'forfeit_hand'>, move_no=12, detail='')
    """
    seat, _, rest = code.partition(":")
    reason, _, rest = rest.partition("->")
    action, _, move_no = rest.partition("@")
    if not seat.startswith("seat"):
        raise ValueError(f"fault code {code!r} is not like seat1:timeout->default_move@12")
    return Fault(int(seat[4:]), Reason(reason), Action(action), int(move_no))


def reason_name(value: state_pb2.EventReason.ValueType) -> str:
    """An EventReason's name as the fault codes spell it ("" for UNSPECIFIED)."""
    if value == state_pb2.EVENT_REASON_UNSPECIFIED:
        return ""
    return state_pb2.EventReason.Name(value).removeprefix("EVENT_REASON_").lower()


def reason_enum(name: str) -> state_pb2.EventReason.ValueType:
    """The EventReason of a name ("no_show"; "" or unknown: UNSPECIFIED)."""
    key = "EVENT_REASON_" + name.upper()
    if not name or key not in list(state_pb2.EventReason.keys()):
        return state_pb2.EVENT_REASON_UNSPECIFIED
    return state_pb2.EventReason.Value(key)


def result_name(value: state_pb2.ResultReason.ValueType) -> str:
    """A ResultReason's name, lower case ("score", "no_show"; "" for UNSPECIFIED)."""
    if value == state_pb2.RESULT_REASON_UNSPECIFIED:
        return ""
    return state_pb2.ResultReason.Name(value).removeprefix("RESULT_REASON_").lower()


def result_enum(name: str) -> state_pb2.ResultReason.ValueType:
    """The ResultReason of a stored ending's name ("" or unknown: UNSPECIFIED)."""
    key = "RESULT_REASON_" + name.upper()
    if not name or key not in list(state_pb2.ResultReason.keys()):
        return state_pb2.RESULT_REASON_UNSPECIFIED
    return state_pb2.ResultReason.Value(key)


def rules_spec(
    game: str,
    preset: str,
    target: int,
    players: int,
    partnerships: bool,
    switches: Mapping[str, Any] | None = None,
) -> rules_pb2.RulesSpec:
    """The typed rules of a competition's table: the game, its seats, and for Tablić the
    preset and (0: the preset's) target; `switches` (engine names, as the RulesSpec's) set
    on top."""
    spec = rules_pb2.RulesSpec(game=game_enum(game), players=players, partnerships=partnerships)
    switches = switches or {}
    if spec.game == rules_pb2.GAME_TAC:
        spec.tac.SetInParent()
        for name, value in switches.items():
            setattr(spec.tac, name, value)
        return spec
    spec.tablic.preset = preset_enum(preset or "serbian")
    if target:
        spec.tablic.target = target
    for name, value in switches.items():
        if name == "card_points":
            spec.tablic.card_points.extend(
                rules_pb2.CardPoints(pattern=p, points=n) for p, n in value
            )
            spec.tablic.card_points_set = True
        else:
            setattr(spec.tablic, name, value)
    return spec
