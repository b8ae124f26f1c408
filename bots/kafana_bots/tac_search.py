"""`search` for Tač: determinized rollouts over the closed piles, as `ismcts` does for Tablić.

The only hidden cards in Tač are the closed piles (nobody sees them, their owner included).
But a closed pile made by turning a discard pile over keeps the order every player saw, so
the bot remembers (`Memory`, from the views of its own moves) each pile it can work out. Each
iteration deals the other unseen cards (every card not on the central pile, a discard pile,
turned up or in a known pile) at random into the unknown closed piles, with the sizes the view
shows, starts that world (`tac.start_position`; a turned-up card is put back on top of the
closed pile and flipped again), plays every candidate move in it, and plays the game out with
every seat keeping the order and loading the leader (`loader`'s policy). A result is the
seat's place as a score (1 for first, 0 for last). All candidates share the same worlds
(paired comparison); when every closed pile is known, one world is the game itself, and
each candidate is scored by the best of the seat's next `DEPTH` choice points tried every
way (`best_line`; the others' play is then exactly what loader's policy predicts). The
candidates are the moves that keep the order, `loader`'s choice first, so that a tie is
played as `loader` plays; calls are always made, as `loader` does.

The budget is time (`budget_ms`, default 200: CPU time of the deciding thread where the host
has that clock, at most 10 times as much wall time, `clock.Deadline`) or a number of worlds
(`iterations`, replayable).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cached_property
from itertools import pairwise

from kafana.games.tac import (
    Card,
    GameState,
    Move,
    Position,
    Rules,
    View,
    follows,
    start_position,
)
from kafana.games.tac.shuffle import canonical_deck

from kafana_bots.budget import Searcher
from kafana_bots.clock import Deadline, now
from kafana_bots.tac_bots import LoaderTacBot, TacBot, in_order

DEFAULT_BUDGET_MS = 200.0
SAFETY = 0.85
"""Share of the time budget the search aims at; the rest absorbs scheduling delays."""
HARD = 0.95
"""Share of the time budget after which a world still being played out is dropped."""
MAX_PLAYOUT = 5_000
"""Moves a playout may take before it is scored by the cards each seat holds."""
FLIP = Move.parse("flip")
HORIZON = 0
"""Turns a playout runs before it is scored by the cards held (0: to the end of the game)."""
DEPTH = 3
"""Own choice points after the first that a search in a fully known world tries every way."""
MAX_TAIL = 4
"""Cards others put on a discard pile between two looks, at most, when the bot works out the
pile it was turned into (two decks, 4 players: 97% of the turnovers in 60 games of loader)."""
MAX_RUN = 3
"""Cards of a closed pile not known, at most, that the bot takes its owner to have flipped
all in one turn and then turned its discard pile over (else it claims no pile)."""
WIN_CARDS = 60.0
"""Cards of lead an unfinished playout would need to count as much as a win."""


class TacSearchBot(Searcher[Rules, View, Move], TacBot):
    """Determinized playouts with `loader` play for every seat, over the closed piles its
    memory of turned-over discard piles leaves unknown."""

    name = "search"

    DEFAULT_BUDGET_MS = DEFAULT_BUDGET_MS
    HORIZON = HORIZON
    HORIZON_UNITS = ("turns", "game")
    STATS = ("decisions", "worlds")

    @cached_property
    def fallback(self) -> LoaderTacBot:
        """`loader` for this seat: its choice is tried first, and taken where nothing is
        searched."""
        return LoaderTacBot(self.seat, self.rules, self.rng)

    @cached_property
    def memory(self) -> Memory:
        """The turned-over discard piles worked out so far."""
        return Memory(self.rules.players)

    def known_piles(self, view: View) -> list[Pile | None]:
        """Each closed pile, top first, as far as the bot knows it (its `Memory`)."""
        return self.memory.known(view)

    def wants_call(self, view: View) -> bool:
        """Always, as `loader`: a right call costs the caller nothing."""
        return True

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """A call if one is offered, else the in-order move of best mean place."""
        start = now()
        self.memory.update(view)
        calls = [m for m in legal_moves if m.kind == "call"]
        if calls:
            return calls[0]
        candidates = in_order(legal_moves, view.rules.centre_first)
        if len(candidates) == 1 or view.out_order:
            return self.fallback.choose(view, legal_moves)
        self.stats["decisions"] += 1
        # loader's choice first: on a tie (the usual case) the search plays as loader does
        preferred = self.fallback.choose(view, legal_moves)
        candidates.remove(preferred)
        candidates.insert(0, preferred)
        soft: float | None = None  # on the budget's clock (`clock.now`)
        hard: Deadline | None = None
        if self.iterations is None:
            soft = start + SAFETY * self.budget_ms / 1000
            hard = Deadline(HARD * self.budget_ms / 1000 - (now() - start))
        known = fixed_piles(view, self.known_piles(view))
        exact = all(pile is not None and None not in pile for pile in known)
        totals = [0.0] * len(candidates)
        worlds = 0
        longest = 0.0
        while self.iterations is None or worlds < self.iterations:
            began = now()
            if soft is not None and worlds and began + longest > soft:
                break  # the next world would likely end after the soft deadline
            world = sample_world(view, self.rng, known)
            results: list[float] = []
            for move in candidates:
                if exact and not self.horizon:
                    result = best_line(world.apply(move), self.seat, DEPTH, hard)
                else:
                    end = playout(
                        world.apply(move), self.horizon and world.turn + self.horizon, hard
                    )
                    result = None if end is None else score(end, self.seat, view.rules.players)
                if result is None:
                    break
                results.append(result)
            if len(results) < len(candidates):
                break  # out of time within a world: it is dropped (candidates stay paired)
            totals = [t + r for t, r in zip(totals, results, strict=True)]
            worlds += 1
            longest = max(longest, now() - began)
            if exact:
                break  # every closed pile is known: one world is the game itself
        self.stats["worlds"] += worlds
        best = max(range(len(candidates)), key=totals.__getitem__)
        return candidates[best]


def unseen(view: View) -> list[Card]:
    """The cards in closed piles: every card of the game not face up, in canonical order."""
    shown = Counter(view.central)
    for pile in view.discards:
        shown.update(pile)
    if view.turned is not None:
        shown[view.turned] += 1
    out: list[Card] = []
    for card in canonical_deck(view.rules.decks):
        if shown[card]:
            shown[card] -= 1
        else:
            out.append(card)
    return out


Pile = tuple[Card | None, ...]
"""A closed pile top first as far as it is known: None for a card not known."""


def fixed_piles(view: View, known: Sequence[Pile | None]) -> list[Pile | None]:
    """The known closed piles (top first) that fit the view together, None for the others."""
    left = Counter(unseen(view))
    fixed: list[Pile | None] = [None] * len(view.closed_sizes)
    for seat, pile in enumerate(known):
        if pile is not None and len(pile) == view.closed_sizes[seat] and _within(pile, left):
            left -= Counter(c for c in pile if c is not None)
            fixed[seat] = pile
    return fixed


def sample_world(
    view: View, rng: random.Random, known: Sequence[Pile | None] | None = None
) -> GameState:
    """A game state consistent with the view: the closed piles dealt at random, but for the
    piles in `known` (top first, as `Memory.known` gives them), which keep their order."""
    assert view.current_seat is not None, "the game is over"
    sizes = view.closed_sizes
    fixed = fixed_piles(view, known) if known is not None else [None] * len(sizes)
    left = Counter(unseen(view))
    for pile in fixed:
        if pile is not None:
            left -= Counter(c for c in pile if c is not None)
    pool = list(left.elements())
    rng.shuffle(pool)
    closed: list[tuple[Card, ...]] = []
    at = 0
    for seat, size in enumerate(sizes):
        cards: list[Card] = []
        for card in fixed[seat] or (None,) * size:
            if card is None:
                card = pool[at]
                at += 1
            cards.append(card)
        closed.append(tuple(cards))
    assert at == len(pool), "the view's closed piles do not match the unseen cards"
    current = view.current_seat
    if view.turned is not None:
        closed[current] = (view.turned, *closed[current])  # top first: flipped again below
    position = Position(tuple(closed), view.discards, view.central, current)
    state = start_position(view.rules, position)
    if view.turned is not None:
        state = state.apply(FLIP)
    return state


class Memory:
    """What a seat with a perfect memory knows of the closed piles' order.

    Nobody sees a closed pile, but one made by turning a discard pile over keeps that pile's
    order (its bottom card on top), which every player saw: public history. From the views of
    its own moves the bot remembers each discard pile. When some of a remembered pile's cards
    are face down now, the pile was turned over: those cards (a run of it: the ones below were
    flipped since, the ones above played before) are the top of the closed pile, and the cards
    under them, if any, were put onto the discard pile by others before it was turned over
    (unknown); `turnover_piles` lists the ways it can have happened, and a pile is claimed
    only if one fits. A known pile loses its top card with each flip; it is forgotten when the
    view contradicts it (a call's penalty, say), and so are two piles that claim the same card.
    """

    def __init__(self, players: int) -> None:
        self.players = players
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new game)."""
        self.move_count = -1
        self.piles: list[Pile | None] = [None] * self.players
        self.discards: tuple[tuple[Card, ...], ...] = ((),) * self.players
        self.sizes: tuple[int, ...] = (0,) * self.players

    def update(self, view: View) -> None:
        """Take in a view of the bot's own move."""
        if view.move_count < self.move_count:
            self.reset()
        if view.move_count == self.move_count:
            return
        if self.move_count >= 0:
            hidden = Counter(unseen(view))
            piles = [self._follow(seat, view, hidden) for seat in range(self.players)]
            claimed = Counter(c for pile in piles if pile for c in pile if c is not None)
            clash = {c for c, n in claimed.items() if n > hidden[c]}
            self.piles = [None if p and clash.intersection(p) else p for p in piles]
        self.move_count = view.move_count
        self.discards, self.sizes = view.discards, view.closed_sizes

    def _follow(self, seat: int, view: View, hidden: Counter[Card]) -> Pile | None:
        """`seat`'s closed pile, from the pile known before or the discard pile turned over
        (`turnover_piles`), if only one fits. Every turn of another seat flips at least one
        card, the last onto its discard pile; this bot's own pile changes only by its moves,
        all seen. Cards others put on a pile before it was turned over are unknown, unless
        nobody moved between this bot's last look and the owner's turn (the owner is this bot
        or the next seat). With two decks a face-down card may be the other copy of one seen:
        the cards are counted."""
        if view.closed_sizes[seat] == 0:
            return ()
        size, before = view.closed_sizes[seat], self.sizes[seat]
        pile, old, now = self.piles[seat], self.discards[seat], view.discards[seat]
        me = view.seat if view.seat is not None else -1
        if seat == me:  # one move since the last look (a flip), or none (a new turn)
            if before:
                return pile[before - size :] if pile is not None and size <= before else None
            fits = turnover_piles(old, now, size, hidden, view.rules.decks, False, True, False)
            return next(iter(fits)) if len(fits) == 1 else None
        if view.move_count == self.move_count + 1:  # only this bot moved since
            return pile if size == before else None
        flips = before - size
        kept = len(old) >= 2 and now[:2] == old[:2]  # not turned over (or a coincidence)
        fits = set[Pile]()
        if flips >= 1 and pile is not None:
            rest = pile[flips:]
            last = pile[flips - 1]  # the card that ended the owner's turn, under others' cards
            ended = last is None or any(c == last and _run(now[i:]) for i, c in enumerate(now))
            if _within(rest, hidden) and ended:
                fits.add(rest)
        # a turnover: every card of the pile before was flipped and went face up (when the
        # pile was not known, that many cards in a row make a turnover the less likely way)
        flipped = Counter(c for c in pile or () if c is not None)
        if (
            not kept
            and (pile is not None or before <= MAX_RUN)
            and all(view.rules.decks - hidden[c] >= n for c, n in flipped.items())
        ):
            tail = seat != (me + 1) % self.players
            two = self.players == 2
            fits |= turnover_piles(old, now, size, hidden, view.rules.decks, tail, False, two)
        return next(iter(fits)) if len(fits) == 1 else None

    def known(self, view: View) -> list[Pile | None]:
        """Each seat's closed pile, top first, where it is known (None where it is not)."""
        out: list[Pile | None] = []
        for seat, pile in enumerate(self.piles):
            if (
                pile is None
                or len(pile) != view.closed_sizes[seat]
                or (pile and pile.count(None) == len(pile))
            ):
                pile = None
            out.append(pile)
        return out


def turnover_piles(
    old: Sequence[Card],
    now: Sequence[Card],
    size: int,
    hidden: Counter[Card],
    decks: int,
    tail: bool,
    moving: bool,
    stay_up: bool,
) -> set[Pile]:
    """The closed piles, top first, that the discard pile `old` (bottom first, as last seen)
    may have been turned into (two at most: the search stops at the second); `now` is that
    discard pile now. Cards are counted (`hidden`: face down now, `decks` copies of each), as
    with two decks a card face down may be the other copy of one seen.

    In its turn the owner plays cards off the top of the discard pile, flips the rest of its
    closed pile and turns the discard pile over; the turned-over pile is then `old[:b]`
    and, when `tail` (seats moved between the last look and the owner's turn), `u` cards
    others put on it since (unknown; only if all of `old` is still there: `b = len(old)`;
    at most `MAX_TAIL`, as a pile could otherwise have been flipped from without a turnover).
    It flips `a` of them (at least the one the turnover turned up): the cards above `a` are
    the closed pile now. The turn then ends with the last one onto the emptied discard pile,
    so it is the bottom of `now` (a `moving` owner, still in its turn, may not have ended it),
    under cards others put on it (`_run`), and the others went face up elsewhere. So: each
    of `old[a:b]` is face down now, and the cards seen face up (`now`, and when they
    `stay_up`, `old[:a-1]` and `old[b:]` played elsewhere: with two players, onto this bot's
    pile or the central one) have copies face up."""
    ways: set[Pile] = set()
    for b in range(1, len(old) + 1):
        for a in range(1, b + 1):
            u = size - (b - a)
            if u < 0 or (u and not (tail and b == len(old) and u <= MAX_TAIL)):
                continue
            if now and (now[0] != old[a - 1] or not _run(now)):
                continue
            if not now and not moving:
                continue
            down = Counter(old[a:b])
            up = Counter(now)
            if not now:
                up[old[a - 1]] += 1
            if stay_up:
                up += Counter(old[: a - 1])
                if not u:
                    up += Counter(old[b:])
            if all(hidden[c] >= n for c, n in down.items()) and all(
                decks - hidden[c] >= n for c, n in up.items()
            ):
                ways.add((*old[a:b], *(None,) * u))
                if len(ways) > 1:
                    return ways
    return ways


def _run(cards: Sequence[Card]) -> bool:
    """Whether each card follows the one before: cards others put on a discard pile."""
    return all(follows(top, card) for top, card in pairwise(cards))


def _within(cards: Sequence[Card | None], hidden: Counter[Card]) -> bool:
    """Whether the known `cards` could all be face down (as a multiset of the hidden cards)."""
    need = Counter(c for c in cards if c is not None)
    return all(hidden[c] >= n for c, n in need.items())


def loader_move(state: GameState) -> Move:
    """`loader`'s choice on a state: in order, onto the pile of the seat holding fewest."""
    moves = state.in_order_moves()
    best = moves[0]
    best_cost = (2, 0)
    for move in moves:
        seat = move.target_seat
        cost = (0, state.held(seat)) if seat is not None else (1, 0)
        if cost < best_cost:
            best, best_cost = move, cost
    return best


def playout(
    state: GameState, until_turn: int = 0, deadline: Deadline | None = None
) -> GameState | None:
    """Play with `loader`'s policy for every seat to the end, or until turn `until_turn`
    starts (0: no limit), or `MAX_PLAYOUT` moves; None if `deadline` passes first."""
    for done in range(MAX_PLAYOUT):
        if state.is_over or (until_turn and state.turn >= until_turn):
            break
        if deadline is not None and done % 32 == 31 and deadline.passed():
            return None
        state = state.apply(loader_move(state))
    return state


def best_line(state: GameState, seat: int, depth: int, deadline: Deadline | None) -> float | None:
    """The seat's best score from `state` when it chooses at its next `depth` choice points
    (every way) and `loader`'s policy plays the rest; None if `deadline` passes first."""
    for done in range(MAX_PLAYOUT):
        if state.is_over:
            break
        if deadline is not None and done % 32 == 31 and deadline.passed():
            return None
        moves = state.in_order_moves()
        if depth and len(moves) > 1 and state.current_seat == seat:
            best = 0.0
            for move in moves:
                result = best_line(state.apply(move), seat, depth - 1, deadline)
                if result is None:
                    return None
                best = max(best, result)
                if best >= 1.0:
                    break
            return best
        state = state.apply(loader_move(state))
    return score(state, seat, state.rules.players)


def score(state: GameState, seat: int, players: int) -> float:
    """The seat's result: its place as 1 for first and 0 for last, once the game is over;
    before that, the cards the others hold on average minus its own, over `WIN_CARDS`."""
    places = state.places()
    if places is None:
        held = [state.held(s) for s in range(players)]
        others = (sum(held) - held[seat]) / (players - 1)
        return 0.5 + (others - held[seat]) / WIN_CARDS
    return (players - places[seat]) / (players - 1)
