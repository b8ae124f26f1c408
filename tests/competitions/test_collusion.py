"""The league's collusion report (issue 31): two colluding accounts are flagged, honest ones
are not.

An honest league is simulated from true skills (each match's winner drawn with the chance the
rating model gives the skill gap); two accounts of equal skill collude: whenever they meet the
same one wins. Before, nothing looked: two colluding accounts met 4 times out of 4 and pushed
one to rank 1 in ~90 s. The command reads the export's real format (`GetMatch` as JSON).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from kafana.competitions.league import collusion
from kafana.competitions.league.collusion import Played
from kafana.v1 import leagues_pb2 as pb

from .test_hosted_cli import kafana

BETA = 25 / 6
MEETINGS = 24


def league(seed: int, colluders: bool, players: int = 24, matches: int = 900) -> list[Played]:
    """Matches between neighbours in skill (as rating-close pairing makes them), each won by
    the better with the chance the model gives; with `colluders`, `dumper` always loses to
    `feeder` when they meet (`MEETINGS` times)."""
    rng = random.Random(seed)
    skill = {f"p{i:02d}": rng.gauss(25, 4) for i in range(players)}
    if colluders:
        skill["dumper"] = skill["feeder"] = 25.0
    order = sorted(skill, key=skill.__getitem__)
    out: list[Played] = []
    fixed: set[int] = set()
    while len(fixed) < (MEETINGS if colluders else 0):
        fixed.add(rng.randrange(matches))
    for n in range(1, matches + 1):
        if n - 1 in fixed:
            out.append(Played(n, ("dumper", "feeder"), (0.0, 1.0)))
            continue
        i = rng.randrange(len(order) - 1)
        a, b = order[i], order[i + rng.choice([1, 1, 2]) if i + 2 < len(order) else i + 1]
        if {a, b} == {"dumper", "feeder"}:
            b = order[i - 1] if i > 0 else order[i + 2]
        chance = 0.5 * (1 + math.erf((skill[a] - skill[b]) / (2 * BETA)))
        won = rng.random() < chance
        out.append(Played(n, (a, b), (1.0, 0.0) if won else (0.0, 1.0)))
    return out


def test_two_colluding_accounts_are_flagged_and_honest_pairs_are_not() -> None:
    for seed in (1, 2, 3):
        honest = league(seed, colluders=False)
        assert collusion.pairs_met(honest) >= 20  # many honest pairs met often enough
        assert collusion.report(honest) == [], seed
        rigged = league(seed, colluders=True)
        found = collusion.report(rigged)
        assert [(s.winner, s.loser) for s in found] == [("feeder", "dumper")], (seed, found)
        (suspect,) = found
        assert suspect.games == suspect.wins == MEETINGS
        assert suspect.p_value < suspect.threshold < 0.01


def test_a_pair_that_only_wins_as_its_ratings_say_is_not_flagged() -> None:
    # a far stronger player beating a weak one every time is expected: rated without their
    # games, the strong one's other wins say so
    games = []
    for n in range(1, 41):
        games.append(Played(n, ("strong", f"x{n % 5}"), (1.0, 0.0)))
        games.append(Played(100 + n, (f"x{n % 5}", "weak"), (1.0, 0.0)))
    games += [Played(200 + n, ("strong", "weak"), (1.0, 0.0)) for n in range(6)]
    assert collusion.report(games, min_games=6) == []
    # nor is a run of wins between two newcomers nobody knows anything about: 9 of 9
    fresh = [Played(n, ("a", "b"), (1.0, 0.0)) for n in range(9)]
    assert collusion.report(fresh) == []


def test_the_command_reports_from_an_exported_season(tmp_path: Path) -> None:
    lines = []
    for p in league(2, colluders=True):
        info = pb.MatchInfo(
            league="spring",
            match=p.number,
            season=1,
            players=list(p.players),
            scores=list(p.scores),
            rated=True,
            state=pb.MATCH_STATE_SETTLED,
        )
        lines.append(json.dumps(MessageToDict(info, preserving_proto_field_name=True)))
    lines.append(json.dumps({"match": "999", "players": ["a", "b"], "rated": False}))
    path = tmp_path / "matches.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out = kafana("league", "report", "--matches", str(path))
    assert code == 0, out
    assert "900 rated matches" in out and "feeder over dumper: 24 of 24 won" in out, out
    assert out.count(" over ") == 1, out
    path.write_text("not json\n")
    code, out = kafana("league", "report", "--matches", str(path))
    assert code == 2 and "cannot read" in out and "Traceback" not in out, out
    code, out = kafana("league", "report")
    assert code == 2 and "--matches" in out, out
