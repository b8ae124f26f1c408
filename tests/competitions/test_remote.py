"""Remote entrants: a bot in its own process (the remote bot runner) enters an event."""

from __future__ import annotations

from client.kafana_client_live import LiveServer
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.local_runner import registry_bots
from kafana.competitions.model import Ending
from kafana.competitions.policy import FaultPolicy, Reason
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify import verify
from kafana_client import AsyncClient


async def test_a_remote_bot_plays_its_games_and_a_broken_one_is_recorded(
    server: LiveServer,
) -> None:
    policy = FaultPolicy(disconnect_grace_ms=100)
    names = ("far", "near", "broken")
    config = EventConfig(
        "remote", Kind.ROUND_ROBIN, names, chosen_seed=12, target=31, policy=policy
    )
    event = Tournament(config)
    remote = {"far": "greedy", "broken": "no_such_bot"}
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, registry_bots({"near": "heuristic"}), remote=remote)
    assert event.finished
    by_pair = {frozenset(g.seats): event.results[g.game_id] for r in event.rounds for g in r}
    played = by_pair[frozenset(("far", "near"))]
    assert played.ending is Ending.SCORE and not played.faults
    fair = FairRecord.from_text(played.record)
    assert verify(fair).finished and max(played.scores) >= 31
    for pair in (("far", "broken"), ("near", "broken")):
        result = by_pair[frozenset(pair)]
        assert result.ending is Ending.NOT_PLAYED  # the broken bot never took its seat
        assert [f.reason for f in result.faults] == [Reason.DISCONNECT], result.faults
        assert "exited with" in result.faults[0].detail
