"""Kafana bots: the bot interfaces (`Bot` for Tablić, `TacBot` for Tač), a ladder of built-in
bots, and an arena to measure them.

>>> import random
>>> from kafana.games import tablic
>>> from kafana_bots import registry
>>> rules = tablic.Rules.preset("serbian", players=2)
>>> bot = registry.create("greedy", seat=0, rules=rules, rng=random.Random(1))
>>> state = tablic.new_match(rules, seed=7)
>>> bot.choose(state.view(0), state.legal_moves()) in state.legal_moves()
True
"""

from kafana_bots.base import Bot, BotError
from kafana_bots.events import Event, HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_bots.registry import create, names
from kafana_bots.tac_bots import TacBot

__all__ = [
    "Bot",
    "BotError",
    "Event",
    "HandEnded",
    "HandStarted",
    "MatchEnded",
    "MovePlayed",
    "TacBot",
    "create",
    "names",
]
