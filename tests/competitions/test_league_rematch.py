"""League rematch limits (issue 31): 35% of league matches were immediate rematches (one pair
nine in a row). A player is not paired with a player it met in each of its last
`rematch_limit` matches (default 2) until both have waited 60 s for someone else; the
store keeps each player's last 8 tables in the claim itself, on real Redis here."""

from __future__ import annotations

import pytest
from kafana.competitions.league.matchmaking import (
    REMATCH_PATIENCE_MS,
    Window,
    groups,
    rematch,
)
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.results import Outcome
from kafana.competitions.league.spec import dump, league_spec
from kafana.competitions.league.store import LeagueStore, Waiting
from kafana.errors import InvalidInputError
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb


def test_groups_skip_a_pair_past_the_limit_until_both_have_waited() -> None:
    ana, bob, cid = Waiting("ana", 0, 25.0), Waiting("bob", 0, 25.1), Waiting("cid", 0, 25.2)
    window = Window()
    met = {"ana": [frozenset({"bob"}), frozenset({"bob"})], "bob": [frozenset({"ana"})] * 2}
    assert groups([ana, bob], 2, window, 1_000, met, 2) == []
    assert groups([ana, bob], 2, window, 1_000, met, 3) == [["ana", "bob"]]  # 3 allowed
    assert groups([ana, bob, cid], 2, window, 1_000, met, 2) == [["bob", "cid"]]
    later = REMATCH_PATIENCE_MS
    assert groups([ana, bob], 2, window, later, met, 2) == [["ana", "bob"]]  # nobody else came
    # at tables of 3: a member who met another in each of its last matches
    three = {"cid": [frozenset({"ana", "dan"}), frozenset({"ana", "bob"})]}
    assert rematch([ana, bob, cid], three, 2) and not rematch([ana, bob, cid], three, 3)


def test_the_limit_is_one_to_eight() -> None:
    assert league_spec(pb.LeagueSpec()).rematch_limit == 2
    with pytest.raises(InvalidInputError, match="rematch_limit is from 1 to 8, not 9"):
        league_spec(pb.LeagueSpec(rematch_limit=9))


async def test_a_pair_is_not_paired_a_third_time_in_a_row(
    leagues: LeagueStore, redis_store: RedisStore
) -> None:
    spec = league_spec(pb.LeagueSpec(target=11))
    assert await leagues.create("rr", {"spec": dump(spec), "organiser": "org"})
    clock = [1_000_000]
    referee = Referee(leagues, Tables(redis_store), clock=lambda: clock[0])

    async def play(*players: str) -> list[int]:
        for p in players:
            assert (await leagues.join("rr", p, 25.0, clock[0]))[0] == "waiting"
        made = await referee.pair("rr", spec)
        for number in made:  # settled at once: the players are free again
            match = await leagues.match("rr", number)
            outcome = Outcome("score", (11.0, 3.0), "side 0 won")
            assert await referee.settle("rr", spec, number, match, outcome) == "settled"
        return made

    assert len(await play("ana", "bob")) == 1
    assert len(await play("ana", "bob")) == 1  # a second match in a row is allowed
    met = await leagues.last_opponents("rr", ["ana", "bob", "cid"])
    assert met == {"ana": [frozenset({"bob"})] * 2, "bob": [frozenset({"ana"})] * 2}
    assert await play("ana", "bob") == []  # a third is not: both wait
    assert await leagues.waiting("rr") == 2
    assert len(await play("cid")) == 1  # someone else came: one of them plays cid
    (left,) = [p for p in ("ana", "bob") if (await leagues.status("rr", p))[0] == "waiting"]
    clock[0] += REMATCH_PATIENCE_MS  # the one left waited a minute for anyone
    assert len(await play(left)) == 0  # its old opponent is playing cid, not queued
