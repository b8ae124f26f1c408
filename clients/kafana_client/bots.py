"""Run a `kafana_bots` bot for a seat through the SDK: the one way bots play on a server.

Example (inside an `async def`)::

    seat = await client.join(table_id, name="greedy")
    rules = rules_of((await client.get_table(table_id)))
    bot = registry.create("greedy", seat=seat.seat, rules=rules, rng=random.Random(1))
    final = await run_bot(seat, bot)        # returns when the match is over

A Tač bot (`kafana_bots.tac_bots.TacBot`) plays the same way: `run_bot` (or `run_tac_bot`)
moves on its turns and asks it whether to call "Tač!" while another seat's offence is open.
Both are the seat loop of `kafana_client.seat_loop` with the bot's hooks.
"""

from __future__ import annotations

import functools

from kafana.v1 import events_pb2, state_pb2
from kafana_bots import Bot, HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_bots.events import Event
from kafana_bots.tac_bots import TacBot

from kafana_client.aio import AsyncSeat, LegalMoves
from kafana_client.convert import cards_of, hand_result_of, move_of, view_of
from kafana_client.seat_loop import Decision, Hooks, PlayerHooks, follow_seat
from kafana_client.tac import TacBotHooks


def bot_events(event: events_pb2.Event, before: state_pb2.TableState | None = None) -> list[Event]:
    """The bot events that one wire event stands for, from what the event says changed (its
    `deal`, `hand_score` and `result`: a slim event is enough; `before` is not needed)."""
    out: list[Event] = []
    # A deal starts a hand at the match's start and after a hand's score; the other deals
    # (the seats' cards ran out, the deck has more) go on with the same hand.
    new_hand = event.match_started or event.HasField("hand_score")
    dealt = event.HasField("deal") and new_hand and not event.match_over
    if event.kind != events_pb2.EVENT_KIND_MOVE:
        if dealt:
            out.append(HandStarted(event.deal.hand_no, cards_of(event.deal.table)))
        return out
    out.append(MovePlayed(event.seat, move_of(event.move)))
    if event.HasField("hand_score"):
        out.append(HandEnded(hand_result_of(event.hand_score)))
    if dealt:
        out.append(HandStarted(event.deal.hand_no, cards_of(event.deal.table)))
    if event.match_over:
        out.append(MatchEnded(tuple(event.result.scores)))
    return out


class BotHooks(PlayerHooks[Bot]):
    """A Tablić bot at a seat: told every public event, chooses from the legal moves
    (`threaded`, `name` and a refused move: `PlayerHooks`)."""

    def observe(self, event: events_pb2.Event, before: state_pb2.TableState | None) -> None:
        for item in bot_events(event, before):
            self.bot.observe(item)

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        moves = legal.parsed()
        # an illegal move goes to the server, which refuses it saying why (`refused`)
        decide = functools.partial(self.bot.decided, judged=True)
        return await self.decided(decide, view_of(state), moves)


def bot_hooks(bot: Bot | TacBot, *, threaded: bool = False, name: str = "") -> Hooks:
    """The seat-loop hooks of a bot of either game (`name`: how errors name it)."""
    if isinstance(bot, TacBot):
        return TacBotHooks(bot, threaded=threaded, name=name)
    return BotHooks(bot, threaded=threaded, name=name)


async def run_bot(
    seat: AsyncSeat,
    bot: Bot | TacBot,
    *,
    delay: float = 0.0,
    threaded: bool = False,
    poll: float | None = None,
    reconnects: int = 0,
) -> state_pb2.TableState:
    """Play for `seat` with `bot` (Tablić or Tač) until the match ends; the last state seen.

    The bot is told every public event from the start of the table (its `observe` hook),
    and chooses from the server's legal moves whenever the seat is to move. `delay` seconds
    pass before each move (so people can follow). `threaded` runs each decision on a thread of
    the game's own (`kafana_client.seat_loop.Worker`). `poll` and `reconnects`: see
    `kafana_client.seat_loop.SeatLoop`.
    """
    hooks = bot_hooks(bot, threaded=threaded)
    return await follow_seat(seat, hooks, delay=delay, poll=poll, reconnects=reconnects)
