"""A Swiss event of 8 hosted by the server: built-in bots, a remote bot and a person."""

from __future__ import annotations

import asyncio
import io
import itertools

from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import check_commitment
from kafana.competitions.verify import verify
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, bot_player, entry_task, person_player

BUILT_IN = {f"bot{i}": ("greedy", "random", "heuristic")[i % 3] for i in range(6)}


async def test_hosted_swiss_of_eight(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            "swiss8", "swiss", target=31, seed=5, chosen_seed=True, move_ms=10_000
        )
        assert made.info.phase == pb.EVENT_PHASE_OPEN and made.organiser_token
        for name, bot in BUILT_IN.items():
            assert (await events.enter(made.event_id, name, bot=bot)).token == ""
        remote = await events.enter(made.event_id, "remote", bot="")
        person = await events.enter(made.event_id, "person")
        assert remote.token and person.token and remote.token != person.token
        started = await events.start(made.event_id, made.organiser_token)
        assert started.phase == pb.EVENT_PHASE_STARTED
        screen = io.StringIO()
        tasks = [
            await entry_task(client, made.event_id, remote.token, bot_player(client)),
            await entry_task(client, made.event_id, person.token, person_player(screen)),
        ]
        finals = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        info = await events.get(made.event_id, records=True)

    assert all(f.event_over for f in finals)
    assert "Your turn" in screen.getvalue()  # the person really played in the terminal UI
    names = sorted([*BUILT_IN, "remote", "person"])
    assert (
        info.phase == pb.EVENT_PHASE_FINISHED and info.total_rounds == 3 and len(info.rounds) == 3
    )
    for r in info.rounds:
        assert len(r.games) == 4 and not r.byes
        assert sorted(e for g in r.games for e in g.seats) == names
    pairs = [frozenset(g.seats) for r in info.rounds for g in r.games]
    assert len(set(pairs)) == len(pairs) == 12  # no repeat pairing

    points = dict.fromkeys(names, 0.0)
    for r in info.rounds:
        for g in r.games:
            assert (
                g.status == pb.GAME_STATUS_DONE and g.ending == pb.GAME_ENDING_SCORE and g.table_id
            )
            assert check_commitment(g.secret, g.commitment)
            checked = verify(FairRecord.from_text(g.record))
            assert checked.finished and list(checked.scores) == list(g.scores)
            assert max(g.scores) >= 31
            for seat, name in enumerate(g.seats):
                if g.scores[0] == g.scores[1]:
                    points[name] += 0.5
                elif g.winner == seat:
                    points[name] += 1.0
    assert {s.entrant: s.points for s in info.standings} == points
    assert sum(points.values()) == 12
    table = list(info.standings)
    assert [s.points for s in table] == sorted(points.values(), reverse=True)
    for above, below in itertools.pairwise(table):
        if above.points == below.points:
            assert above.buchholz >= below.buchholz
    assert "swiss8" in info.report and info.records_jsonl.count("\n") == 12
