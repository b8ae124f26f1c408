"""Tač on the client side: table configs, views for bots, and a bot runner for a seat.

>>> config = tac_table_config(players=3, seed=7, tac_calls=True)
>>> config.rules.game == rules_pb2.GAME_TAC, config.rules.players, config.rules.tac.tac_calls
(True, 3, True)

A Tač bot plays through the SDK like a Tablić one (inside an `async def`)::

    seat = await client.join(table_id, name="loader")
    rules = tac_rules_of(await client.get_table(table_id))
    bot = registry.create("loader", seat=seat.seat, rules=rules, rng=random.Random(1))
    final = await run_tac_bot(seat, bot)    # moves on its turns, calls "Tač!" when it wants
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafana.games import tac
from kafana.v1 import rules_pb2, state_pb2
from kafana_bots.tac_bots import TacBot

from kafana_client.aio import AsyncSeat, LegalMoves
from kafana_client.convert import config_of, current_seat, rules_spec, switches_of, word
from kafana_client.seat_loop import Decision, PlayerHooks, follow_seat


def tac_table_config(
    *,
    players: int = 2,
    seed: int | None = None,
    deck: Iterable[str] = (),
    move_millis: int = 0,
    forfeit_on_timeout: bool = False,
    name: str = "",
    **switches: Any,
) -> rules_pb2.TableConfig:
    """A Tač `TableConfig`; keywords such as `decks=2`, `tac_calls=True` are rule switches."""
    rules = rules_spec("tac", players=players)
    cards = list(deck)
    decks = [cards] if cards else []
    return config_of(rules, decks, switches, move_millis, forfeit_on_timeout, name, seed)


def tac_rules_of(info: state_pb2.TableInfo) -> tac.Rules:
    """A Tač table's full rules (`TableInfo.rules`, the rules in force)."""
    return tac_rules(info.rules)


def tac_rules(spec: rules_pb2.RulesSpec) -> tac.Rules:
    """A Tač `RulesSpec` as the rules core's `Rules`."""
    return tac.Rules(players=spec.players or 2, **switches_of(spec))


def _cards(texts: Iterable[str]) -> tuple[tac.Card, ...]:
    return tuple(tac.Card.parse(text) for text in texts)


def tac_view_of(state: state_pb2.TableState) -> tac.View:
    """The seat's (or spectator's) `tac.View`, as Tač bots take it, from a wire `TableState`."""
    tv = state.tac
    step = None
    if tv.HasField("last_step"):
        ls = tv.last_step
        step = tac.Step(
            seat=ls.seat,
            move=tac.Move.parse(ls.move.text),
            card=tac.Card.parse(ls.card) if ls.card else None,
            turned_over=ls.turned_over,
            penalty=ls.penalty,
            offence=ls.offence,
        )
    return tac.View(
        rules=tac_rules_of(state.info),
        seat=tv.seat if tv.HasField("seat") else None,
        current_seat=current_seat(state),
        phase=word(state_pb2.TacPhase, tv.phase),
        central=_cards(tv.central),
        discards=tuple(_cards(pile.cards) for pile in tv.discards),
        closed_sizes=tuple(tv.closed_sizes),
        turned=tac.Card.parse(tv.turned) if tv.turned else None,
        pending_offender=tv.pending_offender if tv.HasField("pending_offender") else None,
        out_order=tuple(tv.out_order),
        places=tuple(tv.places) if tv.places else None,
        stalled=tv.stalled,
        move_count=tv.move_count,
        turn=tv.turn,
        stall_turns=tv.stall_turns,
        last_step=step,
        is_over=tv.is_over,
    )


def may_act(state: state_pb2.TableState, seat: int) -> bool:
    """Whether `seat` may do something now: move, or call an open offence of another seat."""
    if state.info.status != state_pb2.TABLE_STATUS_PLAYING:
        return False
    tv = state.tac
    if current_seat(state) == seat:
        return True
    return tv.HasField("pending_offender") and tv.pending_offender != seat


class TacBotHooks(PlayerHooks[TacBot]):
    """A Tač bot at a seat: moves on its turns, and may call "Tač!" on another seat's offence
    (`threaded`, `name` and a refused move: `PlayerHooks`)."""

    def may_act(self, state: state_pb2.TableState, seat: int) -> bool:
        return may_act(state, seat)

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        wire = legal_by_move(legal)
        moves = list(wire)
        view = tac_view_of(state)
        if view.current_seat != view.seat:
            calls = [m for m in moves if m.kind == "call"]
            return wire[calls[0]] if calls and self.bot.wants_call(view) else None
        return wire[await self.decided(self.bot.decided, view, moves)]


def legal_by_move(legal: LegalMoves) -> dict[tac.Move, state_pb2.Move]:
    """Each legal Tač move as the rules core's `Move`, with the wire `Move` the server listed
    (text and structured: sent back as is, it names the move both ways)."""
    return {tac.Move.parse(m.text): m for m in legal.moves}


async def run_tac_bot(seat: AsyncSeat, bot: TacBot, *, delay: float = 0.0) -> state_pb2.TableState:
    """Play for `seat` with a Tač bot until the game ends; returns the last state seen.

    On its turns the bot chooses among the server's legal moves; while another seat's
    out-of-order move is open to a call, it is asked whether to call "Tač!". `delay` seconds
    pass before each action (so people can follow, and call first).
    """
    return await follow_seat(seat, TacBotHooks(bot), delay=delay)
