"""Tablić at a table: rules from a RulesSpec, the match, its moves and views on the wire."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from kafana.errors import InvalidInputError, NotYourTurnError, TooManyMovesError
from kafana.games import tablic
from kafana.service.games.base import Game, switches_of
from kafana.v1 import rules_pb2, state_pb2, storage_pb2


def cards(items: Iterable[tablic.Card]) -> list[str]:
    """Canonical card texts in canonical order."""
    return [c.text for c in sorted(items)]


def move_message(value: tablic.Move) -> state_pb2.Move:
    """A move as text and cards."""
    return state_pb2.Move(text=str(value), card=value.card.text, captured=cards(value.captured))


@functools.lru_cache(maxsize=8192)
def _played(text: str) -> bytes:
    """A logged move's message, serialized: parsed once per text (every PlayMove answers one)."""
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
    if result.last_capturer is not None:
        score.last_capturer = result.last_capturer
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
    if view.seat is not None:
        out.seat = view.seat
    if view.current_seat is not None:
        out.current_seat = view.current_seat
    if view.last_capturer is not None:
        out.last_capturer = view.last_capturer
    return out


class TablicGame(Game):
    """Tablić: one seat moves at a time; sides score points over hands."""

    name = "tablic"

    def build_rules(self, spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> tablic.Rules:
        """See `build_rules`."""
        return build_rules(spec, switches)

    def start(self, stored: storage_pb2.StoredTable) -> tablic.MatchState:
        """The match at move 0."""
        rules = tablic.Rules.from_json(stored.rules_json)
        seed = stored.seed if stored.HasField("seed") else None
        decks = [list(deck.cards) for deck in stored.decks] or None
        return tablic.new_match(rules, seed=seed, decks=decks)

    def players(self, state: tablic.MatchState) -> int:
        """Seats."""
        return state.rules.players

    def side_of(self, state: tablic.MatchState, seat: int) -> int:
        """Partnerships share a side."""
        return state.rules.side_of(seat)

    def current_seat(self, state: tablic.MatchState) -> int | None:
        """The seat to move."""
        return state.current_seat

    def is_over(self, state: tablic.MatchState) -> bool:
        """A side has won."""
        return state.is_over

    def _check_turn(self, state: tablic.MatchState, seat: int) -> None:
        if state.current_seat != seat:
            raise NotYourTurnError(f"it is seat {state.current_seat}'s turn, not seat {seat}'s")

    def legal(self, state: tablic.MatchState, seat: int) -> list[tablic.Move]:
        """Only the seat to move has moves."""
        self._check_turn(state, seat)
        return state.legal_moves()

    def apply(self, state: tablic.MatchState, text: str, seat: int) -> tuple[Any, str]:
        """Parse and play."""
        self._check_turn(state, seat)
        move = tablic.Move.parse(text)
        return state.apply(move), str(move)

    def replay(self, state: tablic.MatchState, text: str, seat: int) -> tablic.MatchState:
        """Play a logged move."""
        return state.apply(text)

    def default_move(self, state: tablic.MatchState) -> str:
        """The first legal move (a trail of the first card when trails are legal)."""
        try:
            return str(state.legal_moves()[0])
        except TooManyMovesError:  # a table too big to list: trail if allowed, else any capture
            seat = state.current_seat
            assert seat is not None
            card = state.hand(seat)[0]
            trail = tablic.Move(card)
            if state.is_legal(trail):
                return str(trail)
            taken = next(iter(tablic.captures(card, state.table, state.rules)))
            return str(tablic.Move(card, taken))

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

    def fill_result(self, out: state_pb2.Result, state: tablic.MatchState) -> str:
        """Scores per side."""
        out.scores.extend(state.scores)
        return "score"

    def winner(self, state: tablic.MatchState) -> int | None:
        """The side with the most points at the end."""
        return state.winner

    def forfeit_winner(self, state: tablic.MatchState, seat: int) -> int | None:
        """The best other side."""
        rules = state.rules
        loser = rules.side_of(seat)
        others = [side for side in range(rules.sides) if side != loser]
        return max(others, key=lambda side: state.scores[side])

    def record_text(self, state: tablic.MatchState) -> str:
        """`MatchRecord` text."""
        return state.record().to_text()
