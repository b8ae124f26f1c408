"""A tournament as pure logic: it hands out rounds of games and takes back their results.

Runners (`local_runner`, `server_runner`, the hosted director) play the games; the tournament
never does I/O. Round robin and Swiss seat entrants at tables of 2, 3 or 4 (or 2 against 2);
a duplicate event plays every board (a fixed deal) at every table once in each rotation of
its seats, so the luck of the deal cancels out. Standings are by placement
(`kafana.competitions.standings`); ratings rate every side of a game (openskill).

>>> config = EventConfig("demo", Kind.SWISS, ("a", "b", "c", "d"))
>>> t = Tournament(config)
>>> [g.seats for g in t.next_round()]
[('a', 'c'), ('b', 'd')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from kafana.competitions import pairing
from kafana.competitions.fairness import (
    check_secret,
    chosen_secret,
    commitment,
    deal_seed,
    new_secret,
)
from kafana.competitions.model import Bye, Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.ratings import RatingBook, variant_name
from kafana.competitions.standings import Placing, Standing, standings, table_placings
from kafana.errors import InvalidInputError, WrongStateError
from kafana.games import tablic, tac

GAMES = ("tablic", "tac")
SALT = "salt"
"""The label of a chosen-seed event's server salt among its secrets (`Tournament.salt`)."""
GameRules = tablic.Rules | tac.Rules


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


class EventError(WrongStateError):
    """An organiser action the event's state does not allow (WRONG_STATE)."""


@dataclass(frozen=True)
class EventConfig:
    """Everything fixed when an event is announced. Entrants are unique names.

    `players` seats per game (2, 3 or 4; `partnerships`: four as 2 against 2, Tablić only);
    `ratings` the entrants' ratings that seed round 1 of a Swiss (unrated: 0); `chosen_seed`
    an organiser-chosen event seed (mixed with the event's server salt, `Tournament.salt`;
    records say so).
    """

    name: str
    kind: Kind
    entrants: tuple[str, ...]
    rounds: int = 0  # Swiss: 0 means ceil(log2(entrants)); round robin: the schedule's
    boards: int = 2  # duplicate: boards per table
    hands_per_board: int = 8  # duplicate Tablić: explicit decks per board (then its seed)
    preset: str = "serbian"
    target: int = 0  # 0: the preset's target
    chosen_seed: int | None = None  # None: every game's secret is fresh from the OS
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    game: str = "tablic"
    players: int = 2
    partnerships: bool = False
    ratings: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(set(self.entrants)) != len(self.entrants) or len(self.entrants) < 2:
            raise InvalidInputError("an event needs two or more entrants with distinct names")
        if any(not e or " " in e for e in self.entrants):
            raise InvalidInputError("entrant names are non-empty and have no spaces")
        if self.game not in GAMES:
            raise InvalidInputError(f"an event's game is tablic or tac, not {self.game!r}")
        if self.players not in (2, 3, 4):
            raise InvalidInputError(f"a game has 2, 3 or 4 players, not {self.players}")
        if self.partnerships and (self.players != 4 or self.game != "tablic"):
            raise InvalidInputError("partnerships are four Tablić players, 2 against 2")
        if len(self.entrants) < self.players:
            raise InvalidInputError(
                f"{self.players}-player games need {self.players} or more entrants,"
                f" not {len(self.entrants)}"
            )
        unknown = sorted(set(self.ratings) - set(self.entrants))
        if unknown:
            raise InvalidInputError(f"ratings of names that are not entrants: {unknown}")
        if self.kind is Kind.DUPLICATE and self.boards < 1:
            raise InvalidInputError("a duplicate event has one or more boards")
        most = pairing.max_rounds(
            self.kind.value, len(self.entrants), self.players, self.partnerships
        )
        if self.kind is Kind.SWISS and self.rounds > most:
            raise InvalidInputError(
                f"a Swiss of {len(self.entrants)} entrants at {self.table_name} tables has at"
                f" most {most} rounds without a repeat, not {self.rounds}"
            )
        self.rules  # noqa: B018  (the rules must exist: an unknown preset is refused now)

    @property
    def table_name(self) -> str:
        """How a table is made up: ``2-player``, ``3-player``, ``2x2``."""
        return "2x2" if self.partnerships else f"{self.players}-player"

    @property
    def swiss_rounds(self) -> int:
        """The rounds of a Swiss: as configured, else ceil(log2(entrants)) within the most."""
        if self.rounds:
            return self.rounds
        n = len(self.entrants)
        most = pairing.max_rounds("swiss", n, self.players, self.partnerships)
        return max(1, min(most, math.ceil(math.log2(n))))

    @property
    def chosen(self) -> bool:
        """True when the organiser chose the event seed (mixed with the event's server salt:
        reproducible with both, predictable by nobody before the salt is revealed)."""
        return self.chosen_seed is not None

    @property
    def rules(self) -> GameRules:
        """The rules of every game."""
        if self.game == "tac":
            return tac.Rules(players=self.players)
        rules = tablic.Rules.preset(
            self.preset, players=self.players, partnerships=self.partnerships
        )
        return rules.with_switches(target=self.target) if self.target else rules

    @property
    def sides(self) -> int:
        """Sides per game: the players, or 2 with partnerships."""
        return 2 if self.partnerships else self.players

    @property
    def pool(self) -> str:
        """The ratings pool of this event's games."""
        if self.game == "tac":
            return "tac/" + variant_name("standard", self.players)
        return "tablic/" + variant_name(self.preset, self.players, self.partnerships)


class Tournament:
    """Rounds, results, standings and ratings of one event; organiser controls.

    `end_reason` says why an event ended before its last round (a Swiss with no grouping
    without a repeat left), "" otherwise. An event with a chosen seed draws its server salt
    here (`salt`: give the revealed one to replay an event exactly).
    """

    def __init__(
        self, config: EventConfig, ratings: RatingBook | None = None, salt: str | None = None
    ) -> None:
        self.config = config
        self.status = Status.RUNNING
        self.end_reason = ""
        self.rounds: list[list[GameSpec]] = []
        self.byes: list[Bye] = []
        self.results: dict[str, GameResult] = {}
        self.ratings = ratings if ratings is not None else RatingBook()
        self._secrets: dict[str, str] = {}
        if config.chosen:
            self._secrets[SALT] = check_secret(salt) if salt is not None else new_secret()
        self._schedule = (
            pairing.round_robin_tables(config.entrants, config.players, config.partnerships)
            if config.kind is not Kind.SWISS
            else []
        )

    # -- the schedule ---------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """How many rounds the event has."""
        if self.config.kind is Kind.SWISS:
            return self.config.swiss_rounds
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
        kept = {SALT: self._secrets[SALT]} if SALT in self._secrets else {}
        self._secrets = {**kept, **secrets}

    @property
    def salt(self) -> str:
        """The server salt mixed into a chosen seed ("" without one): secret until the end."""
        return self._secrets.get(SALT, "")

    @property
    def salt_commitment(self) -> str:
        """`commitment(salt)`, published from the start ("" without a chosen seed)."""
        return commitment(self.salt) if self.salt else ""

    def game(self, game_id: str) -> GameSpec:
        """A game handed out earlier."""
        for r in self.rounds:
            for g in r:
                if g.game_id == game_id:
                    return g
        raise InvalidInputError(f"no game {game_id!r} in event {self.config.name!r}")

    def next_round(self) -> list[GameSpec]:
        """The next round's games; refused while paused, ended, or a game is undecided.

        A Swiss that finds no round without a repeat ends here: no games, the event ended
        with `end_reason` and its standings as they are.
        """
        if self.status is not Status.RUNNING:
            raise EventError(f"event {self.config.name!r} is {self.status.value}")
        if self.pending():
            raise EventError("the current round still has games without a result")
        if len(self.rounds) >= self.total_rounds:
            raise EventError("every round has been played")
        number = len(self.rounds) + 1
        if self.config.kind is Kind.SWISS:
            try:
                tables, out = self._swiss_tables()
            except ValueError:
                self.end_reason = (
                    f"no Swiss round {number} without a repeat is left: ended after"
                    f" {number - 1} of {self.total_rounds} rounds"
                )
                self.status = Status.ENDED
                return []
            self.byes += [Bye(number, e) for e in out]
        else:
            tables = self._schedule[number - 1]
            seated = {e for table in tables for e in table}
            self.byes += [Bye(number, e, 0.0) for e in self.config.entrants if e not in seated]
        games = (
            self._duplicate_games(number, tables)
            if self.config.kind is Kind.DUPLICATE
            else [self._game(f"r{number}-g{i + 1}", number, t) for i, t in enumerate(tables)]
        )
        self.rounds.append(games)
        return games

    def seeding(self) -> list[str]:
        """The entrants by rating (`EventConfig.ratings`), best first; ties in entry order."""
        rated = self.config.ratings
        order = sorted(enumerate(self.config.entrants), key=lambda e: (-rated.get(e[1], 0), e[0]))
        return [name for _, name in order]

    def _swiss_tables(self) -> tuple[list[pairing.Table], list[str]]:
        history = [g.seats for r in self.rounds for g in r]
        ranked = [row.entrant for row in self.standings()] if self.rounds else self.seeding()
        byes: dict[str, int] = {}
        for bye in self.byes:
            byes[bye.entrant] = byes.get(bye.entrant, 0) + 1
        return pairing.swiss_tables(
            ranked,
            history=history,
            byes=byes,
            seats=self.config.players,
            partnerships=self.config.partnerships,
        )

    def _secret(self, label: str) -> str:
        seed = self.config.chosen_seed
        return chosen_secret(seed, label, self.salt) if seed is not None else new_secret()

    def _game(self, game_id: str, number: int, seats: tuple[str, ...]) -> GameSpec:
        secret = self._secrets[game_id] = self._secret(game_id)
        return GameSpec(
            game_id, number, seats, commitment(secret), partnerships=self.config.partnerships
        )

    def _board_decks(self, seed: int) -> tuple[tuple[tablic.Card, ...], ...]:
        if self.config.game == "tac":
            return (tac.shuffled_deck(seed, 1),)
        return tuple(tablic.shuffled_deck(seed, k) for k in range(self.config.hands_per_board))

    def _duplicate_games(self, number: int, tables: list[pairing.Table]) -> list[GameSpec]:
        games = []
        for b in range(self.config.boards):
            label = f"board-{b + 1}"  # one secret per board for the whole event
            if label not in self._secrets:
                self._secrets[label] = self._secret(label)
            secret = self._secrets[label]
            decks = self._board_decks(deal_seed(secret))
            for i, table in enumerate(tables):
                for s in range(len(table)):  # every rotation: each entrant holds each seat
                    game_id = f"r{number}-g{i + 1}-b{b + 1}-s{s + 1}"
                    self._secrets[game_id] = secret
                    games.append(
                        GameSpec(
                            game_id,
                            number,
                            table[s:] + table[:s],
                            commitment(secret),
                            b + 1,
                            decks,
                            self.config.partnerships,
                        )
                    )
        return games

    # -- results and organiser actions ------------------------------------------------------

    def record(self, result: GameResult) -> None:
        """Take a game's result (once) and rate it: every side, by its match points."""
        spec = self.game(result.game_id)
        if result.game_id in self.results:
            raise EventError(f"game {result.game_id!r} already has a result")
        self.results[result.game_id] = result
        if result.ending is not Ending.NOT_PLAYED:
            sides = spec.sides
            self.ratings.rate(
                self.config.pool,
                [list(side) for side in sides],
                [result.match_points(i, len(sides)) for i in range(len(sides))],
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
        """Decide a game without playing it on (`winner` a side, None for a draw)."""
        spec = self.game(game_id)
        sides = len(spec.sides)
        if winner is not None and not 0 <= winner < sides:
            raise InvalidInputError(f"game {game_id!r} has sides 0 to {sides - 1}, not {winner}")
        faults: tuple[Fault, ...] = ()
        if winner is not None:
            faults = tuple(
                Fault(seat, Reason.ADJUDICATED, Action.FORFEIT_MATCH, 0, note)
                for seat in range(len(spec.seats))
                if spec.side_of(seat) != winner
            )
        result = GameResult(game_id, (0,) * sides, winner, Ending.ADJUDICATED, faults, note=note)
        self.record(result)
        return result

    def end(self, note: str = "") -> list[GameResult]:
        """End the event now: undecided games are recorded as not played."""
        ended = []
        for spec in self.pending():
            result = GameResult(
                spec.game_id,
                (0,) * len(spec.sides),
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

    def placings(self) -> list[Placing]:
        """Every decided game's placings (a duplicate board counts once, all rotations)."""
        if self.config.kind is Kind.DUPLICATE:
            return self._board_placings()
        out = []
        for r in self.rounds:
            for g in r:
                res = self.results.get(g.game_id)
                if res is None or res.ending is Ending.NOT_PLAYED:
                    continue
                sides = g.sides
                places = res.side_places(len(sides))
                scores = res.scores if len(res.scores) == len(sides) else ()
                out += table_placings(sides, [-p for p in places], scores)
        return out

    def _board_placings(self) -> list[Placing]:
        """Every board at every table, once its games in every rotation are decided."""
        out = []
        k = self.config.players
        for r in self.rounds:
            for start in range(0, len(r), k):
                specs = r[start : start + k]
                results = [self.results.get(g.game_id) for g in specs]
                decided = [
                    x for x in results if x is not None and x.ending is not Ending.NOT_PLAYED
                ]
                if len(decided) == k:
                    out += _board_placing(specs, decided)
        return out

    def standings(self) -> list[Standing]:
        """The current table: every bye counted; worth a point in a Swiss only."""
        byes: dict[str, int] = {}
        for bye in self.byes:
            byes[bye.entrant] = byes.get(bye.entrant, 0) + 1
        bye_points = 1.0 if self.config.kind is Kind.SWISS else 0.0
        return standings(self.config.entrants, self.placings(), byes, bye_points)


def _board_placing(specs: list[GameSpec], results: list[GameResult]) -> list[Placing]:
    """A board at a table: each side's points over every rotation decide its place.

    When a game of the board was forfeited or adjudicated (or the game scores nothing,
    Tač), the match points over the rotations decide instead.
    """
    teams = specs[0].sides
    team_of = {e: i for i, team in enumerate(teams) for e in team}
    score = [0] * len(teams)
    points = [0.0] * len(teams)
    has_scores = all(len(res.scores) == len(teams) for res in results)
    by_score = has_scores and all(res.ending is Ending.SCORE for res in results)
    for spec, res in zip(specs, results, strict=True):
        for i, side in enumerate(spec.sides):
            team = team_of[side[0]]
            points[team] += res.match_points(i, len(teams))
            if has_scores:
                score[team] += res.scores[i]
    values = [float(v) for v in score] if by_score else points
    return table_placings(teams, values, score if has_scores else [])
