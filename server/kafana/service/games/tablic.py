"""Tablić at a table: rules from a RulesSpec and back, its moves, views, deals and captures on
the wire."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from kafana.errors import InvalidInputError, InvalidRulesError
from kafana.games import tablic
from kafana.service.games.base import (
    TableGame,
    game_label,
    message_of,
    other_branch,
    rules_error,
    seed_of,
    set_present,
    set_switches,
)
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2, storage_pb2

PRESETS: dict[rules_pb2.TablicPreset.ValueType, str] = {
    rules_pb2.TABLIC_PRESET_UNSPECIFIED: "serbian",
    rules_pb2.TABLIC_PRESET_SERBIAN: "serbian",
    rules_pb2.TABLIC_PRESET_WILD_JACK: "wild_jack",
    rules_pb2.TABLIC_PRESET_TABINET: "tabinet",
    rules_pb2.TABLIC_PRESET_TABLANETTE: "tablanette",
}
"""Each `TablicPreset` value's preset in `kafana.games.tablic` (UNSPECIFIED: serbian)."""

NOT_SWITCHES = frozenset({"preset", "card_points", "card_points_set"})
"""`TablicRules` fields that are not a switch of the same name."""


DECK_CARDS = 52
"""The most cards a Captures table can hold (a deck's; the card played is one of them)."""
MAX_CARD_POINTS = 128
"""The most `card_points` patterns a rules spec may give (13 ranks and 52 cards are 65)."""


def cards(items: Iterable[tablic.Card]) -> list[str]:
    """Canonical card texts in canonical order."""
    return [c.text for c in sorted(items)]


def move_message(value: tablic.Move) -> state_pb2.Move:
    """A move as text and structured (the card and the cards it captures, or the cards a
    build joins and its value)."""
    out = state_pb2.Move(text=str(value))
    out.tablic.card = value.card.text
    out.tablic.captured.extend(cards(value.captured))
    if value.is_build:
        out.tablic.joined.extend(cards(value.joined))
        out.tablic.build_value = value.build_value
    return out


@functools.lru_cache(maxsize=8192)
def _parsed(text: str) -> tuple[tablic.Move, str]:
    """A move's text parsed, with its canonical text: once per text (every PlayMove parses
    one; `Move.parse` is 2-5 us, `str` of it up to 2 us). Moves are immutable, so one is
    shared. A text that is no move raises, and is not kept.

    Bounded: the 8,192 texts used last (~2 MB).
    """
    move = tablic.Move.parse(text)
    return move, str(move)


@functools.lru_cache(maxsize=8192)
def _played(text: str) -> bytes:
    """A logged move's message, serialized: parsed once per text (every PlayMove answers one).

    Bounded: the 8,192 texts used last (logged moves are legal ones, short: ~2 MB).
    """
    return move_message(tablic.Move.parse(text)).SerializeToString()


def preset_name(value: rules_pb2.TablicPreset.ValueType) -> str:
    """The preset a `TablicPreset` value names (errors name the field)."""
    if value not in PRESETS:
        raise InvalidRulesError(
            f"rules.tablic.preset {value} is not a preset: choose one of "
            + ", ".join(rules_pb2.TablicPreset.Name(v) for v in PRESETS if v),
            field="rules.tablic.preset",
        )
    return PRESETS[value]


def build_rules(spec: rules_pb2.RulesSpec) -> tablic.Rules:
    """Preset, seats and the set switches to one Rules object (errors name the field)."""
    if spec.game not in (rules_pb2.GAME_UNSPECIFIED, rules_pb2.GAME_TABLIC):
        raise InvalidRulesError(
            f"this call is about Tablić: rules.game must be GAME_TABLIC (or unset), not "
            f"{game_label(spec.game)}",
            field="rules.game",
        )
    other_branch(spec, "GAME_TABLIC", "tablic")
    branch = spec.tablic
    switches = set_switches(branch, NOT_SWITCHES)
    if len(branch.card_points) > MAX_CARD_POINTS:  # before any is read (60,000: 52 ms)
        raise InvalidRulesError(
            f"rules.tablic.card_points: {len(branch.card_points)} patterns, more than"
            f" {MAX_CARD_POINTS} (a rank or a card each)",
            field="rules.tablic.card_points",
        )
    if branch.card_points_set or branch.card_points:
        switches["card_points"] = tuple((p.pattern, p.points) for p in branch.card_points)
    preset = preset_name(branch.preset)
    try:
        return tablic.Rules.preset(
            preset, players=spec.players or 2, partnerships=spec.partnerships, **switches
        )
    except InvalidInputError as error:
        raise rules_error(error, branch) from None


def spec_of(
    rules: tablic.Rules, preset: rules_pb2.TablicPreset.ValueType = rules_pb2.TABLIC_PRESET_SERBIAN
) -> rules_pb2.RulesSpec:
    """The rules in force as a spec: every switch set, over `preset` (UNSPECIFIED: SERBIAN)."""
    branch = message_of(
        rules_pb2.TablicRules,
        rules,
        preset=preset or rules_pb2.TABLIC_PRESET_SERBIAN,
        card_points=[rules_pb2.CardPoints(pattern=p, points=v) for p, v in rules.card_points],
        card_points_set=True,
    )
    return rules_pb2.RulesSpec(
        game=rules_pb2.GAME_TABLIC,
        players=rules.players,
        partnerships=rules.partnerships,
        tablic=branch,
    )


def hand_score(result: tablic.HandResult) -> state_pb2.HandScore:
    """One finished hand's score on the wire."""
    return message_of(state_pb2.HandScore, result)


def tablic_view(view: tablic.View) -> state_pb2.TablicView:
    """A seat's (or a spectator's) view: own hand only, other hands as sizes, deck as a count."""
    out = state_pb2.TablicView(
        hand=cards(view.hand or ()),
        table=cards(view.table),
        hand_no=view.hand_no,
        dealer=view.dealer,
        move_count=view.move_count,
        hand_sizes=view.hand_sizes,
        deck_remaining=view.deck_remaining,
        captured=[state_pb2.Cards(cards=cards(pile)) for pile in view.captured],
        tablas=view.tablas,
        scores=view.scores,
        hand_results=[hand_score(r) for r in view.hand_results],
        is_over=view.is_over,
        builds=[
            state_pb2.TablicBuild(cards=cards(b.cards), value=b.value, owner=b.owner)
            for b in view.builds
        ],
    )
    set_present(out, seat=view.seat, last_capturer=view.last_capturer)
    return out


def fill_deal(
    out: events_pb2.Deal,
    before: tablic.MatchState,
    after: tablic.MatchState,
    seat: int | None,
    started: bool,
) -> bool:
    """The cards dealt between `before` and `after` (the match's start when `started`), as
    `seat` may see them: its own new hand only (a spectator: none), the opening table of a new
    hand, sizes and the deck as a count. False (and `out` untouched) when none were dealt."""
    new_hand = started or after.hand_no != before.hand_no
    if after.is_over or not (new_hand or after.deck_remaining != before.deck_remaining):
        return False
    out.hand_no = after.hand_no
    if seat is not None:
        out.hand.extend(cards(after.hand(seat)))  # a deal comes when every hand is empty
    if new_hand:
        out.table.extend(cards(after.table))
    out.hand_sizes.extend(len(after.hand(s)) for s in range(after.seats))
    out.deck_remaining = after.deck_remaining
    return True


@functools.lru_cache(maxsize=256)
def _capture_rules(spec: bytes) -> tablic.Rules:
    """Rules of a serialized RulesSpec, cached: Captures callers repeat the same few rules.

    Bounded: the 256 specs used last (a spec is under the guard's message size; ~1 MB).
    """
    return build_rules(rules_pb2.RulesSpec.FromString(spec))


def captures(request: service_pb2.CapturesRequest) -> service_pb2.CapturesResponse:
    """The Captures RPC: every legal capture of a card from a table, under the given rules."""
    if len(request.table) > DECK_CARDS:  # before any card is read (the guard's size allows
        raise InvalidInputError(  # 170,000 of them: 68 ms to parse, for one call's token)
            f"table: {len(request.table)} cards, more than the {DECK_CARDS} of a deck",
            field="table",
        )
    rules = _capture_rules(request.rules.SerializeToString(deterministic=True))
    card = tablic.Card.parse(request.card)
    table = tablic.parse_cards(list(request.table))
    found = tablic.captures(card, table, rules)
    ordered = sorted((cards(c) for c in found), key=lambda cs: (len(cs), cs))
    return service_pb2.CapturesResponse(captures=[state_pb2.Cards(cards=c) for c in ordered])


def _cards_of(texts: Iterable[str], name: str) -> list[tablic.Card]:
    """Cards of a `TablicMove` field (errors name the field)."""
    try:
        return [tablic.Card.parse(c) for c in texts]
    except InvalidInputError as error:
        raise InvalidInputError(f"move.tablic.{name}: {error}", field="move") from None


def structured_move(move: state_pb2.TablicMove) -> tablic.Move:
    """The move a `TablicMove` names: a capture or a trail, or with `build_value` a build
    (errors name the field)."""
    if not move.card:
        raise InvalidInputError("move.tablic.card is empty: name the card played", field="move")
    captured = _cards_of(move.captured, "captured")
    joined = _cards_of(move.joined, "joined")
    try:
        card = tablic.Card.parse(move.card)
    except InvalidInputError as error:
        raise InvalidInputError(f"move.tablic.card: {error}", field="move") from None
    if not move.build_value and not joined:
        return tablic.Move(card, captured)
    if captured:
        raise InvalidInputError(
            "move.tablic: a build captures nothing: set joined and build_value, not captured",
            field="move",
        )
    if not move.build_value or not joined:
        raise InvalidInputError(
            "move.tablic: a build needs both joined (the table cards) and build_value",
            field="move",
        )
    try:
        return tablic.Move.build(card, joined, move.build_value)
    except InvalidInputError as error:
        raise InvalidInputError(f"move.tablic: {error}", field="move") from None


MIN_DECKS = 16
"""Explicit decks a Tablić table may always be given, whatever its target."""


class TablicGame(TableGame[tablic.MatchState, tablic.Move]):
    """Tablić: one seat moves at a time; sides score points over hands."""

    name = "tablic"
    label = "Tablić"
    game = rules_pb2.GAME_TABLIC
    rules_type = tablic.Rules

    def build_rules(self, spec: rules_pb2.RulesSpec) -> tablic.Rules:
        """See `build_rules`."""
        return build_rules(spec)

    def spec_of(self, rules: Any, spec: rules_pb2.RulesSpec) -> rules_pb2.RulesSpec:
        """Every switch, over the preset the table was created with."""
        return spec_of(rules, spec.tablic.preset)

    def max_decks(self, rules: tablic.Rules) -> int:
        """The hands a match can use: every hand hands out all its card points, so after
        `target * sides / points` hands some side has reached the target; twice that, plus a
        hand per side, leaves room for ties, and never fewer than `MIN_DECKS` (a duplicate
        board gives 8). A deck without points bounds nothing (0: only the byte bound)."""
        points = sum(rules.points_by_index)
        if not points:
            return 0
        return max(MIN_DECKS, 2 * -(-rules.target * rules.sides // points) + rules.sides)

    def start(self, stored: storage_pb2.StoredTable) -> tablic.MatchState:
        """The match at move 0."""
        decks = [list(deck.cards) for deck in stored.decks] or None
        rules = tablic.Rules.from_json(stored.rules_json)
        return tablic.new_match(rules, seed=seed_of(stored), decks=decks)

    def parse_move(self, text: str, seat: int) -> tablic.Move:
        """`KC:KD+KH`, `7S` or (with `building`) `7C>AH+5D=13`."""
        return _parsed(text)[0]

    def parse_canonical(self, text: str, seat: int) -> tuple[tablic.Move, str]:
        """Cached per text (`_parsed`)."""
        return _parsed(text)

    def structured_move(self, branch: state_pb2.TablicMove, seat: int) -> tablic.Move:
        """The card and captures (a build: joined cards and value)."""
        return structured_move(branch)

    def move_message(self, state: tablic.MatchState, move: tablic.Move) -> state_pb2.Move:
        """Text, card and captured cards (a build: joined cards and value)."""
        return move_message(move)

    def played_message(self, after: tablic.MatchState, text: str) -> state_pb2.Move:
        """The move is all in its text."""
        return state_pb2.Move.FromString(_played(text))

    def played_bytes(self, after: tablic.MatchState, text: str) -> bytes:
        """Cached per move text."""
        return _played(text)

    def view_message(self, view: tablic.View) -> state_pb2.TablicView:
        """Own hand only."""
        return tablic_view(view)

    def fill_event(
        self,
        out: events_pb2.Event,
        before: tablic.MatchState,
        after: tablic.MatchState,
        seat: int | None,
        *,
        started: bool,
        moved: bool,
    ) -> None:
        """The deal (the start, a new round or hand), and the score of a hand this move
        finished."""
        if not (started or moved):
            return
        fill_deal(out.deal, before, after, seat, started)
        if moved and len(after.hand_results) > len(before.hand_results):
            out.hand_score.CopyFrom(hand_score(after.hand_results[-1]))

    def scores(self, state: tablic.MatchState) -> list[int]:
        """Points per side, finished hands only."""
        return list(state.scores)

    def fill_result(self, out: state_pb2.Result, state: tablic.MatchState) -> None:
        """Scores per side."""
        out.scores.extend(state.scores)
