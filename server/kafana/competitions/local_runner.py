"""Play a tournament in-process: bots from `kafana_bots`, the fault policy enforced per move.

Both games (Tablić for 2, 3 or 4 players or 2 against 2, Tač) are played by the one
in-process runner, `kafana_bots.play.play`. A bot's decision is timed; past the policy's
`move_ms` its move is discarded and the policy applies (the game is deterministic given the
secrets, except for what the clock decides). A bot that raises counts as disconnected; one
that returns a move that is not legal is asked again up to `illegal_limit` times.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafana_bots import Bot, registry
from kafana_bots.base import Player
from kafana_bots.play import play

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, commitment, deal_seed
from kafana.competitions.model import Ending, GameResult, GameSpec, forfeit_places
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
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


class _Decision:
    """One seat's decision under the policy: a move, or a fault and the action to take."""

    def __init__(self, move: Any, fault: Reason | None = None, detail: str = "") -> None:
        self.move = move
        self.fault = fault
        self.detail = detail


def _decide(
    bot: Player[Any, Any, Any], state_view: Any, legal: Sequence[Any], policy: FaultPolicy
) -> _Decision:
    for _attempt in range(max(1, policy.illegal_limit)):
        start = time.perf_counter()
        try:
            move = bot.choose(state_view, legal)
        except Exception as exc:  # a crashing bot is a disconnected seat
            return _Decision(None, Reason.DISCONNECT, f"{type(exc).__name__}: {exc}")
        elapsed_ms = (time.perf_counter() - start) * 1000
        if policy.move_ms and elapsed_ms > policy.move_ms:
            return _Decision(None, Reason.TIMEOUT, f"{elapsed_ms:.0f} ms > {policy.move_ms} ms")
        if move in legal:
            return _Decision(move)
    return _Decision(None, Reason.ILLEGAL_MOVES, f"{policy.illegal_limit} illegal moves")


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
    faults: list[Fault] = []
    autopilot: dict[int, int] = {}  # seat -> hand number it plays default moves in (Tač: all)
    forfeit: int | None = None

    def decide(seat: int, view: Any, legal: Sequence[Any]) -> Any:
        nonlocal forfeit
        if autopilot.get(seat) == getattr(view, "hand_no", 0):
            return legal[0]
        decision = _decide(bots[seat], view, legal, policy)
        if decision.fault is None:
            return decision.move
        action = policy.action(decision.fault)
        faults.append(Fault(seat, decision.fault, action, view.move_count, decision.detail))
        if action is Action.FORFEIT_MATCH:
            forfeit = seat
            return None
        if action is Action.FORFEIT_HAND:
            autopilot[seat] = getattr(view, "hand_no", 0)
        return legal[0]

    state = play(new_game(rules, seed, spec), bots, decide=decide)
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
