"""A tournament as pure logic: it hands out rounds of games and takes back their results.

Runners (`local_runner`, `server_runner`) play the games; the tournament never does I/O.
Round robin and Swiss pair entrants; a duplicate event plays every board (a fixed list of
decks) once in each seating for every pairing, so the luck of the deal cancels out.

>>> config = EventConfig("demo", Kind.SWISS, ("a", "b", "c", "d"))
>>> t = Tournament(config)
>>> [g.seats for g in t.next_round()]
[('a', 'b'), ('c', 'd')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from kafana.competitions import pairing
from kafana.competitions.fairness import chosen_secret, commitment, deal_seed, new_secret
from kafana.competitions.model import Bye, Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.ratings import RatingBook, variant_name
from kafana.competitions.standings import Outcome, Standing, standings
from kafana.errors import InvalidInputError, KafanaError
from kafana.games.tablic import Rules, shuffled_deck


class Kind(StrEnum):
    """The format of an event."""

    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    DUPLICATE = "duplicate"


class Status(StrEnum):
    """Where an event stands; organisers pause, resume and end it."""

    RUNNING = "running"
    PAUSED = "paused"
    ENDED = "ended"


class EventError(KafanaError):
    """An organiser action the event's state does not allow."""


@dataclass(frozen=True)
class EventConfig:
    """Everything fixed when an event is announced. Entrants are unique names."""

    name: str
    kind: Kind
    entrants: tuple[str, ...]
    rounds: int = 0  # Swiss: 0 means ceil(log2(entrants)); round robin: always n-1 (or n)
    boards: int = 2  # duplicate: boards per pairing
    hands_per_board: int = 8  # duplicate: explicit decks per board (then the board's seed)
    preset: str = "serbian"
    target: int = 0  # 0: the preset's target
    chosen_seed: int | None = None  # None: every game's secret is fresh from the OS (see `chosen`)
    policy: FaultPolicy = field(default_factory=FaultPolicy)

    def __post_init__(self) -> None:
        if len(set(self.entrants)) != len(self.entrants) or len(self.entrants) < 2:
            raise InvalidInputError("an event needs two or more entrants with distinct names")
        if any(not e or " " in e for e in self.entrants):
            raise InvalidInputError("entrant names are non-empty and have no spaces")

    @property
    def chosen(self) -> bool:
        """True when the organiser chose the event seed: deals predictable by whoever knows it."""
        return self.chosen_seed is not None

    @property
    def rules(self) -> Rules:
        """The rules of every game (two players)."""
        rules = Rules.preset(self.preset, players=2)
        return rules.with_switches(target=self.target) if self.target else rules

    @property
    def pool(self) -> str:
        """The ratings pool of this event's games."""
        return "tablic/" + variant_name(self.preset, 2)


class Tournament:
    """Rounds, results, standings and ratings of one event; organiser controls."""

    def __init__(self, config: EventConfig, ratings: RatingBook | None = None) -> None:
        self.config = config
        self.status = Status.RUNNING
        self.rounds: list[list[GameSpec]] = []
        self.byes: list[Bye] = []
        self.results: dict[str, GameResult] = {}
        self.ratings = ratings if ratings is not None else RatingBook()
        self._secrets: dict[str, str] = {}
        self._schedule = (
            pairing.round_robin(config.entrants) if config.kind is not Kind.SWISS else []
        )

    # -- the schedule ---------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """How many rounds the event has."""
        if self.config.kind is Kind.SWISS:
            n = len(self.config.entrants)
            return self.config.rounds or max(1, math.ceil(math.log2(n)))
        return len(self._schedule)

    @property
    def finished(self) -> bool:
        """True once ended, or every round is out and decided."""
        if self.status is Status.ENDED:
            return True
        return len(self.rounds) == self.total_rounds and not self.pending()

    def pending(self) -> list[GameSpec]:
        """Games handed out without a result yet."""
        return [g for r in self.rounds for g in r if g.game_id not in self.results]

    def secret_of(self, game_id: str) -> str:
        """A game's secret (revealed in its record once every game sharing its deals is over)."""
        return self._secrets[game_id]

    def seed_of(self, game_id: str) -> int:
        """The seed a game's table deals from: `deal_seed(secret_of(game_id))`."""
        return deal_seed(self._secrets[game_id])

    def secrets(self) -> dict[str, str]:
        """Every secret handed out so far (label -> secret), to keep the event elsewhere."""
        return dict(self._secrets)

    def restore_secrets(self, secrets: dict[str, str]) -> None:
        """Take back the secrets of `secrets()` (an event resumed from a snapshot)."""
        self._secrets = dict(secrets)

    def game(self, game_id: str) -> GameSpec:
        """A game handed out earlier."""
        for r in self.rounds:
            for g in r:
                if g.game_id == game_id:
                    return g
        raise InvalidInputError(f"no game {game_id!r} in event {self.config.name!r}")

    def next_round(self) -> list[GameSpec]:
        """The next round's games; refused while paused, ended, or a game is undecided."""
        if self.status is not Status.RUNNING:
            raise EventError(f"event {self.config.name!r} is {self.status.value}")
        if self.pending():
            raise EventError("the current round still has games without a result")
        if len(self.rounds) >= self.total_rounds:
            raise EventError("every round has been played")
        number = len(self.rounds) + 1
        if self.config.kind is Kind.SWISS:
            pairs = self._swiss_pairs(number)
        else:
            pairs = self._schedule[number - 1]
            paired = {e for pair in pairs for e in pair}
            self.byes += [Bye(number, e) for e in self.config.entrants if e not in paired]
        games = (
            self._duplicate_games(number, pairs)
            if self.config.kind is Kind.DUPLICATE
            else [self._game(f"r{number}-g{i + 1}", number, pair) for i, pair in enumerate(pairs)]
        )
        self.rounds.append(games)
        return games

    def _swiss_pairs(self, number: int) -> list[pairing.Pair]:
        played = {frozenset(g.seats) for r in self.rounds for g in r}
        balance: dict[str, int] = {}
        for r in self.rounds:
            for g in r:
                balance[g.seats[0]] = balance.get(g.seats[0], 0) + 1
                balance[g.seats[1]] = balance.get(g.seats[1], 0) - 1
        ranked = [row.entrant for row in self.standings()] if self.rounds else None
        order = ranked or list(self.config.entrants)
        pairs, bye = pairing.swiss(
            order, played=played, balance=balance, byes={b.entrant for b in self.byes}
        )
        if bye is not None:
            self.byes.append(Bye(number, bye))
        return pairs

    def _secret(self, label: str) -> str:
        seed = self.config.chosen_seed
        return chosen_secret(seed, label) if seed is not None else new_secret()

    def _game(self, game_id: str, number: int, seats: tuple[str, ...]) -> GameSpec:
        secret = self._secrets[game_id] = self._secret(game_id)
        return GameSpec(game_id, number, seats, commitment(secret))

    def _duplicate_games(self, number: int, pairs: list[pairing.Pair]) -> list[GameSpec]:
        games = []
        for b in range(self.config.boards):
            label = f"board-{b + 1}"  # one secret per board for the whole event
            if label not in self._secrets:
                self._secrets[label] = self._secret(label)
            secret = self._secrets[label]
            seed = deal_seed(secret)
            decks = tuple(shuffled_deck(seed, k) for k in range(self.config.hands_per_board))
            for i, (x, y) in enumerate(pairs):
                for s, seats in enumerate(((x, y), (y, x))):
                    game_id = f"r{number}-g{i + 1}-b{b + 1}-s{s + 1}"
                    self._secrets[game_id] = secret
                    games.append(GameSpec(game_id, number, seats, commitment(secret), b + 1, decks))
        return games

    # -- results and organiser actions ------------------------------------------------------

    def record(self, result: GameResult) -> None:
        """Take a game's result (once) and rate it."""
        spec = self.game(result.game_id)
        if result.game_id in self.results:
            raise EventError(f"game {result.game_id!r} already has a result")
        self.results[result.game_id] = result
        if result.ending is not Ending.NOT_PLAYED:
            self.ratings.rate(
                self.config.pool,
                [[name] for name in spec.seats],
                [result.match_points(seat) for seat in range(len(spec.seats))],
            )

    def pause(self) -> None:
        """Stop handing out games (games already running finish)."""
        if self.status is Status.ENDED:
            raise EventError("the event has ended")
        self.status = Status.PAUSED

    def resume(self) -> None:
        """Hand out games again."""
        if self.status is not Status.PAUSED:
            raise EventError(f"the event is {self.status.value}, not paused")
        self.status = Status.RUNNING

    def adjudicate(self, game_id: str, winner: int | None, note: str = "") -> GameResult:
        """Decide a game without playing it on (winner seat, None for a draw)."""
        spec = self.game(game_id)
        faults: tuple[Fault, ...] = ()
        if winner is not None:
            loser = 1 - winner
            faults = (Fault(loser, Reason.ADJUDICATED, Action.FORFEIT_MATCH, 0, note),)
        result = GameResult(
            game_id, (0,) * len(spec.seats), winner, Ending.ADJUDICATED, faults, note=note
        )
        self.record(result)
        return result

    def end(self, note: str = "") -> list[GameResult]:
        """End the event now: undecided games are recorded as not played."""
        ended = []
        for spec in self.pending():
            result = GameResult(
                spec.game_id,
                (0,) * len(spec.seats),
                None,
                Ending.NOT_PLAYED,
                tuple(
                    Fault(s, Reason.EVENT_ENDED, Action.FORFEIT_MATCH, 0, note)
                    for s in range(len(spec.seats))
                ),
                note=note,
            )
            self.results[spec.game_id] = result
            ended.append(result)
        self.status = Status.ENDED
        return ended

    # -- standings --------------------------------------------------------------------------

    def outcomes(self) -> list[Outcome]:
        """Every decided pairing (a duplicate board counts once, both seatings together)."""
        if self.config.kind is Kind.DUPLICATE:
            return self._board_outcomes()
        out = []
        for r in self.rounds:
            for g in r:
                res = self.results.get(g.game_id)
                if res is None or res.ending is Ending.NOT_PLAYED:
                    continue
                out.append(
                    Outcome(
                        g.seats[0], g.seats[1], res.match_points(0), res.scores[0] - res.scores[1]
                    )
                )
        return out

    def _board_outcomes(self) -> list[Outcome]:
        out = []
        for r in self.rounds:
            for first, second in zip(r[::2], r[1::2], strict=True):
                a, b = first.seats
                one, two = self.results.get(first.game_id), self.results.get(second.game_id)
                if one is None or two is None or Ending.NOT_PLAYED in (one.ending, two.ending):
                    continue
                diff = (one.scores[0] + two.scores[1]) - (one.scores[1] + two.scores[0])
                if one.ending is Ending.SCORE and two.ending is Ending.SCORE:
                    edge = diff
                else:  # a forfeit or adjudication: count games won instead of points
                    edge = round(2 * (one.match_points(0) + two.match_points(1))) - 2
                points = 1.0 if edge > 0 else 0.0 if edge < 0 else 0.5
                out.append(Outcome(a, b, points, diff))
        return out

    def standings(self) -> list[Standing]:
        """The current table."""
        byes: dict[str, int] = {}
        for bye in self.byes if self.config.kind is Kind.SWISS else ():  # scored in Swiss only
            byes[bye.entrant] = byes.get(bye.entrant, 0) + 1
        return standings(self.config.entrants, self.outcomes(), byes)
