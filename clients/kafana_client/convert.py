"""Small helpers between the wire messages and the rules core's values.

>>> config = table_config(preset="serbian", target=51, seed=7, must_capture=True)
>>> config.rules.target, config.seed, config.rules.switches["must_capture"]
(51, 7, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kafana.games import tablic
from kafana.v1 import rules_pb2, state_pb2


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
    """A `TableConfig` from keyword arguments; extra keywords are rule switches."""
    rules = rules_pb2.RulesSpec(
        game="tablic",
        preset=preset,
        players=players,
        partnerships=partnerships,
        target=target,
    )
    return config_of(rules, decks, switches, move_millis, forfeit_on_timeout, name, seed)


def config_of(
    rules: rules_pb2.RulesSpec,
    decks: Sequence[Iterable[str]],
    switches: dict[str, Any],
    move_millis: int,
    forfeit_on_timeout: bool,
    name: str,
    seed: int | None,
) -> rules_pb2.TableConfig:
    """A `TableConfig` of either game: `rules` with `switches` set, decks, clock, name, seed."""
    if switches:
        rules.switches.update(switches)
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


def rules_of(info: state_pb2.TableInfo) -> tablic.Rules:
    """The table's full rules (from the canonical JSON the server sends)."""
    return tablic.Rules.from_json(info.rules_json)


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
        current_seat=tv.current_seat if tv.HasField("current_seat") else None,
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
    )


def current_seat(state: state_pb2.TableState) -> int | None:
    """The seat to move, or None (match not started or over)."""
    if state.info.status != state_pb2.TABLE_STATUS_PLAYING:
        return None
    view = state.tac if state.WhichOneof("game") == "tac" else state.tablic
    return view.current_seat if view.HasField("current_seat") else None
