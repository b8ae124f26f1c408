"""Play a tournament in-process: bots from `kafana_bots`, the fault policy enforced per move.

Both games (Tablić for 2, 3 or 4 players or 2 against 2, Tač) are played by the one
in-process runner, `kafana_bots.play.play`, with the policy's `Referee` as its decision step
(`kafana.competitions.policy`: a late move is discarded, a bot that raises is disconnected, an
illegal move is asked again up to `illegal_limit` times). The game is deterministic given the
secrets, except for what the clock decides.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from kafana_bots import Bot, registry
from kafana_bots.play import play

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, commitment, deal_seed
from kafana.competitions.model import Ending, GameResult, GameSpec, forfeit_places
from kafana.competitions.policy import FaultPolicy, Referee
from kafana.competitions.tournament import GameRules, Status, Tournament
from kafana.games import tablic, tac
from kafana.games.protocol import GameState

BotFactory = Callable[[str, int, Any, random.Random], Bot]
"""(entrant, seat, the event's rules, rng) -> a bot of the event's game for that seat (typed
as a Tablić `Bot`, which the runners of server tables need; for a Tač event's rules, the
registry's `TacBot`)."""


def registry_bots(bot_of: Mapping[str, str]) -> BotFactory:
    """A factory that builds each entrant's registered bot (`bot_of[entrant]`, e.g. "greedy")
    for the game of the rules it is given."""

    def factory(entrant: str, seat: int, rules: Any, rng: random.Random) -> Bot:
        bot: Bot = registry.create(bot_of[entrant], seat=seat, rules=rules, rng=rng)
        return bot

    return factory


def new_game(rules: GameRules, seed: int, spec: GameSpec) -> GameState[Any, Any, Any]:
    """The game's first position: dealt from `seed`, or from the spec's decks (duplicate)."""
    if isinstance(rules, tac.Rules):
        return tac.new_game(rules, seed=seed, deck=spec.decks[0] if spec.decks else None)
    return tablic.new_match(rules, seed=seed, decks=spec.decks or None)


def play_game(
    spec: GameSpec,
    secret: str,
    rules: GameRules,
    factory: BotFactory,
    policy: FaultPolicy,
    *,
    event: str = "",
    chosen: bool = False,
) -> GameResult:
    """Play one game in-process under `policy`; the result carries its fair record.

    The table deals from `deal_seed(secret)`; `chosen` marks a secret made from an
    organiser-chosen event seed (``meta deal organiser-chosen``).
    """
    seed = deal_seed(secret)
    bots = [
        factory(name, seat, rules, random.Random(f"{seed}:{spec.game_id}:{seat}"))
        for seat, name in enumerate(spec.seats)
    ]
    referee = Referee(policy, bots)
    state = play(new_game(rules, seed, spec), bots, decide=referee.decide)
    faults, forfeit = referee.faults, referee.forfeit
    outcome = state.outcome(forfeit)
    assert outcome is not None  # play ends a game, or stops it for a forfeit
    sides = len(spec.sides)
    if forfeit is None:
        ending, places = Ending.SCORE, outcome.places
    else:
        ending = Ending.FORFEIT
        places = forfeit_places(sides, spec.side_of(forfeit), outcome.scores)
    winner = places.index(1) if places.count(1) == 1 else None
    fair = FairRecord(
        commitment(secret),
        secret,
        state.record().to_text(),
        (
            ("event", event or "-"),
            *((("deal", CHOSEN),) if chosen else ()),
            ("game", spec.game_id),
            ("seats", " ".join(spec.seats)),
            ("ending", ending.value),
            *(("fault", f.code()) for f in faults),
        ),
    )
    return GameResult(
        spec.game_id,
        outcome.scores,
        winner,
        ending,
        tuple(faults),
        fair.to_text(),
        places=places,
    )


def run_local(
    tournament: Tournament,
    factory: BotFactory,
    on_result: Callable[[GameResult], None] | None = None,
) -> Tournament:
    """Play every round in-process until the event is finished (or paused/ended)."""
    config = tournament.config
    while not tournament.finished and tournament.status is Status.RUNNING:
        for spec in tournament.pending() or tournament.next_round():
            if tournament.status is not Status.RUNNING or spec.game_id in tournament.results:
                continue
            result = play_game(
                spec,
                tournament.secret_of(spec.game_id),
                config.rules,
                factory,
                config.policy,
                event=config.name,
                chosen=config.chosen,
            )
            tournament.record(result)
            if on_result is not None:
                on_result(result)
    return tournament
