"""Small helpers between the wire messages and the rules core's values.

Rules are typed on the wire (`RulesSpec`, its game's branch `tablic` or `tac`); `rules_spec`
builds one from keywords, the one place a switch name is checked against the message:

>>> config = table_config(preset="serbian", target=51, seed=7, must_capture=True)
>>> config.rules.tablic.target, config.seed, config.rules.tablic.must_capture
(51, 7, True)
>>> rules_spec("tac", players=3, tac_calls=True).tac.tac_calls
True
>>> word(state_pb2.EventReason, state_pb2.EVENT_REASON_NO_SHOW)
'no show'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.v1 import rules_pb2, state_pb2

GAMES: dict[str, rules_pb2.Game.ValueType] = {
    "tablic": rules_pb2.GAME_TABLIC,
    "tac": rules_pb2.GAME_TAC,
}
"""The games by the names people type."""
PRESETS: dict[str, rules_pb2.TablicPreset.ValueType] = {
    "serbian": rules_pb2.TABLIC_PRESET_SERBIAN,
    "wild_jack": rules_pb2.TABLIC_PRESET_WILD_JACK,
    "tabinet": rules_pb2.TABLIC_PRESET_TABINET,
    "tablanette": rules_pb2.TABLIC_PRESET_TABLANETTE,
}
"""Tablić's presets by their names in the rules core (`tablic.PRESETS`)."""


def word(enum: Any, value: int) -> str:
    """An enum value in lowercase words for people: `EVENT_REASON_TIMEOUT` is "timeout",
    `EVENT_REASON_NO_SHOW` "no show", `TAC_PHASE_DRAW` "draw"; the UNSPECIFIED value (or one
    this client does not know) is "".
    `enum` is the generated enum (`state_pb2.EventReason`, `state_pb2.TacPhase` ...)."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.DESCRIPTOR.name).upper() + "_"
    try:
        name = enum.Name(value)
    except ValueError:
        return ""
    text = name.removeprefix(prefix).lower().replace("_", " ")
    return "" if text == "unspecified" else text


def game_of(name: str) -> rules_pb2.Game.ValueType:
    """The `Game` of a name ("tablic", "tac"; "" is Tablić); a clear error for another."""
    if not name:
        return rules_pb2.GAME_TABLIC
    try:
        return GAMES[name.lower()]
    except KeyError:
        raise InvalidInputError(
            f"unknown game {name!r}: choose one of {', '.join(GAMES)}"
        ) from None


def game_name(spec: rules_pb2.RulesSpec) -> str:
    """The game of a `RulesSpec` as a name: "tac" or "tablic" (UNSPECIFIED is Tablić)."""
    return "tac" if spec.game == rules_pb2.GAME_TAC or spec.HasField("tac") else "tablic"


def _card_points(value: Any) -> list[rules_pb2.CardPoints]:
    items = value.items() if isinstance(value, Mapping) else value
    out = []
    for item in items:
        if isinstance(item, rules_pb2.CardPoints):
            out.append(item)
        else:
            pattern, points = item
            out.append(rules_pb2.CardPoints(pattern=str(pattern), points=int(points)))
    return out


def switch_names(branch: Any) -> list[str]:
    """The switches of a game's rules message (TablicRules, TacRules), in field order."""
    skip = {"preset", "card_points_set"}
    return [f.name for f in branch.DESCRIPTOR.fields if f.name not in skip]


def set_switches(spec: rules_pb2.RulesSpec, switches: Mapping[str, Any]) -> rules_pb2.RulesSpec:
    """Set each switch on `spec`'s game branch (`spec.tablic.<name>` or `spec.tac.<name>`).

    A name the game's message does not have, or a value of the wrong type, is an
    InvalidInputError naming it and the valid switches. Returns `spec`.
    """
    game = game_name(spec)
    branch: Any = getattr(spec, game)
    branch.SetInParent()  # the branch is present even with no switch (the game is clear)
    valid = switch_names(branch)
    unknown = sorted(set(switches) - set(valid))
    if unknown:
        raise InvalidInputError(
            f"unknown {game} rule switch(es): {', '.join(unknown)}; "
            f"the {game} switches are {', '.join(valid)}"
        )
    for name, value in switches.items():
        if name == "card_points":
            del branch.card_points[:]
            branch.card_points.extend(_card_points(value))
            branch.card_points_set = True
            continue
        try:
            setattr(branch, name, value)
        except (TypeError, ValueError) as error:
            problem = f"rule switch {name}: {value!r} does not fit ({error})"
            raise InvalidInputError(problem) from None
    return spec


def rules_spec(
    game: str = "tablic",
    *,
    players: int = 2,
    partnerships: bool = False,
    preset: str | None = None,
    **switches: Any,
) -> rules_pb2.RulesSpec:
    """A typed `RulesSpec`: the game ("tablic" or "tac"), its seats, the Tablić preset's
    name (`tablic.PRESETS`) and any switch of the game's rules message as a keyword
    (`target=51`, `card_points=[("A", 1), ("10D", 2)]`, `decks=2`)."""
    spec = rules_pb2.RulesSpec(game=game_of(game), players=players, partnerships=partnerships)
    if preset is not None:
        if spec.game != rules_pb2.GAME_TABLIC:
            raise InvalidInputError(f"a preset is a Tablić choice; {game} has none")
        if preset not in PRESETS:
            raise InvalidInputError(
                f"unknown preset {preset!r}: choose one of {', '.join(PRESETS)}"
            )
        spec.tablic.preset = PRESETS[preset]
    return set_switches(spec, switches)


def table_config(
    *,
    preset: str = "serbian",
    players: int = 2,
    partnerships: bool = False,
    target: int = 0,
    seed: int | None = None,
    decks: Sequence[Iterable[str]] = (),
    move_millis: int = 0,
    forfeit_on_timeout: bool = False,
    name: str = "",
    **switches: Any,
) -> rules_pb2.TableConfig:
    """A Tablić `TableConfig` from keyword arguments; extra keywords are rule switches
    (`target` 0 keeps the preset's)."""
    if target:
        switches["target"] = target
    rules = rules_spec("tablic", players=players, partnerships=partnerships, preset=preset)
    return config_of(rules, decks, switches, move_millis, forfeit_on_timeout, name, seed)


def config_of(
    rules: rules_pb2.RulesSpec,
    decks: Sequence[Iterable[str]],
    switches: Mapping[str, Any],
    move_millis: int,
    forfeit_on_timeout: bool,
    name: str,
    seed: int | None,
) -> rules_pb2.TableConfig:
    """A `TableConfig` of either game: `rules` with `switches` set, decks, clock, name, seed."""
    set_switches(rules, switches)
    policy = (
        rules_pb2.TIMEOUT_POLICY_FORFEIT
        if forfeit_on_timeout
        else rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
    )
    config = rules_pb2.TableConfig(
        rules=rules,
        decks=[rules_pb2.Deck(cards=list(deck)) for deck in decks],
        clock=rules_pb2.ClockSpec(move_millis=move_millis, policy=policy),
        name=name,
    )
    if seed is not None:
        config.seed = seed
    return config


def switches_of(spec: rules_pb2.RulesSpec) -> dict[str, Any]:
    """The switches set on `spec`'s game branch, as the rules core names them (card points
    as (pattern, points) pairs; only when given)."""
    branch: Any = getattr(spec, game_name(spec))
    out: dict[str, Any] = {}
    for name in switch_names(branch):
        if name == "card_points":
            if branch.card_points_set or len(branch.card_points):
                out[name] = tuple((p.pattern, p.points) for p in branch.card_points)
        elif branch.HasField(name):
            out[name] = getattr(branch, name)
    return out


def preset_name(spec: rules_pb2.RulesSpec) -> str:
    """The Tablić preset of `spec` by name ("serbian" when not set)."""
    for text, value in PRESETS.items():
        if value == spec.tablic.preset:
            return text
    return "serbian"


def tablic_rules(spec: rules_pb2.RulesSpec) -> tablic.Rules:
    """A Tablić `RulesSpec` as the rules core's `Rules` (the preset, then its switches)."""
    players = spec.players or 2
    return tablic.Rules.preset(preset_name(spec), players, spec.partnerships, **switches_of(spec))


def rules_of(info: state_pb2.TableInfo) -> tablic.Rules:
    """The table's full rules (`TableInfo.rules`, the rules in force)."""
    return tablic_rules(info.rules)


def move_message(move: str | tablic.Move | state_pb2.Move | object) -> state_pb2.Move:
    """What PlayMove sends: a wire `Move` as is (text, structured or both), else its text."""
    if isinstance(move, state_pb2.Move):
        return move
    return state_pb2.Move(text=str(move))


def move_of(message: state_pb2.Move) -> tablic.Move:
    """A wire move as a rules-core `Move`."""
    return tablic.Move.parse(message.text)


def cards_of(texts: Iterable[str]) -> tuple[tablic.Card, ...]:
    """Card texts as `Card`s."""
    return tuple(tablic.Card.parse(text) for text in texts)


def hand_result_of(score: state_pb2.HandScore) -> tablic.HandResult:
    """A wire hand score as a `HandResult`."""
    return tablic.HandResult(
        hand=score.hand,
        cards=tuple(score.cards),
        card_points=tuple(score.card_points),
        most_cards=tuple(score.most_cards),
        tablas=tuple(score.tablas),
        points=tuple(score.points),
        last_capturer=score.last_capturer if score.HasField("last_capturer") else None,
    )


def view_of(state: state_pb2.TableState) -> tablic.View:
    """The seat's (or spectator's) `View`, as bots take it, from a wire `TableState`."""
    tv = state.tablic
    seat = tv.seat if tv.HasField("seat") else None
    return tablic.View(
        rules=rules_of(state.info),
        seat=seat,
        hand=None if seat is None else cards_of(tv.hand),
        table=cards_of(tv.table),
        current_seat=current_seat(state),
        hand_no=tv.hand_no,
        dealer=tv.dealer,
        move_count=tv.move_count,
        hand_sizes=tuple(tv.hand_sizes),
        deck_remaining=tv.deck_remaining,
        captured=tuple(frozenset(cards_of(side.cards)) for side in tv.captured),
        tablas=tuple(tv.tablas),
        last_capturer=tv.last_capturer if tv.HasField("last_capturer") else None,
        scores=tuple(tv.scores),
        hand_results=tuple(hand_result_of(r) for r in tv.hand_results),
        is_over=tv.is_over,
        builds=tuple(tablic.Build(cards_of(b.cards), b.value, b.owner) for b in tv.builds),
    )


def current_seat(state: state_pb2.TableState) -> int | None:
    """The seat to move, or None (match not started or over)."""
    if state.info.status != state_pb2.TABLE_STATUS_PLAYING:
        return None
    return state.current_seat if state.HasField("current_seat") else None


def view_seat(state: state_pb2.TableState) -> int | None:
    """The seat whose view `state` is (None: a spectator's), in either game."""
    view = state.tac if state.WhichOneof("game") == "tac" else state.tablic
    return view.seat if view.HasField("seat") else None
