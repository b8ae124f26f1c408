"""Tač at a table: rules from a RulesSpec, the game, its moves and views on the wire.

Any seat may act in Tač: the seat to move plays, and with `tac_calls` another seat may call
"Tač!" on an out-of-order move; the rules core checks the actor (`GameState.apply(move, seat)`).
A bare `call` is the writing seat's own call. Closed piles never leave this module: a view
carries their sizes only.
"""

from __future__ import annotations

from typing import Any

from kafana.errors import InvalidInputError
from kafana.games import tac
from kafana.service.games.base import TableGame, seed_of, set_present
from kafana.v1 import rules_pb2, state_pb2, storage_pb2

CALL_WORDS = frozenset({"call", "tač", "tac", "tač!", "tac!"})
"""A bare call: the caller is the seat whose token made the request."""


def build_rules(spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> tac.Rules:
    """Seats from the spec, everything else (decks, tac_calls, play_on...) from switches."""
    for field, value in (
        ("preset", spec.preset),
        ("partnerships", spec.partnerships),
        ("target", spec.target),
    ):
        if value:
            raise InvalidInputError(f"Tač has no {field}: leave it empty (got {value!r})")
    if "players" in switches:
        raise InvalidInputError("set 'players' with the RulesSpec field, not as a switch")
    return tac.Rules.from_dict({"players": spec.players or 2, **switches})


def parse_move(text: str, seat: int) -> tac.Move:
    """A move's text; a bare `call` is the seat's own call."""
    if isinstance(text, str) and text.strip().lower() in CALL_WORDS:
        return tac.Move.call(seat)
    return tac.Move.parse(text)


def step_message(step: tac.Step) -> state_pb2.TacStep:
    """One applied move with the card it showed (a penalty only as a count)."""
    return state_pb2.TacStep(
        seat=step.seat,
        move=str(step.move),
        card="" if step.card is None else step.card.text,
        turned_over=step.turned_over,
        penalty=step.penalty,
        offence=step.offence,
    )


def tac_view(view: tac.View) -> state_pb2.TacView:
    """A view on the wire: every face-up card, the closed piles as sizes only."""
    players = view.rules.players
    out = state_pb2.TacView(
        phase=view.phase,
        central=[c.text for c in view.central],
        discards=[state_pb2.Cards(cards=[c.text for c in pile]) for pile in view.discards],
        closed_sizes=view.closed_sizes,
        turned="" if view.turned is None else view.turned.text,
        out_order=view.out_order,
        places=view.places or (),
        stalled=view.stalled,
        move_count=view.move_count,
        turn=view.turn,
        stall_turns=view.stall_turns,
        is_over=view.is_over,
        held=[view.held(seat) for seat in range(players)],
    )
    set_present(
        out,
        seat=view.seat,
        current_seat=view.current_seat,
        pending_offender=view.pending_offender,
    )
    if view.last_step is not None:
        out.last_step.CopyFrom(step_message(view.last_step))
    return out


class TacGame(TableGame[tac.GameState, tac.Move]):
    """Tač: seats are sides; the first player out wins."""

    name = "tac"

    def build_rules(self, spec: rules_pb2.RulesSpec, switches: dict[str, Any]) -> tac.Rules:
        """See `build_rules`."""
        return build_rules(spec, switches)

    def start(self, stored: storage_pb2.StoredTable) -> tac.GameState:
        """The deal, from the seed or one explicit deck."""
        rules = tac.Rules.from_json(stored.rules_json)
        if len(stored.decks) > 1:
            raise InvalidInputError(
                f"a Tač table takes one deck order (of {rules.cards} cards), "
                f"not {len(stored.decks)}"
            )
        deck = list(stored.decks[0].cards) if stored.decks else None
        return tac.new_game(rules, seed=seed_of(stored), deck=deck)

    def parse_move(self, text: str, seat: int) -> tac.Move:
        """See `parse_move`."""
        return parse_move(text, seat)

    def move_message(self, state: tac.GameState, move: tac.Move) -> state_pb2.Move:
        """The text, and the card moved when it is face up (a flip's card is unknown)."""
        card = ""
        seat = state.current_seat
        if move.kind == "play" and move.source == "X" and state.turned is not None:
            card = state.turned.text
        elif move.kind == "play" and move.source == "D" and seat is not None:
            pile = state.discard(seat)
            card = pile[-1].text if pile else ""
        return state_pb2.Move(text=str(move), card=card)

    def played_message(self, after: tac.GameState, text: str) -> state_pb2.Move:
        """The text and the card it turned up or moved (public from then on)."""
        step = after.last_step
        card = "" if step is None or step.card is None else step.card.text
        return state_pb2.Move(text=text, card=card)

    def fill_view(self, out: state_pb2.TableState, state: tac.GameState, seat: int | None) -> None:
        """Everyone sees the same cards: the face-up ones."""
        view = state.public_view() if seat is None else state.view(seat)
        out.tac.CopyFrom(tac_view(view))

    def scores(self, state: tac.GameState) -> list[int]:
        """None: Tač ranks seats (the result's places)."""
        return []

    def fill_result(self, out: state_pb2.Result, state: tac.GameState) -> None:
        """Places, once the game is over."""
        out.places.extend(state.places() or ())
