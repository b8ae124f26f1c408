"""Play a tournament in-process: bots from `kafana_bots`, the fault policy enforced per move.

A bot's decision is timed; past the policy's `move_ms` its move is discarded and the policy
applies (the game is deterministic given the secrets, except for what the clock decides). A bot
that raises counts as disconnected; one that returns a move that is not legal is asked again
up to `illegal_limit` times.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from kafana_bots import Bot, registry
from kafana_bots.play import play

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, commitment, deal_seed
from kafana.competitions.model import Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.tournament import Status, Tournament
from kafana.games.tablic import Move, Rules, View, new_match

BotFactory = Callable[[str, int, Rules, random.Random], Bot]
"""(entrant, seat, rules, rng) -> a bot for that seat."""


def registry_bots(bot_of: Mapping[str, str]) -> BotFactory:
    """A factory that builds each entrant's registered bot (`bot_of[entrant]`, e.g. "greedy")."""

    def factory(entrant: str, seat: int, rules: Rules, rng: random.Random) -> Bot:
        return registry.create(bot_of[entrant], seat=seat, rules=rules, rng=rng)

    return factory


class _Decision:
    """One seat's decision under the policy: a move, or a fault and the action to take."""

    def __init__(self, move: Move | None, fault: Reason | None = None, detail: str = "") -> None:
        self.move = move
        self.fault = fault
        self.detail = detail


def _decide(bot: Bot, state_view: View, legal: list[Move], policy: FaultPolicy) -> _Decision:
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
    rules: Rules,
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
    autopilot: dict[int, int] = {}  # seat -> hand number it plays default moves in
    forfeit: int | None = None

    def decide(seat: int, view: View, legal: list[Move]) -> Move | None:
        nonlocal forfeit
        if autopilot.get(seat) == view.hand_no:
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
            autopilot[seat] = view.hand_no
        return legal[0]

    state = play(new_match(rules, seed=seed, decks=spec.decks or None), bots, decide=decide)
    ending = Ending.SCORE if forfeit is None else Ending.FORFEIT
    winner = state.winner if forfeit is None else 1 - forfeit
    if forfeit is None and len(set(state.scores)) == 1:
        winner = None
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
    return GameResult(spec.game_id, state.scores, winner, ending, tuple(faults), fair.to_text())


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
