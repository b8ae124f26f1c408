"""Play a tournament in-process: bots from `kafana_bots`, the fault policy enforced per move.

A bot's decision is timed; past the policy's `move_ms` its move is discarded and the policy
applies (the game is deterministic given the seeds, except for what the clock decides). A bot
that raises counts as disconnected; one that returns a move that is not legal is asked again
up to `illegal_limit` times.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from kafana_bots import Bot, HandEnded, HandStarted, MatchEnded, MovePlayed, registry
from kafana_bots.events import Event

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment
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
    seed: int,
    rules: Rules,
    factory: BotFactory,
    policy: FaultPolicy,
    *,
    event: str = "",
) -> GameResult:
    """Play one game in-process under `policy`; the result carries its fair record."""
    state = new_match(rules, seed=seed, decks=spec.decks or None)
    bots = [
        factory(name, seat, rules, random.Random(f"{seed}:{spec.game_id}:{seat}"))
        for seat, name in enumerate(spec.seats)
    ]

    def tell(item: Event) -> None:
        for bot in bots:
            bot.observe(item)

    faults: list[Fault] = []
    autopilot: dict[int, int] = {}  # seat -> hand number it plays default moves in
    forfeit: int | None = None
    tell(HandStarted(state.hand_no, state.table))
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        legal = state.legal_moves()
        if autopilot.get(seat) == state.hand_no:
            move = legal[0]
        else:
            decision = _decide(bots[seat], state.view(seat), legal, policy)
            if decision.fault is None:
                assert decision.move is not None
                move = decision.move
            else:
                action = policy.action(decision.fault)
                faults.append(
                    Fault(seat, decision.fault, action, state.move_count, decision.detail)
                )
                if action is Action.FORFEIT_MATCH:
                    forfeit = seat
                    break
                if action is Action.FORFEIT_HAND:
                    autopilot[seat] = state.hand_no
                move = legal[0]
        hands = len(state.hand_results)
        state = state.apply(move)
        tell(MovePlayed(seat, move))
        if len(state.hand_results) > hands:
            tell(HandEnded(state.hand_results[-1]))
            if not state.is_over:
                tell(HandStarted(state.hand_no, state.table))
    if state.is_over:
        tell(MatchEnded(state.scores))
    ending = Ending.SCORE if forfeit is None else Ending.FORFEIT
    winner = state.winner if forfeit is None else 1 - forfeit
    if forfeit is None and len(set(state.scores)) == 1:
        winner = None
    fair = FairRecord(
        commitment(seed),
        seed,
        state.record().to_text(),
        (
            ("event", event or "-"),
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
                tournament.seed_of(spec.game_id),
                config.rules,
                factory,
                config.policy,
                event=config.name,
            )
            tournament.record(result)
            if on_result is not None:
                on_result(result)
    return tournament
