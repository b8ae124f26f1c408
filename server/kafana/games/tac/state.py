"""The game state of Tač: a pure function of (rules, seed or deck, moves so far).

A `GameState` never changes; `apply` returns the next one. The closed piles are hidden:
`view(seat)` and `public_view()` show only their sizes.

The turn, in moves (see docs/tac.md):

* At the start of a turn, and after every card the player places elsewhere than their own
  discard pile, the player is *between cards*. If the top of their own discard pile follows
  the central pile or another player's discard pile, they must play it (`play D->C`,
  `play D->P<k>`); else they `flip`, turning up the top of their closed pile (their discard
  pile is turned over first, unshuffled, when the closed pile is empty).
* With a card turned up, the player places it: `play X->C` or `play X->P<k>` when it fits
  there, else `play X->D`, onto their own discard pile, which ends the turn.
* The player chooses freely among the places a card fits (with `centre_first`, a card that
  fits the central pile must go there). A player holding no card is out.

With `tac_calls` an out-of-order `flip` or `play X->D` (and, with `centre_first`, a card
that fits the central pile put onto another discard pile) is accepted and leaves an open
*offence*: from then until the next player makes a move, any other seat may `call P<k>`.

Stalls: a turn in which no card went onto the central pile counts; a turn in which one did
sets the count to 0. When the count reaches `stall_rounds` x (players still in), the game is
drawn (RULES.md: "a set number of rounds passes with no card going onto the central pile").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from kafana.errors import IllegalMoveError, InvalidInputError, MatchOverError, NotYourTurnError
from kafana.games.cards import Card, parse_cards
from kafana.games.protocol import FORFEIT, OUT, STALLED, Outcome
from kafana.games.records import check_result, replay_moves
from kafana.games.seats import SeatedState
from kafana.games.tac.move import Move
from kafana.games.tac.position import Position
from kafana.games.tac.record import GameRecordText
from kafana.games.tac.rules import Rules
from kafana.games.tac.sequence import ACE, fits_centre, follows
from kafana.games.tac.shuffle import canonical_deck, check_seed, shuffled_deck
from kafana.games.tac.step import Step
from kafana.games.tac.view import View

FLIP = Move.flip()


@dataclass(frozen=True)
class GameSetup:
    """What is fixed for a whole game: the rules and the deck (from a seed or given)."""

    rules: Rules
    seed: int | None
    deck: tuple[Card, ...]
    explicit: bool  # the deck was given, not shuffled from the seed
    position: Position | None = None  # set up from a position instead of a deal


class GameState(SeatedState[Rules, View]):
    """One position of a game of Tač. Immutable: `apply` returns a new state.

    It implements `kafana.games.protocol.GameState`: any seat may act (a call).
    """

    __slots__ = (
        "_central",
        "_closed",
        "_current",
        "_discard",
        "_fed",
        "_log",
        "_out",
        "_pending",
        "_setup",
        "_stall",
        "_stalled",
        "_turned",
        "move_count",
        "turn",
    )

    _setup: GameSetup
    _closed: tuple[tuple[Card, ...], ...]  # per seat, bottom first (the top is the last card)
    _discard: tuple[tuple[Card, ...], ...]  # per seat, bottom first (the top is the last card)
    _central: tuple[Card, ...]  # bottom first
    _turned: Card | None  # the card the player to move has turned up
    _current: int | None
    _out: tuple[int, ...]  # seats in the order they went out
    _pending: int | None  # the seat whose out-of-order move may still be called
    _stall: int  # whole turns in a row in which no card went onto the central pile
    _fed: bool  # a card went onto the central pile in the turn being played
    _stalled: bool
    _log: tuple[Step, object] | None
    move_count: int
    turn: int  # turns started so far (the first turn is 1)

    # -- read-only properties -----------------------------------------------------------

    @property
    def setup(self) -> GameSetup:
        """Rules, seed and deck (the deck is hidden information)."""
        return self._setup

    @property
    def central(self) -> tuple[Card, ...]:
        """The central pile, bottom first (public: every card was placed face up)."""
        return self._central

    @property
    def turned(self) -> Card | None:
        """The card the player to move has turned up and must place, if any."""
        return self._turned

    @property
    def pending_offender(self) -> int | None:
        """The seat whose out-of-order move may be called right now (`tac_calls` only)."""
        return self._pending

    @property
    def out_order(self) -> tuple[int, ...]:
        """Seats that are out, first out first."""
        return self._out

    @property
    def winner(self) -> int | None:
        """The first player out, once there is one."""
        return self._out[0] if self._out else None

    @property
    def stalled(self) -> bool:
        """True when the game ended drawn by `stall_rounds` (no card onto the central pile)."""
        return self._stalled

    @property
    def stall_turns(self) -> int:
        """Whole turns in a row, up to the last one ended, with no card onto the central pile
        (0 after a turn in which one went there)."""
        return self._stall

    @property
    def stall_limit(self) -> int:
        """Turns without a central card that end the game: stall_rounds x players still in."""
        return self._setup.rules.stall_rounds * self.players_in

    @property
    def players_in(self) -> int:
        """Players not out yet."""
        return self._setup.rules.players - len(self._out)

    @property
    def phase(self) -> str:
        """`"place"` with a card turned up, `"over"` at the end, else `"draw"`."""
        if self._current is None:
            return "over"
        return "draw" if self._turned is None else "place"

    def closed(self, seat: int) -> tuple[Card, ...]:
        """A seat's closed pile, top first (omniscient: no view shows it)."""
        return self._closed[self._seat(seat)][::-1]

    def closed_size(self, seat: int) -> int:
        """Cards in a seat's closed pile."""
        return len(self._closed[self._seat(seat)])

    def discard(self, seat: int) -> tuple[Card, ...]:
        """A seat's discard pile, bottom first: the last card is the top."""
        return self._discard[self._seat(seat)]

    def held(self, seat: int) -> int:
        """Cards a seat still holds: closed and discard piles, and a turned-up card."""
        seat = self._seat(seat)
        turned = self._turned is not None and seat == self._current
        return len(self._closed[seat]) + len(self._discard[seat]) + turned

    def is_out(self, seat: int) -> bool:
        """Whether a seat has got rid of all its cards."""
        return self._seat(seat) in self._out

    def places(self) -> tuple[int, ...] | None:
        """Each seat's place (1 is best; tied seats share a place), once the game is over.

        Seats out are placed in the order they went out. The first player out ends the game
        unless `play_on`; the others are then ranked by cards held, fewer first. A stalled game
        is a draw: the seats still in share the next place.
        """
        if self._current is not None:
            return None
        n = self._setup.rules.players
        place = [0] * n
        for i, seat in enumerate(self._out):
            place[seat] = i + 1
        rest = [s for s in range(n) if s not in self._out]
        base = len(self._out) + 1
        for seat in rest:
            if self._stalled:
                place[seat] = base
            else:
                place[seat] = base + sum(self.held(o) < self.held(seat) for o in rest)
        return tuple(place)

    def steps(self) -> list[Step]:
        """Every move applied so far with what it showed, oldest first."""
        out: list[Step] = []
        node = self._log
        while node is not None:
            step, node = node  # type: ignore[assignment]
            out.append(step)
        out.reverse()
        return out

    @property
    def last_step(self) -> Step | None:
        """The most recent move, or None at the start."""
        return None if self._log is None else self._log[0]

    def moves(self) -> list[Move]:
        """Every move applied so far, oldest first."""
        return [step.move for step in self.steps()]

    # -- move generation ----------------------------------------------------------------

    def targets(self, card: Card) -> list[str]:
        """Where `card` of the player to move may go in order: "C" and/or "P<k>", in seat
        order (only "C" when it fits there and `centre_first` is on)."""
        places = self.places_for(card)
        if self._setup.rules.centre_first and places[:1] == ["C"]:
            return ["C"]
        return places

    def places_for(self, card: Card) -> list[str]:
        """Every pile `card` of the player to move follows: "C" and/or "P<k>", in seat order."""
        seat = self._current
        if seat is None:
            return []
        out = ["C"] if fits_centre(self._central, card) else []
        if self._central:
            n = self._setup.rules.players
            for k in range(1, n):
                other = (seat + k) % n
                pile = self._discard[other]
                if pile and follows(pile[-1], card):
                    out.append(f"P{other}")
        return out

    def _own_moves(self, in_order_only: bool) -> list[Move]:
        seat = self._current
        if seat is None:
            return []
        lax = self._setup.rules.tac_calls and not in_order_only
        where = self.places_for if lax else self.targets
        turned = self._turned
        if turned is not None:
            targets = where(turned)
            moves = [Move("play", "X", t) for t in targets]
            if lax or not targets:
                moves.append(Move("play", "X", "D"))
            return moves
        own = self._discard[seat]
        targets = where(own[-1]) if own else []
        moves = [Move("play", "D", t) for t in targets]
        if lax or not targets:
            moves.append(FLIP)
        return moves

    def _callers(self) -> list[int]:
        if self._pending is None or self._current is None:
            return []
        return [s for s in range(self._setup.rules.players) if s != self._pending]

    def legal_moves(self) -> list[Move]:
        """Every action the rules accept now: the seat to move's moves, then every call."""
        return self._own_moves(False) + [Move.call(s) for s in self._callers()]

    def legal_moves_for(self, seat: int) -> list[Move]:
        """The actions `seat` may take now (its own moves if it is to move, and a call)."""
        seat = self._seat(seat)
        moves = self._own_moves(False) if seat == self._current else []
        return moves + [Move.call(s) for s in self._callers() if s == seat]

    def in_order_moves(self) -> list[Move]:
        """The seat to move's moves that keep the mandatory order (all of them when strict)."""
        return self._own_moves(True)

    def default_move(self) -> Move:
        """The clock's move: the first that keeps the order (a clock commits no offence)."""
        if self._current is None:
            raise MatchOverError("the game is over: no more moves")
        return self._own_moves(True)[0]

    def actor(self, move: Move) -> int | None:
        """The seat making `move`: the caller of a call, else the seat to move."""
        return move.caller if move.kind == "call" else self._current

    def is_legal(self, move: Move | str) -> bool:
        """Whether `move` would be accepted now (checked independently of `legal_moves`)."""
        try:
            move = Move.parse(move) if isinstance(move, str) else move
            return self._refusal(move) is None
        except (InvalidInputError, MatchOverError):
            return False

    def _out_of_order(self, move: Move) -> bool:
        """Whether an accepted move breaks the mandatory order (only possible with tac_calls)."""
        seat = self._current
        assert seat is not None
        if move.kind == "flip":
            own = self._discard[seat]
            return bool(own) and bool(self.targets(own[-1]))
        card = self._turned if move.source == "X" else self._discard[seat][-1]
        assert card is not None
        if move.target == "D":
            return bool(self.targets(card))
        # onto another discard pile while the centre takes the card (`centre_first`)
        return move.target != "C" and self.targets(card) == ["C"]

    def _refusal(self, move: Move) -> str | None:
        """Why `move` is refused now, or None when it is accepted."""
        seat = self._current
        if seat is None:
            raise MatchOverError("the game is over: no more moves")
        if not isinstance(move, Move):
            raise InvalidInputError(f"expected a Tač Move, got {move!r}")
        rules = self._setup.rules
        n = rules.players
        if move.kind == "call":
            caller = move.caller
            assert caller is not None
            if caller >= n:
                raise InvalidInputError(f"no seat {caller} at a {n}-player table")
            if not rules.tac_calls:
                return "this table enforces the order: there are no Tač calls (tac_calls is off)"
            if self._pending is None:
                last = self.last_step
                if last is None:
                    return "wrong call: nobody has moved yet"
                return f"wrong call: P{last.seat}'s move {last.move} kept the order"
            if caller == self._pending:
                return f"P{caller} cannot call Tač on their own move"
            return None
        other = move.target_seat
        if other is not None and other >= n:
            raise InvalidInputError(f"no seat {other} at a {n}-player table")
        turned = self._turned
        if move.kind == "flip":
            if turned is not None:
                return f"place the turned-up {turned} first"
            if not rules.tac_calls and self._out_of_order(move):
                top = self._discard[seat][-1]
                where = " or ".join(self.targets(top))
                return (
                    f"out of order: the top of your discard pile, {top}, must be played "
                    f"first (it fits on {where})"
                )
            return None
        if move.source == "X":
            if turned is None:
                return "no card is turned up: flip first"
            card = turned
        else:
            if turned is not None:
                return f"place the turned-up {turned} first"
            own = self._discard[seat]
            if not own:
                return "your discard pile is empty"
            card = own[-1]
        target = move.target
        if target == "D":
            if not rules.tac_calls and self._out_of_order(move):
                places = self.targets(card)
                choose = " (you choose which)" if len(places) > 1 else ""
                return f"out of order: {card} must go onto {' or '.join(places)}{choose}"
            return None
        if target == "C":
            if fits_centre(self._central, card):
                return None
            if not self._central:
                return f"{card} cannot start the central pile: it starts with an ace"
            return f"{card} does not follow {self._central[-1]} on the central pile"
        assert other is not None
        if other == seat:
            return f"P{seat} is your own discard pile: write D (a turned-up card only)"
        pile = self._discard[other]
        if not self._central:
            return "no card may go onto a discard pile before the central pile is started"
        if not pile:
            return f"P{other}'s discard pile is empty"
        if not follows(pile[-1], card):
            return f"{card} does not follow {pile[-1]} on top of P{other}'s discard pile"
        if not rules.tac_calls and self._out_of_order(move):
            return f"out of order: {card} must go onto C, the central pile (centre_first)"
        return None

    # -- applying moves -----------------------------------------------------------------

    def apply(self, move: Move | str, seat: int | None = None) -> GameState:
        """The state after `move` (a Move or its text), made by `seat` if given.

        Raises MatchOverError, NotYourTurnError (a `seat` that may not make this move),
        InvalidInputError (malformed) or IllegalMoveError (refused, with the reason).
        """
        if self._current is None:
            raise MatchOverError("the game is over: no more moves")
        if isinstance(move, str):
            move = Move.parse(move)
        if seat is not None:
            self._seat(seat)
            actor = self.actor(move)
            if seat != actor:
                if move.kind == "call":
                    raise NotYourTurnError(f"seat {seat} cannot make P{actor}'s call")
                raise NotYourTurnError(f"it is seat {self._current}'s turn, not seat {seat}'s")
        reason = self._refusal(move)
        if reason is not None:
            raise IllegalMoveError(f"{move}: {reason}")
        nxt = self._copy()
        nxt.move_count = self.move_count + 1
        step = nxt._call(move) if move.kind == "call" else nxt._play(move)
        nxt._log = (step, self._log)
        return nxt

    def _copy(self) -> GameState:
        nxt = object.__new__(GameState)
        for name in GameState.__slots__:
            object.__setattr__(nxt, name, getattr(self, name))
        return nxt

    def _play(self, move: Move) -> Step:
        seat = self._current
        assert seat is not None
        offence = self._out_of_order(move)
        if self._pending is not None and self._pending != seat:
            self._pending = None  # the next player acted: the window for a call has closed
        if offence:
            self._pending = seat
        if move.kind == "flip":
            closed = list(self._closed)
            discard = list(self._discard)
            turned_over = not closed[seat]
            if turned_over:
                closed[seat] = discard[seat][::-1]
                discard[seat] = ()
                self._discard = tuple(discard)
            card = closed[seat][-1]
            closed[seat] = closed[seat][:-1]
            self._closed = tuple(closed)
            self._turned = card
            return Step(seat, move, card, turned_over=turned_over, offence=offence)
        if move.source == "X":
            assert self._turned is not None
            card = self._turned
            self._turned = None
        else:
            discard = list(self._discard)
            card = discard[seat][-1]
            discard[seat] = discard[seat][:-1]
            self._discard = tuple(discard)
        step = Step(seat, move, card, offence=offence)
        if move.target == "C":
            self._central = (*self._central, card)
            self._stall = 0
            self._fed = True
        else:
            dest = seat if move.target == "D" else move.target_seat
            assert dest is not None
            discard = list(self._discard)
            discard[dest] = (*discard[dest], card)
            self._discard = tuple(discard)
        if move.target == "D":
            self._end_turn()
        elif not self._closed[seat] and not self._discard[seat]:
            self._go_out(seat)
        return step

    def _call(self, move: Move) -> Step:
        offender = self._pending
        assert offender is not None and move.caller is not None
        n = self._setup.rules.players
        closed = list(self._closed)
        given = 0
        for k in range(1, n):
            other = (offender + k) % n
            # a player's last card is never taken: one goes out only by playing it
            if closed[other] and self.held(other) >= 2:
                closed[offender] = (closed[other][0], *closed[offender])
                closed[other] = closed[other][1:]
                given += 1
        self._closed = tuple(closed)
        self._pending = None
        if self._current == offender:
            if self._turned is not None:
                discard = list(self._discard)
                discard[offender] = (*discard[offender], self._turned)
                self._discard = tuple(discard)
                self._turned = None
            self._end_turn()
        return Step(move.caller, move, penalty=given)

    def _next_seat(self, seat: int) -> int:
        n = self._setup.rules.players
        for k in range(1, n + 1):
            other = (seat + k) % n
            if other not in self._out:
                return other
        return seat

    def _end_turn(self) -> None:
        seat = self._current
        assert seat is not None
        if not self._stalls():
            self._current = self._next_seat(seat)
            self.turn += 1

    def _stalls(self) -> bool:
        """Count the turn just ended; True (and the game over, drawn) at the stall limit."""
        if self._fed:
            self._fed = False
        else:
            self._stall += 1
        if self._stall >= self.stall_limit:
            self._stalled = True
            self._finish()
            return True
        return False

    def _go_out(self, seat: int) -> None:
        self._out = (*self._out, seat)
        if self._pending == seat:
            self._pending = None
        if not self._setup.rules.play_on or self.players_in <= 1:
            self._finish()
            return
        if not self._stalls():
            self._current = self._next_seat(seat)
            self.turn += 1

    def _finish(self) -> None:
        self._current = None
        self._pending = None
        self._turned = None

    # -- checks, views and records ------------------------------------------------------

    def all_cards(self) -> Counter[Card]:
        """Every card on the table by count (omniscient; for conservation checks)."""
        count: Counter[Card] = Counter(self._central)
        for pile in (*self._closed, *self._discard):
            count.update(pile)
        if self._turned is not None:
            count[self._turned] += 1
        return count

    def outcome(self, forfeit: int | None = None) -> Outcome | None:
        """Places per seat once over; with `forfeit`, the first out or the fewest held wins."""
        if forfeit is not None:
            self._seat(forfeit)
            if self._out:
                return Outcome(FORFEIT, self._out[0], (), self.places() or ())
            others = [s for s in range(self._setup.rules.players) if s != forfeit]
            return Outcome(FORFEIT, min(others, key=lambda s: (self.held(s), s)))
        places = self.places()
        if places is None:
            return None
        return Outcome(STALLED if self._stalled else OUT, self.winner, (), places)

    def _view(self, seat: int | None) -> View:
        """Every face-up card and the sizes of the closed piles: the same for a seat and a
        spectator (nobody sees a closed pile)."""
        return View(
            rules=self._setup.rules,
            seat=seat,
            current_seat=self._current,
            phase=self.phase,
            central=self._central,
            discards=self._discard,
            closed_sizes=tuple(map(len, self._closed)),
            turned=self._turned,
            pending_offender=self._pending,
            out_order=self._out,
            places=self.places(),
            stalled=self._stalled,
            move_count=self.move_count,
            turn=self.turn,
            stall_turns=self._stall,
            last_step=self.last_step,
            is_over=self._current is None,
        )

    def record(self) -> GameRecord:
        """The replayable record of the game so far."""
        setup = self._setup
        return GameRecord(
            rules=setup.rules,
            seed=setup.seed if not setup.explicit else None,
            deck=setup.deck if setup.explicit else None,
            position=setup.position,
            moves=tuple(self.moves()),
            places=self.places(),
        )

    def __repr__(self) -> str:
        return (
            f"<tac.GameState move={self.move_count} turn={self.turn} seat={self._current} "
            f"phase={self.phase} held={[self.held(s) for s in range(self.rules.players)]}>"
        )


class GameRecord(GameRecordText):
    """A Tač record (`GameRecordText`) that replays into the state it records."""

    def replay(self) -> GameState:
        """Play every move from the start; raises if a move is refused or the places differ."""
        if self.position is not None:
            start = start_position(self.rules, self.position)
        else:
            start = new_game(self.rules, seed=self.seed, deck=self.deck)
        state = replay_moves(start, self.moves)
        check_result("places", self.places, state.places())
        return state


def check_deck(cards: tuple[Card, ...], decks: int) -> None:
    """Raise InvalidInputError unless `cards` is exactly `decks` full decks."""
    if len(cards) != 52 * decks:
        raise InvalidInputError(f"the deck has {len(cards)} cards, not {52 * decks}")
    counts = Counter(cards)
    for card in canonical_deck(1):
        if counts[card] != decks:
            raise InvalidInputError(
                f"{card} appears {counts[card]} time(s) in the deck, not {decks}"
            )


def new_game(
    rules: Rules,
    seed: int | None = None,
    deck: Iterable[Card | str] | str | None = None,
) -> GameState:
    """Start a game from a seed (`shuffled_deck(seed, rules.decks)`) or an explicit deck.

    The deal: with 3 players on one deck, the first ace in deck order starts the central
    pile. The other cards are dealt one at a time, seat 0 first; the first card a seat
    receives is the top of its closed pile. Seat 0 moves first.
    """
    if not isinstance(rules, Rules):
        raise InvalidInputError(f"expected tac.Rules, got {rules!r}")
    if deck is None:
        if seed is None:
            raise InvalidInputError("a game needs a seed or a deck")
        cards = shuffled_deck(check_seed(seed), rules.decks)
    else:
        if seed is not None:
            check_seed(seed)
        cards = parse_cards(deck)
        check_deck(cards, rules.decks)
    setup = GameSetup(rules=rules, seed=seed, deck=cards, explicit=deck is not None)
    rest = list(cards)
    central: tuple[Card, ...] = ()
    if rules.extra_cards:
        ace = next(c for c in rest if c.rank == ACE)
        rest.remove(ace)
        central = (ace,)
    n = rules.players
    closed = tuple(tuple(rest[seat::n]) for seat in range(n))
    return _start(setup, closed, tuple(() for _ in range(n)), central, 0)


def start_position(rules: Rules, position: Position) -> GameState:
    """Start a game from a chosen position instead of a deal (see `Position`)."""
    if not isinstance(rules, Rules):
        raise InvalidInputError(f"expected tac.Rules, got {rules!r}")
    position.check(rules)
    setup = GameSetup(rules=rules, seed=None, deck=(), explicit=False, position=position)
    return _start(setup, position.closed, position.discards, position.central, position.current)


def _start(
    setup: GameSetup,
    closed_top_first: tuple[tuple[Card, ...], ...],
    discards: tuple[tuple[Card, ...], ...],
    central: tuple[Card, ...],
    current: int,
) -> GameState:
    state = object.__new__(GameState)
    state._setup = setup
    state._closed = tuple(pile[::-1] for pile in closed_top_first)
    state._discard = discards
    state._central = central
    state._turned = None
    state._current = current
    state._out = ()
    state._pending = None
    state._stall = 0
    state._fed = False
    state._stalled = False
    state._log = None
    state.move_count = 0
    state.turn = 1
    return state
