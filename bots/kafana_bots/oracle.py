"""`oracle`: the all-seeing yardstick. It is shown the true deal and searches it.

No player can know the other hands and the order of the deck, so a search of the true deal is
the yardstick: how much of the oracle's margin over an opponent another bot achieves against
the same opponent says how much of the information gap it closes (docs/bots.md, "Against the
bound"; with two sides, 2 players or 2 against 2, it is far ahead of every bot). The oracle
searches the real position the way `ismcts` searches the last two-player deal, where every card
is known: `exact.solve` (alpha-beta, iterative deepening), over the same candidates, with the
same budget (`budget_ms` of CPU time, or `iterations`: 4 nodes a world, at least 6,000). With
cards still in the deck it goes straight to deepening (a search to the end of a whole hand
never finishes in a budget), and scores a leaf cut off before the last deal as `ismcts` scores
a sampled world (the same greedy playout policy for `HORIZON` moves, then the estimate); in the
last deal, as the exact solver does (a greedy rollout to the end of the hand). With more than
two sides (each for itself) the solver would take every other seat for this one's opponent
(paranoid search), so there it searches max^n (`maxn.search`: each seat plays for its own
side), with the same leaves and budget. With four players each for itself none of these is a
bound: at 6,000 nodes against `heuristic`, paranoid -0.53 a hand (10 deals), one ply -1.53
(40), max^n -0.72 (118). With `building` (which the simulator does not know) it values each
candidate by one greedy playout of `HORIZON` moves in the true state (`state_worlds`).

It sees what no seat may see, so the registry lends it to the arena only (`registry.create`
refuses it elsewhere: a table with people, an event, a remote seat). The arena shows it the
deal (`see`) before play; it keeps the true state up to date from the public moves
(`observe`), and refuses to play a position it was not shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafana.errors import InvalidInputError
from kafana.games.cards import CARDS, Card
from kafana.games.tablic import MatchSetup, MatchState, Move, View
from kafana.games.tablic.state import JACK, TABLE_SIZE

from kafana_bots import maxn
from kafana_bots.clock import Deadline
from kafana_bots.events import Event, MovePlayed
from kafana_bots.exact import EXACT_SHARE, solve
from kafana_bots.ismcts import HORIZON, BudgetedBot, TrueDealSolver
from kafana_bots.rollout import utility
from kafana_bots.state_worlds import state_playout
from kafana_bots.worlds import sim_from_view


class OracleBot(BudgetedBot):
    """Search of the true deal (shown by the arena): the bound no player can pass."""

    name = "oracle"
    STATS = ("decisions", "exact")
    truth: MatchState | None = None
    """The true match, once shown (`see`)."""

    def see(self, state: MatchState) -> None:
        """Be shown the true match (the arena does this before play)."""
        self.truth = state

    def observe(self, event: Event) -> None:
        """Follow the true match move by move."""
        if isinstance(event, MovePlayed) and self.truth is not None:
            self.truth = self.truth.apply(event.move, event.seat)

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The candidate of best value in a search of the true deal."""
        self._truth(view)  # refuse an unseen deal even where there is nothing to search
        return super().choose(view, legal_moves)

    def decide(
        self, view: View, compared: list[Move], side: int, deadline: Deadline | None
    ) -> Move:
        """The candidate of best value in a search of the true deal."""
        truth = self._truth(view)
        if self.rules.building:  # the simulator knows no builds: one ply in the engine
            played = [utility(state_playout(truth.apply(m), HORIZON), side) for m in compared]
            return compared[max(range(len(played)), key=played.__getitem__)]
        hands = [list(truth.hand(seat)) for seat in range(self.rules.players)]
        sim = sim_from_view(view, hands, undealt(truth))
        share = 0.0 if sim.deck else EXACT_SHARE
        nodes = self.exact_nodes()
        sims = [sim.to_sim(m) for m in compared]
        if self.rules.sides > 2:
            valued = maxn.search(
                sim, sims, side, max_nodes=nodes, deadline=deadline, horizon=HORIZON
            )
            if valued is None:
                return compared[0]  # not even one ply fit: the greedy choice
            return compared[max(range(len(valued)), key=valued.__getitem__)]
        found = solve(
            sim,
            sims,
            side,
            max_nodes=nodes,
            deadline=deadline,
            exact_share=share,
            solver_type=TrueDealSolver,
        )
        if found is None:
            return compared[0]  # not even one ply fit: the greedy choice
        values, exact = found
        self.stats["exact"] += exact
        return compared[max(range(len(values)), key=values.__getitem__)]

    def _truth(self, view: View) -> MatchState:
        truth = self.truth
        if (
            truth is None
            or truth.move_count != view.move_count
            or truth.hand(self.seat) != view.hand
            or truth.table != view.table
        ):
            raise InvalidInputError(
                "the oracle was not shown this match: it plays only in the arena, which shows "
                "it the deal (OracleBot.see)"
            )
        return truth


def undealt(state: MatchState) -> list[Card]:
    """The cards of the current hand not dealt yet, in the order they will be dealt.

    The hand's deck comes from the match's record (its seed or decks); the opening table is
    the first four cards but for jacks that `jack_off_opening_table` puts at the bottom, and
    the deals take the rest from the top, so the undealt cards are its last ones. Checked
    against the cards no hand, table or pile holds."""
    left = state.deck_remaining
    if not left:
        return []
    record = state.record()
    deck = list(MatchSetup(record.rules, record.seed, record.decks).deck(state.hand_no))
    opened = 0
    while opened < TABLE_SIZE:
        card = deck.pop(0)
        if record.rules.jack_off_opening_table and card.rank == JACK:
            deck.append(card)
        else:
            opened += 1
    rest = deck[-left:]
    placed = set(state.table)
    for seat in range(record.rules.players):
        placed.update(state.hand(seat))
    for side in range(record.rules.sides):
        placed.update(state.captured(side))
    if set(rest) != set(CARDS) - placed:
        raise InvalidInputError("the oracle could not place the undealt cards of this hand")
    return rest
