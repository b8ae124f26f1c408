"""Tač at a table: rules from a RulesSpec and back, the game, its moves and views on the wire.

Any seat may act in Tač: the seat to move plays, and with `tac_calls` another seat may call
"Tač!" on an out-of-order move; the rules core checks the actor (`GameState.apply(move, seat)`).
A bare `call` is the writing seat's own call. Closed piles never leave this module: a view
carries their sizes only.
"""

from __future__ import annotations

from typing import Any

from kafana.errors import InvalidInputError, InvalidRulesError
from kafana.games import tac
from kafana.service.games.base import (
    TableGame,
    message_of,
    other_branch,
    rules_error,
    seed_of,
    set_present,
    set_switches,
)
from kafana.v1 import events_pb2, rules_pb2, state_pb2, storage_pb2

CALL_WORDS = frozenset({"call", "tač", "tac", "tač!", "tac!"})
"""A bare call: the caller is the seat whose token made the request."""

PHASES: dict[str, state_pb2.TacPhase.ValueType] = {
    "draw": state_pb2.TAC_PHASE_DRAW,
    "place": state_pb2.TAC_PHASE_PLACE,
    "over": state_pb2.TAC_PHASE_OVER,
}
"""The rules core's phase names as `TacPhase` values."""

TURNED = state_pb2.TAC_PILE_KIND_TURNED
DISCARD = state_pb2.TAC_PILE_KIND_DISCARD
CENTRAL = state_pb2.TAC_PILE_KIND_CENTRAL


def parse_move(text: str, seat: int) -> tac.Move:
    """A move's text; a bare `call` is the seat's own call."""
    if isinstance(text, str) and text.strip().lower() in CALL_WORDS:
        return tac.Move.call(seat)
    return tac.Move.parse(text)


def _pile(kind: state_pb2.TacPileKind.ValueType, seat: int = 0) -> state_pb2.TacPile:
    return state_pb2.TacPile(kind=kind, seat=seat)


def structured(move: tac.Move, mover: int | None, card: str = "") -> state_pb2.TacMove:
    """A move as a `TacMove` made by `mover` (a play's own piles are the mover's; None: the
    seat is not known, seat 0 is written); `card`: the card it moves, when public."""
    out = state_pb2.TacMove()
    if move.kind == "flip":
        out.flip.SetInParent()
    elif move.kind == "call":
        out.call.caller = move.caller or 0
    else:
        own = mover or 0
        source = _pile(TURNED) if move.source == "X" else _pile(DISCARD, own)
        target_seat = move.target_seat
        if move.target == "C":
            target = _pile(CENTRAL)
        else:
            target = _pile(DISCARD, own if target_seat is None else target_seat)
        out.play.source.CopyFrom(source)
        out.play.target.CopyFrom(target)
        out.play.card = card
    return out


def move_of(move: state_pb2.TacMove, seat: int) -> tac.Move:
    """The move a `TacMove` sent by `seat` names (errors name the field)."""
    action = move.WhichOneof("action")
    if action == "flip":
        return tac.Move.flip()
    if action == "call":
        return tac.Move.call(move.call.caller)
    if action is None:
        raise InvalidInputError("move.tac has no action: set flip, play or call", field="move")
    play = move.play
    if play.source.kind == TURNED:
        source = "X"
    elif play.source.kind == DISCARD:
        if play.source.seat != seat:
            raise InvalidInputError(
                f"move.tac.play.source: seat {seat} plays from its own discard pile "
                f"(seat {seat}), not seat {play.source.seat}'s",
                field="move",
            )
        source = "D"
    else:
        kind = state_pb2.TacPileKind.Name(play.source.kind)
        raise InvalidInputError(
            f"move.tac.play.source must be TURNED or DISCARD, not {kind}", field="move"
        )
    if play.target.kind == CENTRAL:
        target = "C"
    elif play.target.kind == DISCARD:
        target = "D" if play.target.seat == seat else f"P{play.target.seat}"
    else:
        kind = state_pb2.TacPileKind.Name(play.target.kind)
        raise InvalidInputError(
            f"move.tac.play.target must be CENTRAL or DISCARD, not {kind}", field="move"
        )
    if source == "D" and target == "D":
        raise InvalidInputError(
            "move.tac.play: from the own discard pile onto itself moves nothing", field="move"
        )
    return tac.Move("play", source, target)


def move_message(move: tac.Move, mover: int | None, card: str = "") -> state_pb2.Move:
    """A move as text and structured."""
    out = state_pb2.Move(text=str(move))
    out.tac.CopyFrom(structured(move, mover, card))
    return out


def step_message(step: tac.Step) -> state_pb2.TacStep:
    """One applied move with the card it showed (a penalty only as a count)."""
    card = "" if step.card is None else step.card.text
    return state_pb2.TacStep(
        seat=step.seat,
        move=move_message(step.move, step.seat, card if step.move.kind == "play" else ""),
        card=card,
        turned_over=step.turned_over,
        penalty=step.penalty,
        offence=step.offence,
    )


def tac_view(view: tac.View) -> state_pb2.TacView:
    """A view on the wire: every face-up card, the closed piles as sizes only."""
    players = view.rules.players
    out = state_pb2.TacView(
        phase=PHASES[view.phase],
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
    set_present(out, seat=view.seat, pending_offender=view.pending_offender)
    if view.last_step is not None:
        out.last_step.CopyFrom(step_message(view.last_step))
    return out


class TacGame(TableGame[tac.GameState, tac.Move]):
    """Tač: seats are sides; the first player out wins."""

    name = "tac"
    label = "Tač"
    game = rules_pb2.GAME_TAC
    rules_type = tac.Rules

    def build_rules(self, spec: rules_pb2.RulesSpec) -> tac.Rules:
        """Seats from the spec, everything else (decks, tac_calls, play_on...) from `spec.tac`."""
        other_branch(spec, "GAME_TAC", "tac")
        if spec.partnerships:
            raise InvalidRulesError(
                "rules.partnerships: Tač has no partnerships (leave it false)",
                field="rules.partnerships",
            )
        try:
            return tac.Rules.from_dict({"players": spec.players or 2, **set_switches(spec.tac)})
        except InvalidInputError as error:
            raise rules_error(error, spec.tac) from None

    def spec_of(self, rules: Any, spec: rules_pb2.RulesSpec) -> rules_pb2.RulesSpec:
        """The rules in force: every switch of `TacRules` set (Tač has no preset)."""
        branch = message_of(rules_pb2.TacRules, rules)
        return rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=rules.players, tac=branch)

    def start(self, stored: storage_pb2.StoredTable) -> tac.GameState:
        """The deal, from the seed or one explicit deck."""
        rules = tac.Rules.from_json(stored.rules_json)
        if len(stored.decks) > 1:
            raise InvalidInputError(
                f"a Tač table takes one deck order (of {rules.cards} cards), "
                f"not {len(stored.decks)}",
                field="decks",
            )
        deck = list(stored.decks[0].cards) if stored.decks else None
        return tac.new_game(rules, seed=seed_of(stored), deck=deck)

    def parse_move(self, text: str, seat: int) -> tac.Move:
        """See `parse_move`."""
        return parse_move(text, seat)

    def structured_move(self, branch: state_pb2.TacMove, seat: int) -> tac.Move:
        """Structured piles: TURNED is `X`; DISCARD is `D` for the mover's own, `P<k>` for seat
        k's; CENTRAL `C`."""
        return move_of(branch, seat)

    def move_message(self, state: tac.GameState, move: tac.Move) -> state_pb2.Move:
        """The text and structure, with the card moved when it is face up (a flip's card is
        unknown)."""
        card = ""
        seat = state.current_seat
        if move.kind == "play" and move.source == "X" and state.turned is not None:
            card = state.turned.text
        elif move.kind == "play" and move.source == "D" and seat is not None:
            pile = state.discard(seat)
            card = pile[-1].text if pile else ""
        return move_message(move, seat, card)

    def played_message(self, after: tac.GameState, text: str) -> state_pb2.Move:
        """The move and the card it moved (public from then on)."""
        step = after.last_step
        if step is None:  # not reached: a played move leaves its step
            return move_message(tac.Move.parse(text), None)
        return step_message(step).move

    def view_message(self, view: tac.View) -> state_pb2.TacView:
        """Everyone sees the same cards: the face-up ones."""
        return tac_view(view)

    def fill_event(
        self,
        out: events_pb2.Event,
        before: tac.GameState,
        after: tac.GameState,
        seat: int | None,
        *,
        started: bool,
        moved: bool,
    ) -> None:
        """The deal at the start (closed piles: sizes only; the central pile's opening cards),
        and a move's step."""
        if started:
            deal = out.deal
            deal.hand_no = 0
            deal.table.extend(c.text for c in after.central)
            deal.hand_sizes.extend(after.held(s) for s in range(after.seats))
            deal.SetInParent()
        if moved and after.last_step is not None:
            out.step.CopyFrom(step_message(after.last_step))

    def scores(self, state: tac.GameState) -> list[int]:
        """None: Tač ranks seats (the result's places)."""
        return []

    def fill_result(self, out: state_pb2.Result, state: tac.GameState) -> None:
        """Places, once the game is over."""
        out.places.extend(state.places() or ())
