"""`ismcts`: determinized search over the hidden cards, exact in the last two-player deal.

Each iteration samples one world consistent with the seat's view (`worlds.WorldSampler`: the
unseen cards dealt at random into the other hands and the deck; with two players the world
is weighted by how likely the other seat's moves this deal were with the hand it gives that
seat, `knowledge.PlayLikelihood`; with more, a seat's hand is drawn with card weights
inferred from its moves, `knowledge.PlayLog.weights`: a seat that trailed when a card would
have taken points probably does not hold it) and plays every remaining candidate move in it,
then `horizon` more moves with the fast greedy policy (default 10), and scores the result:
the points taken so far, tablas, and each card's share of the most-cards race
(`rollout.estimate`). Short playouts measured much better than playing to the end of the
hand (less noise from greedy play far ahead, and more worlds per second). All candidates
share the same worlds, so their differences are measured with little noise; the worse half
is dropped at the end of each phase (successive halving: 12, 6, 3, then 2 candidates, each
phase the same share of the budget, `phases`). This is
perfect-information Monte Carlo (PIMC), the flat form of information-set search.

With two players and an empty deck nothing is hidden: the bot runs iterative deepening
alpha-beta over the rest of the hand instead (`exact.solve`), exact when it fits the budget
(the clock, or with `iterations=N` a node budget of 4 N, at least 6,000).

With `building` (which the simulator does not know) the worlds are states of the engine
itself, made by replaying the hand (`state_worlds.building_worlds`; worlds where another seat's
build could not have been made are drawn again), and played out with `greedy`'s choices there.

The budget is time (`budget_ms`, default 200), counted in the CPU time of the deciding thread
where the host has that clock (`clock.Deadline`: a loaded host slows the answer, not the
search; at most 10 times the budget of wall time), or, for replayable results, a number of
sampled worlds (`iterations`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import cached_property
from itertools import accumulate

from kafana.games.tablic import Move, Rules, View

from kafana_bots.base import Bot
from kafana_bots.budget import Searcher
from kafana_bots.clock import Deadline
from kafana_bots.events import Event
from kafana_bots.exact import Solver, solve
from kafana_bots.greedy import greedy_value
from kafana_bots.knowledge import PlayLog
from kafana_bots.rollout import estimate, race_estimate, truncated_rollout, utility
from kafana_bots.sim import HandSim, SimMove
from kafana_bots.state_worlds import building_worlds, state_playout
from kafana_bots.values import CARD_WEIGHT
from kafana_bots.worlds import WorldSampler, hands_known, sample_hidden, sim_from_view

DEFAULT_BUDGET_MS = 200.0
EXACT_NODES = 6_000
"""Least node budget of the last-deal search when the budget is `iterations` (replayable)."""
EXACT_NODES_PER_WORLD = 4
"""Last-deal search nodes per world of `iterations`: in the compiled build (greedy playouts
in C) a sampled world costs about 44 us of CPU and a node of the last-deal search 12-15 us,
so 4 N nodes take about as long as N worlds and a decision's time stays about the same in
every deal (at 16 N, 2,500 worlds, the last-deal decisions took up to 380 ms)."""
SAFETY = 0.85
"""Share of the time budget the search aims at; the rest is for the work around it."""
MAX_CANDIDATES = 12
HORIZON = 10
"""Playouts stop after this many moves (by any seat) and the position is estimated."""
INFERENCE = True
"""Whether worlds are drawn with the other seats' card weights (`knowledge.hand_weights`)."""


class TrueDealSolver(Solver):
    """The last-deal solver, whose leaves before the last deal are scored as `ismcts` scores
    a sampled world: `HORIZON` greedy moves, then the estimate (`rollout.estimate`)."""

    def leaf(self, sim: HandSim, left: int) -> float:
        """In the last deal a greedy rollout to the end (as the exact solver); before it, a
        playout of `HORIZON` moves and the estimate (a greedy playout to the end of a whole
        hand is the noisier value: docs/bots.md, "How the search was tuned")."""
        if not sim.deck:
            return super().leaf(sim, left)
        plies = min(left, HORIZON)
        self._tick(plies)
        leaf = sim.copy()
        truncated_rollout(leaf, plies)
        return utility(estimate(leaf), self.side)


class BudgetedBot(Searcher[Rules, View, Move], Bot):
    """A Tablić search bot: its budget (`budget_ms` of CPU time, or `iterations`), decision
    counts and horizon (`budget.Searcher`), its deadline and candidates; `ismcts` and the
    `oracle`."""

    DEFAULT_BUDGET_MS = DEFAULT_BUDGET_MS
    HORIZON = HORIZON

    def deadline(self) -> Deadline | None:
        """This decision's deadline (`SAFETY` of the budget), or None with `iterations`."""
        if self.iterations is not None:
            return None
        return Deadline(SAFETY * self.budget_ms / 1000)

    def exact_nodes(self) -> int:
        """The node budget of an exact search: 4 a world of `iterations`, at least
        `EXACT_NODES`; unbounded (the clock stops it) without `iterations`."""
        if self.iterations is None:
            return 10**9
        return max(EXACT_NODES, EXACT_NODES_PER_WORLD * self.iterations)

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The only legal move, or `decide`'s choice among the `candidates`."""
        moves = list(legal_moves)
        self.stats["decisions"] += 1
        if len(moves) == 1:
            return moves[0]
        deadline = self.deadline()
        return self.decide(view, candidates(view, moves), self.rules.side_of(self.seat), deadline)

    @abstractmethod
    def decide(
        self, view: View, compared: list[Move], side: int, deadline: Deadline | None
    ) -> Move:
        """One of `compared` (at least two candidates) for `side`, within `deadline`."""


def candidates(view: View, moves: Sequence[Move]) -> list[Move]:
    """The moves a search compares: the `MAX_CANDIDATES` best by their greedy value."""
    order = sorted(range(len(moves)), key=lambda i: -greedy_value(view, moves[i]))
    return [moves[i] for i in order[:MAX_CANDIDATES]]


WorldValues = Callable[[int], float]
"""One sampled world: the value of the candidate of each index played in it."""
NextWorld = Callable[[], WorldValues]
"""Samples the next world (`SearchBot._halving`)."""

MIN_PHASE = 8
"""Worlds before the first cut of successive halving (16 before the second, and so on)."""


def phases(count: int, by_worlds: bool) -> list[float]:
    """Where successive halving of `count` candidates drops the worse half: the cumulative
    shares of the budget at the end of each phase but the last (one phase per field: 12, 6,
    3 and 2 candidates). Each phase gets the same share of the time; counted in worlds
    (`by_worlds`, the budget `iterations`), a phase of k candidates plays a share in
    proportion to 1/k, since a world costs about k playouts.

    Equal phases, instead of cuts after 8, 16 and 32 worlds whatever the budget, spend a large
    budget on all the candidates rather than on the last two (the search's choice then
    differs less from the best of a 5,000-world evaluation: docs/bots.md, "Strength")."""
    fields = [count]
    while fields[-1] > 2:
        fields.append(max(2, (fields[-1] + 1) // 2))
    weights = [1.0 / k if by_worlds else 1.0 for k in fields]
    total = sum(weights)
    return list(accumulate(w / total for w in weights[:-1]))


class SearchBot(BudgetedBot):
    """PIMC search with greedy playouts; alpha-beta when every card is known."""

    name = "ismcts"
    STATS = ("decisions", "worlds", "exact")
    EQUAL_PHASES = True
    """Successive halving in phases of equal budget (`phases`); False: the former cuts after
    8, 16 and 32 worlds whatever the budget (kept to measure the two side by side:
    `loadtests/halving_regret.py`)."""
    LIKELIHOOD = True
    """True: with two players, worlds drawn uniformly, each weighted by how likely the other
    seat's moves this deal were in it (`knowledge.PlayLikelihood`); False, and with more
    players (not measured there), drawn with per-card weights (`knowledge.hand_weights`).
    Against `minimax3` at 300 worlds: +3.20 a hand over 400 deals, against +2.76 with
    per-card weights (docs/bots.md, "2 players")."""
    LIKELIHOOD_BETA: float | None = None
    """`knowledge.LIKELIHOOD_BETA` unless set."""
    LIKELIHOOD_DRAWS = 1
    """With the likelihood: above 1, each world's other hand is picked among this many
    uniform draws in proportion to their likelihood (`PlayLikelihood.draw`); 1, each world
    drawn uniformly and weighted by its likelihood."""
    LIKELIHOOD_REPLY = 0.0
    """With the likelihood: 0, each card the other seat could have played valued by its best
    greedy move; above 0, by `knowledge.reply_values` with this weight on the answer."""
    LIKELIHOOD_FOLLOW = 0.0
    """With the likelihood: above 0, each card the other seat could have played is valued
    also by this weight times the best of its other cards on the table the move leaves
    (`knowledge.follow_values`: a seat that looks ahead keeps a card it can use next, or
    trails one it can take back). With `LIKELIHOOD_REPLY` 1.5 and `LIKELIHOOD_BETA` 2.0,
    follow 0.8 predicts `minimax3`'s choices with a log-loss of 0.74 nats (the greedy values
    at beta 3: 1.20) and its hand better than uniform worlds (8.29 nats against 8.88; the
    greedy values at beta 3: 8.97), but in play it was not shown better: +0.38 [-0.11,
    +0.87] a hand over 400 paired deals at 300 worlds, -0.05 [-0.83, +0.72] over 146 at the
    default budget (docs/bots.md). Off; kept to measure side by side."""
    REPLY_DEPTH = 1
    """Plies searched in each world after a candidate: 1, the playout at once; above 1,
    full-window alpha-beta over the next plies of that world first, its leaves scored as
    the oracle's (`TrueDealSolver`). Worse at the same decision time (docs/bots.md, "What
    was tried"); kept to measure side by side."""
    RACE = False
    """True: a playout's end is valued by `rollout.race_estimate` (each side's chance of the
    most cards); False: by `rollout.estimate` (0.15 a card), as the oracle's leaves are."""

    @cached_property
    def log(self) -> PlayLog:
        """This hand's moves so far (`observe`)."""
        return PlayLog()

    def observe(self, event: Event) -> None:
        """Keep this hand's moves: the other seats' choices say what they do not hold."""
        self.log.observe(event)

    def decide(
        self, view: View, compared: list[Move], side: int, deadline: Deadline | None
    ) -> Move:
        """The candidate with the best mean result over sampled worlds (or exact search)."""
        if self.rules.building:
            return self._sample_states(view, compared, deadline)
        if hands_known(view):
            picked = self._solve(view, compared, side, deadline)
            if picked is not None:
                return picked
        return self._sample(view, compared, side, deadline)

    def _solve(
        self, view: View, candidates: list[Move], side: int, deadline: Deadline | None
    ) -> Move | None:
        hands, deck = sample_hidden(view, self.rng)  # the only world there is
        sim = sim_from_view(view, hands, deck)
        sims = [sim.to_sim(m) for m in candidates]
        found = solve(sim, sims, side, max_nodes=self.exact_nodes(), deadline=deadline)
        if found is None:
            return None
        values, exact = found
        self.stats["exact"] += exact
        best = max(range(len(values)), key=values.__getitem__)
        return candidates[best]

    def _sample(
        self, view: View, candidates: list[Move], side: int, deadline: Deadline | None
    ) -> Move:
        likelihood = None
        if INFERENCE and self.LIKELIHOOD and view.rules.players == 2:
            likelihood = self.log.likelihood(
                view, self.LIKELIHOOD_BETA, self.LIKELIHOOD_REPLY, self.LIKELIHOOD_FOLLOW
            )
            sampler = WorldSampler(view)
        else:
            sampler = WorldSampler(view, self.log.weights(view) if INFERENCE else None)
        sim_moves: list[SimMove] = []

        other = 1 - view.seat if view.seat is not None else 0
        draws = self.LIKELIHOOD_DRAWS if likelihood else 1

        def next_world() -> WorldValues:
            if draws > 1 and likelihood:
                size = view.hand_sizes[other]
                hand, weight = likelihood.draw(sampler.pool, other, size, draws, self.rng)
                world = sampler.sample(self.rng, {other: hand})
            else:
                world = sampler.sample(self.rng)
                weight = likelihood.weight(world.hands) if likelihood else 1.0
            if not sim_moves:
                sim_moves.extend(world.to_sim(m) for m in candidates)

            def value(i: int) -> float:
                sim = world.copy()
                sim.play(*sim_moves[i])
                return weight * self._value(sim, side)

            return value

        return candidates[self._halving(len(candidates), next_world, deadline)]

    def _sample_states(self, view: View, candidates: list[Move], deadline: Deadline | None) -> Move:
        """`building` (the simulator knows no builds): the worlds are `MatchState`s, made by
        replaying the hand's moves (`state_worlds.building_worlds`), played out greedily."""
        worlds = building_worlds(view, self.log, self.rng, inference=INFERENCE)
        if worlds is None:
            return candidates[0]  # not told every move, or no world replays it: greedy's
        new_world, side = worlds
        plies = self.horizon or 52

        def next_world() -> WorldValues:
            state = new_world()

            def value(i: int) -> float:
                return utility(state_playout(state.apply(candidates[i]), plies), side)

            return value

        return candidates[self._halving(len(candidates), next_world, deadline)]

    def _halving(self, count: int, next_world: NextWorld, deadline: Deadline | None) -> int:
        """The best of `count` candidates over sampled worlds (`next_world` samples one and
        gives each candidate's value in it), the worse half dropped at the end of each phase
        of `phases` (the same share of the budget each, and not before 8, 16, 32... worlds);
        a world the deadline interrupts is not counted."""
        limit = self.iterations
        ends = phases(count, by_worlds=limit is not None)
        due: list[Deadline] = []
        if limit is None and deadline is not None:
            due = [deadline.part(share) for share in ends]
        alive = list(range(count))
        totals = [0.0] * count
        worlds = 0
        cut = 0
        while True:
            if limit is not None and worlds >= limit:
                break
            if deadline is not None and worlds and deadline.passed():
                break
            value = next_world()
            results: list[float] = []
            for i in alive:
                if deadline is not None and worlds and deadline.passed():
                    break  # this world is left unfinished and not counted
                results.append(value(i))
            if len(results) < len(alive):
                break
            for i, result in zip(alive, results, strict=True):
                totals[i] += result
            worlds += 1
            if (
                cut < len(ends)
                and worlds >= MIN_PHASE << cut
                and (
                    not self.EQUAL_PHASES
                    or (due[cut].passed() if due else worlds >= ends[cut] * (limit or 0))
                )
            ):
                alive.sort(key=lambda i: -totals[i])
                alive = alive[: max(2, (len(alive) + 1) // 2)]
                cut += 1
        self.stats["worlds"] += worlds
        return max(alive, key=lambda i: totals[i])

    def _value(self, sim: HandSim, side: int) -> float:
        """Our side's result of a world after a candidate: a greedy playout of `horizon`
        moves, then the estimate (with `REPLY_DEPTH` above 1, a search of the next plies
        first, whose leaves are valued so)."""
        if self.REPLY_DEPTH > 1:
            solver = TrueDealSolver(side, 10**9, None)
            return solver.value(sim, self.REPLY_DEPTH - 1, -1e9, 1e9)
        truncated_rollout(sim, self.horizon or 52)
        if self.RACE:
            return utility(race_estimate(sim), side)
        if sim.current is None or len(sim.cards) != 2:
            return utility(estimate(sim), side)
        # Two sides mid-hand: `utility(estimate(sim), side)` without its lists (the same
        # operations in the same order, so the same floats), a fifth of a world's CPU.
        rules = sim.rules
        cards = sim.cards
        points = sim.points
        tablas = sim.tablas
        mine = points[side] + tablas[side] * rules.tabla_points
        theirs = points[1 - side] + tablas[1 - side] * rules.tabla_points
        if cards[0] >= 27 or cards[1] >= 27:
            if cards[side] >= 27:
                return float(mine + rules.most_cards_points) - float(theirs)
            return float(mine) - float(theirs + rules.most_cards_points)
        return (mine + CARD_WEIGHT * cards[side]) - (theirs + CARD_WEIGHT * cards[1 - side])
