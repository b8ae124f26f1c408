"""Tablić at a table: rules from a RulesSpec, its moves, views and captures on the wire."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.service.games.base import TableGame, seed_of, set_present, switches_of
from kafana.v1 import rules_pb2, service_pb2, state_pb2, storage_pb2


def cards(items: Iterable[tablic.Card]) -> list[str]:
    """Canonical card texts in canonical order."""
    return [c.text for c in sorted(items)]


def move_message(value: tablic.Move) -> state_pb2.Move:
    """A move as text and cards."""
    return state_pb2.Move(text=str(value), card=value.card.text, captured=cards(value.captured))


@functools.lru_cache(maxsize=8192)
def _played(text: str) -> bytes:
    """A logged move's message, serialized: parsed once per text (every PlayMove answers one).

    Bounded: the 8,192 texts used last (logged moves are legal ones, short: ~2 MB).
    """
    return move_message(tablic.Move.parse(text)).SerializeToString()


def build_rules(spec: rules_pb2.RulesSpec, switches: dict[str, Any] | None = None) -> tablic.Rules:
    """Preset, seats, target and switches to one Rules object (errors name the switch)."""
    if spec.game not in ("", "tablic"):
        raise InvalidInputError(f"this call is about Tablić, not {spec.game!r}")
    switches = dict(switches_of(spec) if switches is None else switches)
    for fixed in ("players", "partnerships"):
        if fixed in switches:
            raise InvalidInputError(f"set {fixed!r} with the RulesSpec field, not as a switch")
    if spec.target:
        switches["target"] = spec.target
    try:
        return tablic.Rules.preset(
            spec.preset or "serbian",
            players=spec.players or 2,
            partnerships=spec.partnerships,
            **switches,
        )
    except TypeError as error:
        raise InvalidInputError(f"bad rule switches: {error}") from None


def _hand_score(result: tablic.HandResult) -> state_pb2.HandScore:
    score = state_pb2.HandScore(
        hand=result.hand,
        cards=result.cards,
        card_points=result.card_points,
        most_cards=result.most_cards,
        tablas=result.tablas,
        points=result.points,
    )
    set_present(score, last_capturer=result.last_capturer)
    return score


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
        hand_results=[_hand_score(r) for r in view.hand_results],
        is_over=view.is_over,
    )
    set_present(
        out, seat=view.seat, current_seat=view.current_seat, last_capturer=view.last_capturer
    )
    return out


@functools.lru_cache(maxsize=256)
def _capture_rules(spec: bytes) -> tablic.Rules:
    """Rules of a serialized RulesSpec, cached: Captures callers repeat the same few rules.

    Bounded: the 256 specs used last (a spec is under the guard's message size; ~1 MB).
    """
    return build_rules(rules_pb2.RulesSpec.FromString(spec))


def captures(request: service_pb2.CapturesRequest) -> service_pb2.CapturesResponse:
    """The Captures RPC: every legal capture of a card from a table, under the given rules."""
    rules = _capture_rules(request.rules.SerializeToString(deterministic=True))
    card = tablic.Card.parse(request.card)
    table = tablic.parse_cards(list(request.table))
    found = tablic.captures(card, table, rules)
    ordered = sorted((cards(c) for c in found), key=lambda cs: (len(cs), cs))
    return service_pb2.CapturesResponse(captures=[state_pb2.Cards(cards=c) for c in ordered])


MIN_DECKS = 16
"""Explicit decks a Tablić table may always be given, whatever its target."""


class TablicGame(TableGame[tablic.MatchState, tablic.Move]):
    """Tablić: one seat moves at a time; sides score points over hands."""

    name = "tablic"

    def build_rules(self, spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> tablic.Rules:
        """See `build_rules`."""
        return build_rules(spec, switches)

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
        """`KC:KD+KH` or `7S`."""
        return tablic.Move.parse(text)

    def move_message(self, state: tablic.MatchState, move: tablic.Move) -> state_pb2.Move:
        """Text, card and captured cards."""
        return move_message(move)

    def played_message(self, after: tablic.MatchState, text: str) -> state_pb2.Move:
        """The move is all in its text."""
        return state_pb2.Move.FromString(_played(text))

    def played_bytes(self, after: tablic.MatchState, text: str) -> bytes:
        """Cached per move text."""
        return _played(text)

    def fill_view(
        self, out: state_pb2.TableState, state: tablic.MatchState, seat: int | None
    ) -> None:
        """Own hand only."""
        view = state.public_view() if seat is None else state.view(seat)
        out.tablic.CopyFrom(tablic_view(view))

    def scores(self, state: tablic.MatchState) -> list[int]:
        """Points per side, finished hands only."""
        return list(state.scores)

    def fill_result(self, out: state_pb2.Result, state: tablic.MatchState) -> None:
        """Scores per side."""
        out.scores.extend(state.scores)
