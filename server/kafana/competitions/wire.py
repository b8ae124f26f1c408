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

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeVar

from google.protobuf.descriptor import EnumDescriptor

from kafana.competitions.model import Ending
from kafana.competitions.policy import Action, Fault, Reason
from kafana.competitions.tournament import Kind, Status
from kafana.errors import InvalidInputError
from kafana.v1 import competitions_pb2, rules_pb2, state_pb2

V = TypeVar("V", bound=int)
K = TypeVar("K", bound=str)


class WireEnum(Protocol[V]):
    """A generated enum (`rules_pb2.Game`...): its values and their names (protobuf's
    spelling of the methods)."""

    def Value(self, name: str) -> V:
        """The value named `name` (ValueError if none is)."""
        ...

    def Name(self, number: V) -> str:
        """The name of value `number` (ValueError if none has it)."""
        ...

    def keys(self) -> list[str]:
        """Every name."""
        ...

    @property
    def DESCRIPTOR(self) -> EnumDescriptor:
        """The enum's descriptor (its `name`)."""
        ...


def by_name(names: Iterable[K], wire: WireEnum[V], prefix: str) -> dict[K, V]:
    """Each stored name with the `wire` value spelled `prefix` + the name in upper case
    (ValueError at import if the proto lacks one: the two sets cannot drift apart).

    >>> by_name(["tac"], rules_pb2.Game, "GAME_") == {"tac": rules_pb2.GAME_TAC}
    True
    """
    return {name: wire.Value(prefix + name.upper()) for name in names}


GAMES = by_name(("tablic", "tac"), rules_pb2.Game, "GAME_")
PRESETS = by_name(
    ("serbian", "wild_jack", "tabinet", "tablanette"), rules_pb2.TablicPreset, "TABLIC_PRESET_"
)
ACTIONS = by_name(Action, competitions_pb2.FaultAction, "FAULT_ACTION_")
FORMATS = {v: k for k, v in by_name(Kind, competitions_pb2.EventFormat, "EVENT_FORMAT_").items()}
PHASES = by_name(("open", "started", "finished"), competitions_pb2.EventPhase, "EVENT_PHASE_")
STATUSES = by_name(Status, competitions_pb2.EventStatus, "EVENT_STATUS_")
GAME_ENDINGS = by_name(Ending, competitions_pb2.GameEnding, "GAME_ENDING_")
REASONS = by_name(Reason, competitions_pb2.FaultReason, "FAULT_REASON_")


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
    return key_of(GAMES, value, "tablic", rules_pb2.Game, "game")


def preset_enum(name: str) -> rules_pb2.TablicPreset.ValueType:
    """The TablicPreset of a preset's name ("": UNSPECIFIED)."""
    return PRESETS[name] if name else rules_pb2.TABLIC_PRESET_UNSPECIFIED


def preset_name(value: rules_pb2.TablicPreset.ValueType) -> str:
    """The name of a TablicPreset (UNSPECIFIED is "serbian"); InvalidInputError if unknown."""
    return key_of(PRESETS, value, "serbian", rules_pb2.TablicPreset, "preset")


def action_of(value: competitions_pb2.FaultAction.ValueType, default: Action) -> Action:
    """The Action of a FaultAction (UNSPECIFIED: `default`)."""
    return key_of(ACTIONS, value, default, competitions_pb2.FaultAction, "policy")


def key_of(table: Mapping[K, V], value: V, unspecified: K, wire: WireEnum[V], field: str) -> K:
    """The key of `value` in `table` (UNSPECIFIED, 0: `unspecified`); an unknown value is
    InvalidInputError naming `field` and the values known.

    >>> key_of(GAMES, 9, "tablic", rules_pb2.Game, "game")
    Traceback (most recent call last):
    ...
    kafana.errors.InvalidInputError: unknown Game 9: choose GAME_TABLIC or GAME_TAC
    """
    if not value:
        return unspecified
    for key, known in table.items():
        if known == value:
            return key
    choices = " or ".join(wire.Name(known) for known in table.values())
    raise InvalidInputError(
        f"unknown {wire.DESCRIPTOR.name} {value}: choose {choices}", field=field
    )


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
    return lower_name(state_pb2.EventReason, "EVENT_REASON_", value)


def reason_enum(name: str) -> state_pb2.EventReason.ValueType:
    """The EventReason of a name ("no_show"; "" or unknown: UNSPECIFIED)."""
    return named_value(state_pb2.EventReason, "EVENT_REASON_", name)


def result_name(value: state_pb2.ResultReason.ValueType) -> str:
    """A ResultReason's name, lower case ("score", "no_show"; "" for UNSPECIFIED)."""
    return lower_name(state_pb2.ResultReason, "RESULT_REASON_", value)


def result_enum(name: str) -> state_pb2.ResultReason.ValueType:
    """The ResultReason of a stored ending's name ("" or unknown: UNSPECIFIED)."""
    return named_value(state_pb2.ResultReason, "RESULT_REASON_", name)


def lower_name(wire: WireEnum[V], prefix: str, value: V) -> str:
    """A `wire` value's name without `prefix`, lower case ("" for UNSPECIFIED, value 0)."""
    return wire.Name(value).removeprefix(prefix).lower() if value else ""


def named_value(wire: WireEnum[V], prefix: str, name: str) -> V:
    """The `wire` value spelled `prefix` + `name` in upper case ("" or unknown: UNSPECIFIED).

    >>> [named_value(state_pb2.ResultReason, "RESULT_REASON_", n) for n in ("out", "", "x")]
    [2, 0, 0]
    """
    key = prefix + name.upper()
    return wire.Value(key if name and key in list(wire.keys()) else prefix + "UNSPECIFIED")


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
