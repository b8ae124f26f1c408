"""Card counting from a seat's view: which cards can still be hidden, and where; and what the
other seats' moves this deal say about their hands (`PlayLog`, `hand_weights`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb, exp

from kafana.games.tablic import CARDS, Card, Move, Rules, View, engine_for
from kafana.games.tablic.capture import count_vector
from kafana.games.tablic.state import deal_size

from kafana_bots.events import Event, HandStarted, MovePlayed
from kafana_bots.values import capture_value, trail_value


def unseen(view: View) -> list[Card]:
    """Cards the seat has not seen: in other hands or the deck (sorted).

    Everything played is public (a trail lies on the table, a capture is made face up), so a
    card that is not in this hand, on the table or in a side's pile can only be hidden.
    """
    seen: set[Card] = set(view.table)
    for build in view.builds:  # `building`: a build's cards lie on the table too
        seen.update(build.cards)
    seen.update(view.hand or ())
    for pile in view.captured:
        seen.update(pile)
    return [c for c in CARDS if c not in seen]


def hidden_sizes(view: View) -> tuple[list[int], int]:
    """Hand size of every seat (0 for the viewer's own) and cards left in the deck."""
    sizes = [0 if s == view.seat else n for s, n in enumerate(view.hand_sizes)]
    return sizes, view.deck_remaining


def unseen_by_rank(cards: list[Card]) -> list[int]:
    """How many of the given cards there are of each rank (index 1..13; 0 unused)."""
    counts = [0] * 14
    for c in cards:
        counts[c.rank] += 1
    return counts


def p_holds_any(k: int, pool: int, hand: int) -> float:
    """Probability that a hand of `hand` cards drawn from `pool` holds one of `k` given cards.

    >>> round(p_holds_any(1, 10, 5), 2)
    0.5
    """
    if k <= 0 or hand <= 0 or pool <= 0:
        return 0.0
    if hand > pool - k:
        return 1.0
    return 1.0 - comb(pool - k, hand) / comb(pool, hand)


INFERENCE_BETA = 1.0
"""How surely another seat is taken to play its greedy best: a card that would have made a
move worth `gap` points more than the one the seat chose (and more than its known cards'
best) is `exp(-INFERENCE_BETA * gap)` times as likely to be in its hand."""
MUST_CAPTURE_GAP = 20.0
"""The gap charged when `must_capture` forbade the trail a seat made with that card in hand."""

LoggedMove = tuple[int, Move, tuple[Card, ...]]
"""(seat, move, the table it was played to)."""


class PlayLog:
    """The moves of the current hand as a seat saw them, each with the table (its loose
    cards) it was played to.

    Fed by `Bot.observe`; `deal_moves` keeps the moves since the hands were last dealt and
    checks the log against the seat's view (a bot that was not told every event gets None).
    """

    def __init__(self) -> None:
        self.hand_no: int | None = None
        self.opening: tuple[Card, ...] = ()
        self.start_table = 0
        self.table: list[Card] = []
        self.moves: list[LoggedMove] = []
        self.values: list[MoveValues] = []
        self.replies: dict[tuple[int, float], dict[int, float]] = {}
        self.follows: dict[int, FollowValues] = {}

    def observe(self, event: Event) -> None:
        """Record a hand's start (its table) or a move."""
        if isinstance(event, HandStarted):
            self.hand_no = event.hand_no
            self.table = sorted(event.table)
            self.opening = tuple(self.table)
            self.start_table = len(self.table)
            self.moves = []
            self.values = []
            self.replies = {}
            self.follows = {}
        elif isinstance(event, MovePlayed) and self.hand_no is not None:
            move = event.move
            self.moves.append((event.seat, move, tuple(self.table)))
            if move.is_trail:
                self.table = sorted([*self.table, move.card])
            else:  # a capture, or a build (`building`): its loose cards leave the table
                gone = move.captured | move.joined
                self.table = [c for c in self.table if c not in gone]

    def weights(self, view: View) -> dict[int, dict[int, float]] | None:
        """`hand_weights` for this deal, or None if the log does not match the view."""
        found = self.deal_values(view)
        return None if found is None else hand_weights(view, found[0], values=found[1])

    def likelihood(
        self, view: View, beta: float | None = None, reply: float = 0.0, follow: float = 0.0
    ) -> PlayLikelihood | None:
        """`PlayLikelihood` of this deal's moves, or None if the log does not match the view;
        with `reply`, each card valued by `reply_values` (two plies) instead of its greedy
        best; with `follow`, each card's value also counts `follow` times the best of the
        seat's other cards on the table its move leaves (`follow_values`)."""
        found = self.deal_values(view)
        if found is None:
            return None
        deal, values = found
        follows: list[FollowValues | None] | None = None
        if follow:
            start = len(self.moves) - len(deal)
            follows = [
                None if seat == view.seat else self.follow_values(view.rules, start + k)
                for k, (seat, _, _) in enumerate(deal)
            ]
        if reply:
            start = len(self.moves) - len(deal)
            values = [
                (self.reply_values(view, start + k, reply), takers)
                if seat != view.seat
                else (best, takers)
                for k, ((seat, _, _), (best, takers)) in enumerate(zip(deal, values, strict=True))
            ]
        return PlayLikelihood(view, deal, values, beta, follows, follow)

    def follow_values(self, rules: Rules, k: int) -> FollowValues:
        """`follow_values` of the table of the hand's move `k`, computed once."""
        found = self.follows.get(k)
        if found is None:
            found = self.follows[k] = follow_values(rules, self.moves[k][2])
        return found

    def reply_values(self, view: View, k: int, reply: float) -> dict[int, float]:
        """`reply_values` for the hand's move `k`, computed once: the pool is every card not
        seen by all when it was played, the next seat's hand its size then."""
        key = (k, reply)
        found = self.replies.get(key)
        if found is None:
            n = view.rules.players
            seat, _, table = self.moves[k]
            nxt = (seat + 1) % n
            size = view.hand_sizes[nxt] + sum(1 for s, _, _ in self.moves[k:] if s == nxt)
            seen = {c.index for c in self.opening}
            seen.update(m.card.index for _, m, _ in self.moves[:k])
            pool = [i for i in range(len(CARDS)) if i not in seen]
            found = reply_values(view.rules, table, pool, size, reply)
            self.replies[key] = found
        return found

    def deal_values(self, view: View) -> tuple[list[LoggedMove], list[MoveValues]] | None:
        """This deal's moves and each one's `move_values` (computed once a move), or None if
        the log does not match the view."""
        deal = self.deal_moves(view)
        if deal is None:
            return None
        start = len(self.moves) - len(deal)
        for k in range(len(self.values), len(self.moves)):
            self.values.append(move_values(view.rules, self.moves[k][2]))
        return deal, self.values[start:]

    def deal_moves(self, view: View) -> list[LoggedMove] | None:
        """The moves played since the hands were last dealt, or None if the log does not
        match the view (another hand, another table, other hand sizes)."""
        if self.hand_no != view.hand_no or set(self.table) != set(view.table):
            return None
        n = view.rules.players
        deck = len(CARDS) - self.start_table
        start = 0
        moved = len(self.moves)
        while True:
            per = deal_size(deck, n)
            if per == 0:
                return None
            deck -= n * per
            if moved < start + n * per:
                break
            start += n * per
        deal = self.moves[start:]
        if deck != view.deck_remaining:
            return None
        for seat in range(n):
            if per - sum(1 for s, _, _ in deal if s == seat) != view.hand_sizes[seat]:
                return None
        return deal


MoveValues = tuple[dict[int, float], frozenset[int]]
"""For one logged move: every card's best greedy value on its table, and the cards that could
capture there."""


def move_values(rules: Rules, table: Sequence[Card]) -> MoveValues:
    """Per card index (all 52): the greedy value (`values`) of the best move that card makes
    on `table` (a trail or its best capture; the last card's tabla aside), and which cards
    can capture there."""
    engine = engine_for(rules)
    order = sorted(c.index for c in table)
    vector = count_vector(i // 4 + 1 for i in order)
    out: dict[int, float] = {}
    takers: set[int] = set()
    for card in CARDS:
        i = card.index
        best = trail_value(rules, i)
        for mask in engine.listing(card.rank, vector, rules.rank_priority)[0]:
            taken = [c for k, c in enumerate(order) if mask >> k & 1]
            best = max(best, capture_value(rules, i, taken, len(taken) == len(order), False))
            takers.add(i)
        out[i] = best
    return out, frozenset(takers)


FollowValues = dict[int, tuple[float, ...]]
"""For one table, per card index c: per card index x (all 52), the greedy value of x's best
move on the table that c's best move leaves."""


def follow_values(rules: Rules, table: Sequence[Card]) -> FollowValues:
    """Per card index c not on `table`: the greedy values (`move_values`) of every card on the
    table c's best greedy move leaves (the trail if nothing is better; the last card's tabla
    aside): what a seat that plays c can make with its other cards next turn, were the table
    left alone. A seat that looks ahead trails a card it can take back, or keeps one."""
    engine = engine_for(rules)
    order = sorted(c.index for c in table)
    on_table = set(order)
    vector = count_vector(i // 4 + 1 for i in order)
    after: dict[tuple[int, ...], tuple[float, ...]] = {}
    out: FollowValues = {}
    for card in CARDS:
        i = card.index
        if i in on_table:
            continue
        best = trail_value(rules, i)
        left = tuple(sorted([*order, i]))
        for mask in engine.listing(card.rank, vector, rules.rank_priority)[0]:
            taken = [c for k, c in enumerate(order) if mask >> k & 1]
            value = capture_value(rules, i, taken, len(taken) == len(order), False)
            if value > best:
                best = value
                left = tuple(c for k, c in enumerate(order) if not mask >> k & 1)
        found = after.get(left)
        if found is None:
            values = move_values(rules, [CARDS[c] for c in left])[0]
            found = after[left] = tuple(values[x] for x in range(len(CARDS)))
        out[i] = found
    return out


def max_shares(pool: int, hand: int) -> list[float]:
    """For a hand of `hand` cards drawn uniformly from `pool`: the chance that the j-th best
    card of the pool (j from 0) is the best card of the hand."""
    hand = min(hand, pool)
    if hand <= 0:
        return [0.0] * pool
    total = comb(pool, hand)
    return [comb(pool - j - 1, hand - 1) / total for j in range(pool)]


def reply_values(
    rules: Rules, table: Sequence[Card], pool: Sequence[int], replies: int, reply: float
) -> dict[int, float]:
    """Per card index (all 52): the value of its best move on `table` looking one move on:
    the move's greedy value less `reply` times the expected greedy value of the next seat's
    best answer on the table it leaves, that seat holding `replies` cards drawn uniformly
    from `pool` (the cards the mover could not see, the card played aside). A two-ply
    value: a trail that leaves a tabla or a rich capture is worth less than its greedy
    value says."""
    engine = engine_for(rules)
    order = sorted(c.index for c in table)
    unseen = set(pool)
    shares = {n: max_shares(n, replies) for n in (len(unseen) - 1, len(unseen))}
    answers: dict[tuple[int, ...], dict[int, float]] = {}

    def answer(after: tuple[int, ...], played: int) -> float:
        """The expected best greedy answer on the table `after`, `played` not in a hand."""
        best = answers.get(after)
        if best is None:
            best = answers[after] = move_values(rules, [CARDS[i] for i in after])[0]
        ranked = sorted((best[i] for i in unseen if i != played), reverse=True)
        return sum(v * w for v, w in zip(ranked, shares[len(ranked)], strict=True))

    vector = count_vector(i // 4 + 1 for i in order)
    out: dict[int, float] = {}
    for card in CARDS:
        i = card.index
        best = trail_value(rules, i) - reply * answer(tuple(sorted([*order, i])), i)
        for mask in engine.listing(card.rank, vector, rules.rank_priority)[0]:
            taken = [c for k, c in enumerate(order) if mask >> k & 1]
            rest = tuple(c for k, c in enumerate(order) if not mask >> k & 1)
            value = capture_value(rules, i, taken, not rest, False) - reply * answer(rest, i)
            best = max(best, value)
        out[i] = best
    return out


def hand_weights(
    view: View,
    deal: Sequence[LoggedMove],
    beta: float | None = None,
    values: Sequence[MoveValues] | None = None,
) -> dict[int, dict[int, float]]:
    """Per other seat that moved this deal: a weight per unseen card index (1 = no evidence)
    of that card being in its hand, from the moves it chose (see `INFERENCE_BETA`).

    A seat that played move m on table T, holding the cards it still holds and those it
    played later in this deal, would have preferred a card c whose best move on T is worth
    more than the best of its known cards; the larger that gap, the less likely c is in its
    hand. Each decision's factor is applied to each card independently. `values`, if given,
    are the deal's `move_values` (`PlayLog.weights` keeps them from one decision to the next).
    """
    beta = INFERENCE_BETA if beta is None else beta
    rules = view.rules
    pool = [c.index for c in unseen(view)]
    out: dict[int, dict[int, float]] = {}
    for k, (seat, move, table) in enumerate(deal):
        if seat == view.seat or view.hand_sizes[seat] == 0:
            continue
        best, takers = move_values(rules, table) if values is None else values[k]
        known = max(best[m.card.index] for s, m, _ in deal[k:] if s == seat)
        weights = out.setdefault(seat, dict.fromkeys(pool, 1.0))
        forced = rules.must_capture and move.is_trail
        for i in pool:
            gap = best[i] - known
            if forced and i in takers:
                gap = max(gap, MUST_CAPTURE_GAP)
            if gap > 0:
                weights[i] *= exp(-beta * gap)
    return out


LIKELIHOOD_BETA = 3.0
"""How surely another seat is taken to play the card whose best move is worth most: the
chance of each card it could have played is in proportion to `exp(LIKELIHOOD_BETA *
value)` (a softmax over its hand). 3 fitted `minimax3`'s hands best of 1, 2, 3 and 5
(docs/bots.md, "Inference")."""


class PlayLikelihood:
    """How likely the other seats' moves this deal were, given a world's hidden hands.

    A seat holding cards H that played card c on a table is taken to have chosen c with
    probability `e(c) / sum(e(x) for x in H)`, `e(x) = exp(beta * best value of x there)`
    (the greedy values of `move_values`; with `must_capture`, a trail while holding a card
    that could capture is charged `MUST_CAPTURE_GAP`). H is the world's hand of that seat
    now plus the cards it played this deal from that move on. A world's `weight` is the
    product over the deal's moves by other seats: the importance weight of a world drawn
    uniformly (a posterior over whole hands, where `hand_weights` weighs each card alone).
    Each factor is divided by the played card's `e`, so a weight is at most 1.

    With `follows` (each move's `follow_values`) and `follow` above 0, a card's value there
    also counts `follow` times the best value of the seat's other cards of H on the table
    its move leaves: the choice then depends on the whole hand (a seat that looks ahead
    trails a card it can take back next turn), and each factor is the played card's share
    of the softmax over H, computed per world."""

    def __init__(
        self,
        view: View,
        deal: Sequence[LoggedMove],
        values: Sequence[MoveValues],
        beta: float | None = None,
        follows: Sequence[FollowValues | None] | None = None,
        follow: float = 0.0,
    ) -> None:
        beta = LIKELIHOOD_BETA if beta is None else beta
        rules = view.rules
        self.terms: list[tuple[int, float, list[float]]] = []
        self.follow_terms: list[
            tuple[int, int, list[int], list[float], dict[int, list[float]]]
        ] = []
        for k, (seat, move, _) in enumerate(deal):
            if seat == view.seat or view.hand_sizes[seat] == 0:
                continue  # our own move, or a seat whose hand is now empty: all worlds alike
            best, takers = values[k]
            forced = rules.must_capture and move.is_trail
            top = best[move.card.index]
            shifted = [
                best[i] - top + (MUST_CAPTURE_GAP if forced and i in takers else 0.0)
                for i in range(len(CARDS))
            ]
            e = [exp(min(700.0, beta * v)) for v in shifted]
            table = follows[k] if follows is not None else None
            if follow and table is not None:
                later = [m.card.index for s, m, _ in deal[k:] if s == seat]
                # exp(beta * follow * v): the factor of the best other card's follow-up v
                ahead = {
                    c: [exp(min(700.0, beta * follow * v)) for v in row] for c, row in table.items()
                }
                self.follow_terms.append((seat, move.card.index, later, e, ahead))
                continue
            later_e = sum(e[m.card.index] for s, m, _ in deal[k:] if s == seat)
            self.terms.append((seat, later_e, e))

    def __bool__(self) -> bool:
        return bool(self.terms or self.follow_terms)

    def draw(
        self, pool: Sequence[int], seat: int, size: int, draws: int, rng: random.Random
    ) -> tuple[list[int], float]:
        """A hand of `size` for `seat` (the one other seat with moves this deal) and its
        importance weight: `draws` hands drawn uniformly from `pool`, one of them picked in
        proportion to its `weight`, weighted by their mean weight (sampling importance
        resampling: properly weighted, and the hands a search values lie where the
        likelihood is, not spread uniformly)."""
        hands: list[list[int]] = [[] for _ in range(seat + 1)]
        drawn = [rng.sample(pool, size) for _ in range(draws)]
        weights = []
        for hand in drawn:
            hands[seat] = hand
            weights.append(self.weight(hands))
        total = sum(weights)
        if total <= 0.0:
            return drawn[0], 0.0
        return rng.choices(drawn, weights)[0], total / draws

    def weight(self, hands: Sequence[Sequence[int]]) -> float:
        """The likelihood of the deal's moves with these hands (card indices per seat)."""
        w = 1.0
        for seat, later, e in self.terms:
            total = later
            for c in hands[seat]:
                total += e[c]
            w /= total
        for seat, played, known, e, ahead in self.follow_terms:
            held = [*hands[seat], *known]
            total = 0.0
            mine = 0.0
            for c in held:
                row = ahead[c]
                factor = max([row[x] for x in held if x != c], default=1.0)
                v = e[c] * factor
                total += v
                if c == played:
                    mine = v
            w *= mine / total
        return w
