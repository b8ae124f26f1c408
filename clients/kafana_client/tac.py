"""Tač on the client side: table configs, views for bots, and a bot runner for a seat.

>>> config = tac_table_config(players=3, seed=7, tac_calls=True)
>>> config.rules.game, config.rules.players, config.rules.switches["tac_calls"]
('tac', 3, True)

A Tač bot plays through the SDK like a Tablić one (inside an `async def`)::

    seat = await client.join(table_id, name="loader")
    rules = tac_rules_of(await client.get_table(table_id))
    bot = registry.create("loader", seat=seat.seat, rules=rules, rng=random.Random(1))
    final = await run_tac_bot(seat, bot)    # moves on its turns, calls "Tač!" when it wants
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from kafana.games import tac
from kafana.v1 import rules_pb2, state_pb2
from kafana_bots.tac_bots import TacBot

from kafana_client.aio import AsyncSeat
from kafana_client.errors import NotYourTurnRpcError, RefusedMoveError, StaleStateError


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
    rules = rules_pb2.RulesSpec(game="tac", players=players)
    if switches:
        rules.switches.update(switches)
    policy = (
        rules_pb2.TIMEOUT_POLICY_FORFEIT
        if forfeit_on_timeout
        else rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
    )
    cards = list(deck)
    config = rules_pb2.TableConfig(
        rules=rules,
        decks=[rules_pb2.Deck(cards=cards)] if cards else [],
        clock=rules_pb2.ClockSpec(move_millis=move_millis, policy=policy),
        name=name,
    )
    if seed is not None:
        config.seed = seed
    return config


def tac_rules_of(info: state_pb2.TableInfo) -> tac.Rules:
    """A Tač table's full rules (from the canonical JSON the server sends)."""
    return tac.Rules.from_json(info.rules_json)


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
            move=tac.Move.parse(ls.move),
            card=tac.Card.parse(ls.card) if ls.card else None,
            turned_over=ls.turned_over,
            penalty=ls.penalty,
            offence=ls.offence,
        )
    return tac.View(
        rules=tac_rules_of(state.info),
        seat=tv.seat if tv.HasField("seat") else None,
        current_seat=tv.current_seat if tv.HasField("current_seat") else None,
        phase=tv.phase,
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
    if tv.HasField("current_seat") and tv.current_seat == seat:
        return True
    return tv.HasField("pending_offender") and tv.pending_offender != seat


async def _act(seat: AsyncSeat, bot: TacBot, state: state_pb2.TableState, delay: float) -> None:
    if delay:
        await asyncio.sleep(delay)
    try:
        legal = await seat.legal_moves()
        if legal.seq != state.seq or not legal.moves:
            return  # something happened meanwhile; the next event brings the new state
        moves = [tac.Move.parse(m.text) for m in legal.moves]
        view = tac_view_of(state)
        if view.current_seat == seat.seat:
            move = bot.choose(view, moves)
        else:
            calls = [m for m in moves if m.kind == "call"]
            if not calls or not bot.wants_call(view):
                return
            move = calls[0]
        await seat.play(str(move), last_seq=legal.seq, with_state=False)
    except (StaleStateError, NotYourTurnRpcError, RefusedMoveError):
        return  # another seat moved or called first: wait for the next event


async def run_tac_bot(seat: AsyncSeat, bot: TacBot, *, delay: float = 0.0) -> state_pb2.TableState:
    """Play for `seat` with a Tač bot until the game ends; returns the last state seen.

    On its turns the bot chooses among the server's legal moves; while another seat's
    out-of-order move is open to a call, it is asked whether to call "Tač!". `delay` seconds
    pass before each action (so people can follow, and call first).
    """
    last: state_pb2.TableState | None = None
    async for event in seat.events():
        last = event.state
        if event.match_over:
            break
        if may_act(event.state, seat.seat):
            await _act(seat, bot, event.state, delay)
    return last if last is not None else await seat.state()
