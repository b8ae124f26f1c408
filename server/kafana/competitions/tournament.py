"""A tournament as pure logic: it hands out rounds of games and takes back their results.

Runners (`local_runner`, `server_runner`, the hosted director) play the games; the tournament
never does I/O. Round robin and Swiss seat entrants at tables of 2, 3 or 4 (or 2 against 2).
A duplicate event deals fresh boards every round and plays each board once at every table of
the round, the tables in different seatings, and compares the entrants who held the same cards
at different tables (matchpoints, as duplicate bridge does): nobody ever plays a board twice or
both seatings of one, so remembering one's hands teaches nothing about an opponent's
(`duplicate_schedule`, `Tournament.placings`). Standings are by placement
(`kafana.competitions.standings`); ratings rate every side of a game (openskill).

>>> config = EventConfig("demo", Kind.SWISS, ("a", "b", "c", "d"))
>>> t = Tournament(config)
>>> [g.seats for g in t.next_round()]
[('a', 'c'), ('b', 'd')]
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from kafana.competitions import arena, pairing
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
REMOVED = ("withdrawn", "disqualified")
"""How an entrant leaves a started event (`Tournament.remove`)."""
TIEBREAKS = {
    "round_robin": ("sonneborn_berger", "head_to_head", "diff"),
    "swiss": ("buchholz", "sonneborn_berger", "diff"),
    "duplicate": ("buchholz", "sonneborn_berger", "diff"),
    "arena": ("wins", "diff"),
}
"""The tie-breaks after points, per format, in order (then the name)."""


class Kind(StrEnum):
    """The format of an event."""

    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    DUPLICATE = "duplicate"
    ARENA = "arena"


MIN_ARENA_MS = 10_000
MAX_ARENA_MS = 86_400_000
"""An arena pairs for 10 s to 24 hours."""


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
    duration_ms: int = 0  # arena: how long it pairs entrants
    switches: Mapping[str, Any] = field(default_factory=dict)  # rule switches off the preset

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
        if self.kind is Kind.DUPLICATE:
            self._check_duplicate()
        if self.kind is Kind.ROUND_ROBIN:
            n = len(self.entrants)
            games = pairing.round_robin_games(n, self.players, self.partnerships)
            paired = self.players == 2 and not self.partnerships  # else packed: MAX_GAMES
            most = pairing.MAX_SCHEDULED_GAMES if paired else pairing.MAX_GAMES
            self._check_games(games, most, "choose a Swiss")
        if self.kind is Kind.ARENA and not self.duration_ms:
            raise InvalidInputError("an arena needs its duration (duration_ms, --duration)")
        if self.kind is not Kind.ARENA and self.duration_ms:
            raise InvalidInputError(f"only an arena has a duration, not a {self.kind.value}")
        if self.duration_ms and not MIN_ARENA_MS <= self.duration_ms <= MAX_ARENA_MS:
            raise InvalidInputError(
                f"an arena lasts {MIN_ARENA_MS // 1000} s to 24 hours, not {self.duration_ms} ms"
            )
        if self.kind is Kind.SWISS:  # (only a Swiss: another kind's is its whole schedule)
            most = pairing.max_rounds("swiss", len(self.entrants), self.players, self.partnerships)
            if self.rounds > most:
                raise InvalidInputError(
                    f"a Swiss of {len(self.entrants)} entrants at {self.table_name} tables has"
                    f" at most {most} rounds without a repeat, not {self.rounds}"
                )
        self.rules  # noqa: B018  (the rules must exist: an unknown preset is refused now)

    def _check_duplicate(self) -> None:
        """A duplicate event compares tables of one round: two tables a round or more."""
        if self.boards < 1:
            raise InvalidInputError("a duplicate event has one or more boards")
        fewest = 2 * self.players
        if len(self.entrants) < fewest:
            raise InvalidInputError(
                f"a duplicate event compares the {self.table_name} tables of each round: it"
                f" needs {fewest} entrants or more (two tables), not {len(self.entrants)}"
            )
        tables = self.duplicate_tables()
        if self.rounds > len(tables):
            raise InvalidInputError(
                f"a duplicate event of {len(self.entrants)} entrants at {self.table_name} tables"
                f" has at most {len(tables)} rounds of two tables or more, not {self.rounds}"
            )
        games = sum(tables[: self.rounds or len(tables)]) * self.boards
        self._check_games(games, pairing.MAX_SCHEDULED_GAMES, "choose fewer rounds or boards")

    def duplicate_tables(self) -> list[int]:
        """The tables of each round of the full duplicate schedule: counted for two seats
        (every round of the circle has n // 2 tables: 0.35 s less at 1,024 entrants, on every
        load of the event's snapshot), else read off the schedule."""
        n = len(self.entrants)
        if self.players == 2 and not self.partnerships:
            return [n // 2] * (n - 1 + n % 2)
        return [len(t) for t in duplicate_schedule(self.entrants, self.players, self.partnerships)]

    def _check_games(self, games: int, most: int, advice: str) -> None:
        """A fixed schedule of at most `most` games (its snapshot keeps each)."""
        if games > most:
            raise InvalidInputError(
                f"a {self.kind.value.replace('_', ' ')} of {len(self.entrants)} entrants at"
                f" {self.table_name} tables has {games:,} games, more than {most:,}: {advice}"
            )

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
        switches: dict[str, Any] = {
            k: tuple(tuple(x) for x in v) if k == "card_points" else v
            for k, v in self.switches.items()
        }
        try:
            if self.game == "tac":
                return dataclasses.replace(tac.Rules(players=self.players), **switches)
            rules = tablic.Rules.preset(
                self.preset, players=self.players, partnerships=self.partnerships
            )
            rules = rules.with_switches(target=self.target) if self.target else rules
            return rules.with_switches(**switches) if switches else rules
        except (TypeError, ValueError) as error:
            raise InvalidInputError(f"rule switches {dict(self.switches)}: {error}") from None

    @property
    def sides(self) -> int:
        """Sides per game: the players, or 2 with partnerships."""
        return 2 if self.partnerships else self.players

    @property
    def pool(self) -> str:
        """The ratings pool of this event's games."""
        custom = ""  # rule switches make a pool of their own
        if self.switches:
            text = json.dumps(dict(self.switches), sort_keys=True)
            custom = "+" + hashlib.sha256(text.encode()).hexdigest()[:8]
        if self.game == "tac":
            return "tac/" + variant_name("standard", self.players) + custom
        return "tablic/" + variant_name(self.preset, self.players, self.partnerships) + custom


class Tournament:
    """Rounds, results, standings and ratings of one event; organiser controls.

    `end_reason` says why an event ended before its last round (a Swiss with no grouping
    without a repeat left), "" otherwise. An event with a chosen seed draws its server salt
    here (`salt`: give the revealed one to replay an event exactly). `seating` seats a
    two-seat round robin or duplicate (`pairing.round_robin`). A round robin's or duplicate's
    rounds are fixed from the start (`schedule_of`); `ahead` gives the rounds not yet handed
    out instead (a snapshot keeps them: an event goes on with the schedule it began with,
    whatever the code of the day would make).
    """

    def __init__(
        self,
        config: EventConfig,
        ratings: RatingBook | None = None,
        salt: str | None = None,
        seating: pairing.Seating = pairing.SEATING,
        ahead: list[list[pairing.Table]] | None = None,
    ) -> None:
        self.config = config
        self.seating: pairing.Seating = seating
        self.status = Status.RUNNING
        self.end_reason = ""
        self.rounds: list[list[GameSpec]] = []
        self.byes: list[Bye] = []
        self.results: dict[str, GameResult] = {}
        self.removed: dict[str, tuple[str, str]] = {}  # entrant -> (withdrawn/disqualified, note)
        self.ratings = ratings if ratings is not None else RatingBook()
        self.ends_ms = 0  # arena: when it stops pairing (set by whoever starts it)
        self.closed = False  # arena: the time is up, no new game is paired
        self._secrets: dict[str, str] = {}
        self._games: dict[str, GameSpec] = {}
        if config.chosen:
            self._secrets[SALT] = check_secret(salt) if salt is not None else new_secret()
        self._ahead = schedule_of(config, seating) if ahead is None else [*map(list, ahead)]

    # -- the schedule ---------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """How many rounds the event has."""
        if self.config.kind is Kind.SWISS:
            return self.config.swiss_rounds
        if self.config.kind is Kind.ARENA:
            return len(self.rounds)  # a round is one pairing of the arena
        return len(self.rounds) + len(self._ahead)

    @property
    def ahead(self) -> list[list[pairing.Table]]:
        """A round robin's or duplicate's rounds not handed out yet, each a list of tables
        (entrants by seat; a duplicate's before its boards turn them); [] for the others."""
        return self._ahead

    @property
    def finished(self) -> bool:
        """True once ended, or every round is out and decided."""
        if self.status is Status.ENDED:
            return True
        if self.config.kind is Kind.ARENA:
            return self.closed and not self.pending()
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
        """A game handed out earlier (by an index of the rounds, rebuilt when an id is not in
        it: rounds are only added; a scan per lookup took 8 s for one GetEvent of a
        1,024-entrant Swiss)."""
        found = self._games.get(game_id)
        if found is None:
            self._games = {g.game_id: g for r in self.rounds for g in r}
            found = self._games.get(game_id)
        if found is None:
            raise InvalidInputError(f"no game {game_id!r} in event {self.config.name!r}")
        return found

    def next_round(self) -> list[GameSpec]:
        """The next round's games; refused while paused, ended, or a game is undecided.

        A Swiss that finds no round without a repeat ends here: no games, the event ended
        with `end_reason` and its standings as they are.
        """
        if self.status is not Status.RUNNING:
            raise EventError(f"event {self.config.name!r} is {self.status.value}")
        if self.config.kind is Kind.ARENA:
            raise EventError("an arena pairs its entrants as they free up (arena_round)")
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
            tables = self._ahead[0]
            seated = {e for table in tables for e in table}
            self.byes += [Bye(number, e, 0.0) for e in self.config.entrants if e not in seated]
        games = (
            self._duplicate_games(number, tables)
            if self.config.kind is Kind.DUPLICATE
            else [self._game(f"r{number}-g{i + 1}", number, t) for i, t in enumerate(tables)]
        )
        self.rounds.append(games)
        if self.config.kind is not Kind.SWISS:
            del self._ahead[0]
        self._forfeit_removed()  # a removed entrant's games of a fixed schedule
        return [g for g in games if g.game_id not in self.results]

    # -- the arena -------------------------------------------------------------------------

    def idle(self) -> list[str]:
        """The entrants in no game being played and still in the event, in entry order."""
        busy = {e for g in self.pending() for e in g.seats}
        return [e for e in self.config.entrants if e not in busy and e not in self.removed]

    def close(self) -> None:
        """An arena's time is up: nothing more is paired; games being played finish."""
        self.closed = True

    def arena_round(
        self, waited: Mapping[str, int], rematch_wait_ms: int = 2_000
    ) -> list[GameSpec]:
        """An arena's next games among its idle entrants (`waited`: how long each free
        entrant has waited, ms; `arena.arena_tables` pairs them), as one more round; none
        while paused, ended, closed or with too few free. The entrant whose games were least
        often at seat 0 takes it."""
        if self.config.kind is not Kind.ARENA:
            raise EventError(f"event {self.config.name!r} is not an arena")
        if self.status is not Status.RUNNING or self.closed:
            return []
        idle = set(self.idle())
        free = {e: w for e, w in waited.items() if e in idle}
        if len(free) < self.config.players:
            return []
        ranked = [row.entrant for row in self.standings()]
        tables = arena.arena_tables(
            ranked, free, self._last_tables(), self.config.players, rematch_wait_ms
        )
        if not tables:
            return []
        number = len(self.rounds) + 1
        lead: dict[str, int] = {}  # games at seat 0 minus games at another seat
        for g in (g for r in self.rounds for g in r):
            for seat, e in enumerate(g.seats):
                lead[e] = lead.get(e, 0) + (1 if seat == 0 else -1)
        games = []
        for i, table in enumerate(tables):
            seats = tuple(sorted(table, key=lambda e: (lead.get(e, 0), table.index(e))))
            games.append(self._game(f"r{number}-g{i + 1}", number, seats))
        self.rounds.append(games)
        return games

    def _last_tables(self) -> dict[str, frozenset[str]]:
        """Each entrant's opponents (and partner) at its latest game."""
        last: dict[str, frozenset[str]] = {}
        for r in self.rounds:
            for g in r:
                for e in g.seats:
                    last[e] = frozenset(g.seats) - {e}
        return last

    def seeding(self) -> list[str]:
        """The entrants by rating (`EventConfig.ratings`), best first; ties in entry order."""
        rated = self.config.ratings
        order = sorted(enumerate(self.config.entrants), key=lambda e: (-rated.get(e[1], 0), e[0]))
        return [name for _, name in order]

    def _swiss_tables(self) -> tuple[list[pairing.Table], list[str]]:
        history = [g.seats for r in self.rounds for g in r]
        ranked = [row.entrant for row in self.standings()] if self.rounds else self.seeding()
        ranked = [e for e in ranked if e not in self.removed]  # paired no more
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
        """Round `number`'s boards, fresh: board b (secret `r<n>-b<b>`) once at every table,
        table i in rotation i + b - 1 of its seats (so the tables hold the board's hands in
        different seatings). Game ids are ``r<round>-g<table>-b<board>``."""
        games = []
        for b in range(1, self.config.boards + 1):
            label = f"r{number}-b{b}"  # a board is dealt in this round only
            secret = self._secrets[label] = self._secret(label)
            decks = self._board_decks(deal_seed(secret))
            for i, table in enumerate(tables):
                turn = (i + b - 1) % len(table)
                game_id = f"r{number}-g{i + 1}-b{b}"
                self._secrets[game_id] = secret
                seats = table[turn:] + table[:turn]
                games.append(
                    GameSpec(
                        game_id,
                        number,
                        seats,
                        commitment(secret),
                        b,
                        decks,
                        self.config.partnerships,
                    )
                )
        return games

    # -- results and organiser actions ------------------------------------------------------

    def record(self, result: GameResult) -> None:
        """Take a game's result (once) and rate it: every side, by its match points. A game
        that shares its deals with others (a duplicate board) is rated with them once all are
        done: a rating that moved sooner would tell the board's other tables its result."""
        spec = self.game(result.game_id)
        if result.game_id in self.results:
            raise EventError(f"game {result.game_id!r} already has a result")
        self.results[result.game_id] = result
        board = [spec]
        if self.config.kind is Kind.DUPLICATE:  # the games of its board, itself among them
            board = [g for r in self.rounds for g in r if g.commitment == spec.commitment]
            if any(g.game_id not in self.results for g in board):
                return
        for game in board:
            done = self.results[game.game_id]
            if done.ending is not Ending.NOT_PLAYED:
                sides = game.sides
                self.ratings.rate(
                    self.config.pool,
                    [list(side) for side in sides],
                    [done.match_points(i, len(sides)) for i in range(len(sides))],
                )

    def remove(self, entrant: str, state: str, note: str = "") -> list[GameResult]:
        """Take `entrant` out (`state` withdrawn or disqualified): paired no more (Swiss), its
        undecided games and those of a fixed schedule still to come forfeited to the other
        sides (ending adjudicated, not rated); its results so far stay. The games decided."""
        if entrant not in self.config.entrants:
            raise InvalidInputError(f"no entrant {entrant!r} in event {self.config.name!r}")
        if state not in REMOVED:
            raise InvalidInputError(f"an entrant is withdrawn or disqualified, not {state!r}")
        if entrant in self.removed:
            raise EventError(f"entrant {entrant!r} is already {self.removed[entrant][0]}")
        self.removed[entrant] = (state, note)
        return self._forfeit_removed()

    def _forfeit_removed(self) -> list[GameResult]:
        """Decide every undecided game with a removed entrant: its side(s) last; a game with
        no side left in the event is not played."""
        decided = []
        for spec in self.pending():
            sides = spec.sides
            out = [i for i, side in enumerate(sides) if any(e in self.removed for e in side)]
            if not out:
                continue
            why = "; ".join(
                f"{e} {self.removed[e][0]} {self.removed[e][1]}".strip()
                for side in sides
                for e in side
                if e in self.removed
            )
            faults = tuple(
                Fault(seat, Reason.ADJUDICATED, Action.FORFEIT_MATCH, 0, why)
                for seat in range(len(spec.seats))
                if spec.side_of(seat) in out
            )
            left = [i for i in range(len(sides)) if i not in out]
            zeros = (0,) * len(sides)
            if not left:
                result = GameResult(spec.game_id, zeros, None, Ending.NOT_PLAYED, note=why)
            else:
                places = tuple(1 if i in left else 2 for i in range(len(sides)))
                winner = left[0] if len(left) == 1 else None
                result = GameResult(
                    spec.game_id, zeros, winner, Ending.ADJUDICATED, faults, note=why, places=places
                )
            self.results[spec.game_id] = result
            decided.append(result)
        return decided

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
        """Every board once all its tables are decided: one placing per entrant who held it,
        against the entrants who held the same seat's cards at the round's other tables."""
        boards: dict[tuple[int, int], list[GameSpec]] = {}
        for r in self.rounds:
            for g in r:
                boards.setdefault((g.round, g.board or 0), []).append(g)
        out = []
        for specs in boards.values():
            results = [self.results.get(g.game_id) for g in specs]
            if any(x is None for x in results):
                continue  # a board is scored once every table has played it
            out += board_placings(
                [(g, x) for g, x in zip(specs, results, strict=True) if x is not None]
            )
        return out

    def standings(self) -> list[Standing]:
        """The current table: every bye counted; worth a point in a Swiss only. An arena
        ranks by its arena points (`arena`), then wins, then point difference."""
        byes: dict[str, int] = {}
        for bye in self.byes:
            byes[bye.entrant] = byes.get(bye.entrant, 0) + 1
        bye_points = 1.0 if self.config.kind is Kind.SWISS else 0.0
        tiebreaks = TIEBREAKS[self.config.kind.value]
        states = {e: state for e, (state, _) in self.removed.items()}
        rows = standings(self.config.entrants, self.placings(), byes, bye_points, tiebreaks, states)
        if self.config.kind is not Kind.ARENA:
            return rows
        games: dict[str, list[float]] = {e: [] for e in self.config.entrants}
        for p in self.placings():  # in round order: each entrant's games in time order
            games[p.entrant].append(p.points)
        scored = []
        for row in rows:
            points, streak = arena.arena_points(games[row.entrant])
            scored.append(replace(row, points=points, streak=streak))
        scored.sort(key=lambda r: (-r.points, *(-getattr(r, t) for t in tiebreaks), r.entrant))
        return [replace(r, rank=i + 1) for i, r in enumerate(scored)]


def schedule_of(
    config: EventConfig, seating: pairing.Seating = pairing.SEATING
) -> list[list[pairing.Table]]:
    """Every round of a round robin's or duplicate's schedule (seated by `seating`), in order;
    [] for a Swiss or an arena (paired round by round)."""
    if config.kind is Kind.ROUND_ROBIN:
        return pairing.round_robin_tables(
            config.entrants, config.players, config.partnerships, seating
        )
    if config.kind is Kind.DUPLICATE:
        full = duplicate_schedule(config.entrants, config.players, config.partnerships, seating)
        return full[: config.rounds or len(full)]
    return []


def duplicate_schedule(
    entrants: tuple[str, ...],
    players: int,
    partnerships: bool,
    seating: pairing.Seating = pairing.SEATING,
) -> list[list[pairing.Table]]:
    """The rounds of a duplicate event: the round robin's rounds of two tables or more (a
    board is compared across the tables of its round)."""
    rounds = pairing.round_robin_tables(entrants, players, partnerships, seating)
    return [tables for tables in rounds if len(tables) >= 2]


def table_value(spec: GameSpec, result: GameResult, seat: int) -> tuple[float, int]:
    """How well `seat`'s side did at its table: its match points there, then its points
    margin (its side's points minus the best other side's; 0 when the game scores nothing or
    ended off the board)."""
    sides = len(spec.sides)
    side = spec.side_of(seat)
    margin = 0
    if result.ending is Ending.SCORE and len(result.scores) == sides:
        margin = result.scores[side] - max(v for i, v in enumerate(result.scores) if i != side)
    return result.match_points(side, sides), margin


def board_placings(played: list[tuple[GameSpec, GameResult]]) -> list[Placing]:
    """Matchpoints of one duplicate board: every entrant who held seat s's cards (at any of
    the board's tables) against every other who held them, by `table_value`: 1 for each it
    did better than, 0.5 for each tie, over how many there are. A table whose game was not
    played is left out; a seat held at one table only scores nothing.

    >>> a = GameSpec("r1-g1-b1", 1, ("ana", "bob"), "", 1)
    >>> b = GameSpec("r1-g2-b1", 1, ("dan", "cid"), "", 1)
    >>> rows = board_placings([(a, GameResult(a.game_id, (14, 9), 0)),
    ...                        (b, GameResult(b.game_id, (11, 12), 1))])
    >>> for p in rows:
    ...     print(p.entrant, p.points, p.opponents, p.diff)
    ana 1.0 ('dan',) 5
    dan 0.0 ('ana',) -1
    bob 0.0 ('cid',) -5
    cid 1.0 ('bob',) 1
    """
    played = [(g, x) for g, x in played if x.ending is not Ending.NOT_PLAYED]
    if not played:
        return []
    out = []
    for seat in range(len(played[0][0].seats)):
        held = [(g.seats[seat], table_value(g, x, seat)) for g, x in played]
        if len(held) < 2:
            continue
        for name, mine in held:
            others = [(o, v) for o, v in held if o != name]
            beaten = sum(1.0 if mine > v else 0.5 if mine == v else 0.0 for _, v in others)
            opponents = tuple(o for o, _ in others)
            out.append(Placing(name, opponents, beaten / len(others), mine[1]))
    return out
