"""Bots for Tač: `random` and `loader` (`kafana_bots.play` plays a game with them).

A Tač bot sees only its seat's `tac.View` (never a closed pile) and takes an injected
`random.Random`, so a game replays exactly from its seeds. The seat to move is asked
`choose(view, legal_moves)`; when an out-of-order move is open to a call (`tac_calls`), every
other seat is asked `wants_call(view)` first, in seat order after the offender.

>>> import random
>>> from kafana.games import tac
>>> from kafana_bots.play import play
>>> rules = tac.Rules(players=3, tac_calls=True)
>>> bots = [create_tac_bot(name, seat, rules, random.Random(seat))
...         for seat, name in enumerate(["loader", "random", "random"])]
>>> play(tac.new_game(rules, seed=5), bots).is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from kafana.errors import InvalidInputError
from kafana.games.tac import Move, Rules, View

from kafana_bots.base import Player


class TacBot(Player[Rules, View, Move]):
    """A Tač player for one seat: chooses its seat's actions, and may call others' offences."""

    name: str = "tac-bot"

    def wants_call(self, view: View) -> bool:
        """Whether to call "Tač!" on the open offence while another seat is to move."""
        return False


class RandomTacBot(TacBot):
    """Any accepted action, uniformly (out-of-order moves and calls included); calls half
    the time when another seat is to move."""

    name = "random"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """Any legal move, uniformly."""
        return self.rng.choice(list(legal_moves))

    def wants_call(self, view: View) -> bool:
        """A coin toss."""
        return self.rng.random() < 0.5


def in_order(legal_moves: Sequence[Move], centre_first: bool = False) -> list[Move]:
    """The moves that keep the mandatory order: no flip while the discard top can be played,
    no card onto the own discard pile while it fits elsewhere (nor, with `centre_first`,
    onto another discard pile while it fits the central pile)."""
    moves = list(legal_moves)
    if centre_first and any(m.kind == "play" and m.target == "C" for m in moves):
        moves = [m for m in moves if m.target_seat is None]
    if any(m.kind == "play" and m.source == "D" for m in moves):
        moves = [m for m in moves if m.kind != "flip"]
    if any(m.kind == "play" and m.source == "X" and m.target != "D" for m in moves):
        moves = [m for m in moves if not (m.kind == "play" and m.target == "D")]
    return moves


class LoaderTacBot(TacBot):
    """Keeps the order, calls every offence, and loads the leader's discard pile.

    A card that fits several places goes onto the discard pile of the other player who holds
    the fewest cards (a card there is one more for them and one fewer for us); the central
    pile only when no discard pile takes the card.
    """

    name = "loader"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """A call if one is offered, else the in-order move that loads the leader most."""
        calls = [m for m in legal_moves if m.kind == "call"]
        if calls:
            return calls[0]
        moves = in_order(legal_moves, view.rules.centre_first)
        return min(moves, key=lambda m: self._cost(view, m))

    def _cost(self, view: View, move: Move) -> tuple[int, int]:
        seat = move.target_seat
        if seat is not None:
            return (0, view.held(seat))
        return (1, 0)  # the centre, a flip or the own discard pile: the only choice then

    def wants_call(self, view: View) -> bool:
        """Always: a right call costs the caller nothing and the offender a card per seat."""
        return True


BotFactory = Callable[[int, Rules, random.Random], TacBot]

TAC_BOTS: dict[str, tuple[BotFactory, str]] = {
    "random": (RandomTacBot, "a uniformly random accepted action; calls half the time"),
    "loader": (LoaderTacBot, "keeps the order, calls every offence, loads the leader's pile"),
}
"""Tač bots by name: (factory, one line of help)."""


def create_tac_bot(name: str, seat: int, rules: Rules, rng: random.Random) -> TacBot:
    """A new Tač bot of that name for `seat`."""
    try:
        factory = TAC_BOTS[name][0]
    except KeyError:
        known = ", ".join(TAC_BOTS)
        raise InvalidInputError(f"unknown Tač bot {name!r}: choose one of {known}") from None
    return factory(seat, rules, rng)
