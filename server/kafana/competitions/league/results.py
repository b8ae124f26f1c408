"""What a league match's end writes: the ending, the scores to rate, faults and fair record.

A match is rated when it was played out or forfeited (the winner ranks first); closed or
abandoned tables, and matches nobody showed up for, are settled without a rating. A player who
did not take their seat by the join deadline forfeits (`no_show`): the players who showed up
rank first, the absent last.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from kafana.competitions.envelope import FairRecord
from kafana.competitions.ratings import Rating, rate_teams
from kafana.competitions.table_results import table_faults
from kafana.competitions.wire import reason_name, result_name
from kafana.v1 import service_pb2, state_pb2

NO_SHOW = "no_show"
BENCH_MS = 60_000
"""A player's first no-show bars them from the queue this long (`Leagues.join`), each one more
twice as long while the last is remembered (`BENCH_KEEP_MS` past its end): a player who
queues and never comes cannot keep others waiting out the join deadline match after match."""
BENCH_KEEP_MS = 86_400_000
ABSENT = re.compile(r"seat(\d+):no_show->")
RATED_ENDINGS = (
    state_pb2.RESULT_REASON_SCORE,
    state_pb2.RESULT_REASON_OUT,
    state_pb2.RESULT_REASON_STALLED,
    state_pb2.RESULT_REASON_FORFEIT,
    state_pb2.RESULT_REASON_NO_SHOW,
)


@dataclass(frozen=True)
class Outcome:
    """How a match ended: its ending, scores per seat (empty: not rated), faults, record."""

    ending: str
    scores: tuple[float, ...] = ()
    detail: str = ""
    faults: tuple[str, ...] = ()
    record: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def seat_scores(result: state_pb2.Result, seats: int) -> tuple[float, ...]:
    """Scores to rate (higher is better), or () when the result is not to be rated."""
    if result.reason not in RATED_ENDINGS:
        return ()
    if result.places:  # Tač: place 1 is best
        return tuple(-float(place) for place in result.places)
    if result.reason == state_pb2.RESULT_REASON_SCORE and len(result.scores) == seats:
        return tuple(float(s) for s in result.scores)
    if result.HasField("winner_side"):
        return tuple(1.0 if s == result.winner_side else 0.0 for s in range(seats))
    return ()


def played(record: service_pb2.GetRecordResponse, seats: int) -> Outcome:
    """The outcome of a finished table, from its record."""
    result = record.result
    faults = tuple(f.code() for f in table_faults(list(record.events), []))
    return Outcome(
        result_name(result.reason) or "closed",
        seat_scores(result, seats),
        result.detail,
        faults,
        record.record,
        {
            "result_scores": json.dumps(list(result.scores)),
            "forfeit_reason": reason_name(result.forfeit_reason),
        },
    )


def no_show(present: Sequence[bool]) -> Outcome:
    """The outcome when seats were not taken by the deadline (nobody: not rated)."""
    absent = [seat for seat, here in enumerate(present) if not here]
    faults = tuple(f"seat{seat}:no_show->forfeit_match@0" for seat in absent)
    if not any(present):
        return Outcome(NO_SHOW, (), "nobody took a seat by the join deadline", faults)
    scores = tuple(1.0 if here else 0.0 for here in present)
    seats = ", ".join(map(str, absent))
    return Outcome(NO_SHOW, scores, f"seat(s) {seats} not taken by the join deadline", faults)


def absent(faults: Sequence[str]) -> list[int]:
    """The seats that did not show up, from a settled match's fault codes (`no_show`)."""
    return [int(found.group(1)) for code in faults if (found := ABSENT.match(code))]


def load_rating(raw: str | None) -> Rating:
    """A stored rating (JSON {mu, sigma, games}); None: a new player's."""
    if raw is None:
        return Rating()
    data = json.loads(raw)
    return Rating(float(data["mu"]), float(data["sigma"]), int(data["games"]))


def dump_rating(rating: Rating) -> str:
    """A rating as stored."""
    return json.dumps({"mu": rating.mu, "sigma": rating.sigma, "games": rating.games})


def new_ratings(read: Sequence[str | None], scores: Sequence[float]) -> list[tuple[Rating, str]]:
    """Each player's rating after the match (one player a side) and its stored JSON."""
    olds = [[load_rating(raw)] for raw in read]
    return [(team[0], dump_rating(team[0])) for team in rate_teams(olds, scores)]


def fair_record(
    commitment: str, secret: str, record: str, meta: Sequence[tuple[str, str]]
) -> FairRecord:
    """The match's fair record: the secret revealed, the table's record wrapped."""
    return FairRecord(commitment, secret, record, tuple(meta))  # type: ignore[arg-type, unused-ignore]
