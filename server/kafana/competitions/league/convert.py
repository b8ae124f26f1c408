"""League data as the Leagues service's messages (nothing secret before a match is settled)."""

from __future__ import annotations

import json

from kafana.competitions.league.results import NO_SHOW
from kafana.competitions.league.spec import load
from kafana.competitions.league.store import SETTLED
from kafana.competitions.league.tables import table_of
from kafana.competitions.wire import fault_message, reason_enum, result_enum
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import state_pb2


def league_info(league: str, meta: dict[str, str], waiting: int) -> pb.LeagueInfo:
    """A league as everyone may see it."""
    return pb.LeagueInfo(
        league=league,
        spec=load(meta["spec"]),
        season=int(meta.get("season", "1")),
        waiting=waiting,
        matches_made=int(meta.get("made", "0")),
        matches_settled=int(meta.get("settled", "0")),
        organiser=meta.get("organiser", ""),
        band_matches=[int(n) for n in meta.get("band_made", "").split()],
    )


def match_info(
    league: str, number: int, match: dict[str, str], *, record: bool = False
) -> pb.MatchInfo:
    """A match: its secret, result and (asked for) fair record only once it is settled."""
    settled = match.get("state") == SETTLED
    out = pb.MatchInfo(
        league=league,
        match=number,
        season=int(match.get("season", "0")),
        players=match.get("players", "").split(),
        table_id=table_of(match)[0],
        commitment=match.get("commitment", ""),
        state=pb.MATCH_STATE_SETTLED if settled else pb.MATCH_STATE_PLAYING,
        created_ms=int(match.get("created_ms", "0")),
    )
    if settled:
        ending = match.get("ending", "")
        out.rated = match.get("rated") == "1"
        out.detail = match.get("detail", "")
        out.forfeit_reason = reason_enum(match.get("forfeit_reason", ""))
        if ending == NO_SHOW and out.rated:  # someone came: the absent forfeited
            out.ending = state_pb2.RESULT_REASON_FORFEIT
            out.forfeit_reason = state_pb2.EVENT_REASON_NO_SHOW
        else:
            out.ending = result_enum(ending)
        out.scores.extend(json.loads(match.get("scores", "[]")))
        out.faults.extend(fault_message(code) for code in json.loads(match.get("faults", "[]")))
        out.secret = match.get("secret", "")
        out.settled_ms = int(match.get("settled_ms", "0"))
        if record:
            out.record = match.get("record", "")
    return out
