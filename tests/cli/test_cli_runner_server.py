"""`kafana tournament run --server`'s runner (`kafana.cli.runner`) on a real server: it plays
Tač as well as Tablić, and leaves a failed bot's seat to the table's fault policy (the policy
is applied in one place on a server: the table, as for hosted events).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest
from client.kafana_client_live import LiveServer
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.local_runner import registry_bots
from kafana.competitions.model import Ending
from kafana.competitions.policy import Action, FaultPolicy, Reason
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify import notes, verify
from kafana.games.tablic import Move, Rules, View
from kafana_bots import Bot
from kafana_client import AsyncClient


@pytest.fixture
def server(redis_url: str) -> Iterator[LiveServer]:
    """A server on loopback over the test kit's private Redis."""
    live = LiveServer(redis_url)
    try:
        yield live
    finally:
        live.close()


class Crashing(Bot):
    """Plays its first three moves, then raises: its process died mid-game."""

    def __init__(self, seat: int, rules: Rules, rng: random.Random) -> None:
        super().__init__(seat, rules, rng)
        self.left = 3

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        self.left -= 1
        if self.left < 0:
            raise ConnectionError("bot process went away")
        return legal_moves[0]


async def test_a_tac_event_is_played_on_a_server(server: LiveServer) -> None:
    bots = {"ana": "loader", "bob": "random", "cid": "loader"}
    config = EventConfig("tac", Kind.ROUND_ROBIN, tuple(bots), game="tac", players=2)
    event = Tournament(config)
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, registry_bots(bots))
    assert event.finished and len(event.results) == 3
    for result in event.results.values():
        assert result.ending is Ending.SCORE and not result.faults, result
        assert sorted(result.places) == [1, 2]
        assert verify(FairRecord.from_text(result.record)).game == "tac"


async def test_a_failed_bot_is_left_to_the_tables_policy(server: LiveServer) -> None:
    policy = FaultPolicy(disconnect_grace_ms=200, on_disconnect=Action.DEFAULT_MOVE)
    config = EventConfig(
        "gone", Kind.ROUND_ROBIN, ("crash", "greedy"), chosen_seed=3, target=1, policy=policy
    )
    event = Tournament(config)
    base = registry_bots({"greedy": "greedy"})

    def factory(name: str, seat: int, rules: Rules, rng: random.Random) -> Bot:
        return Crashing(seat, rules, rng) if name == "crash" else base(name, seat, rules, rng)

    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, factory)
    (result,) = event.results.values()
    crashed = event.rounds[0][0].seats.index("crash")
    # The table played the crashed seat's turns by default to the end of the match ...
    assert result.ending is Ending.SCORE
    fair = FairRecord.from_text(result.record)
    played_for = [note for note in notes(fair.record).defaults if note[1] == crashed]
    assert played_for and all(note[2] == "was disconnected" for note in played_for)
    assert verify(fair).finished
    # ... and the game has one fault for it: the table's, with the runner's note as its detail.
    (fault,) = result.faults
    assert (fault.seat, fault.reason, fault.action) == (
        crashed,
        Reason.DISCONNECT,
        Action.DEFAULT_MOVE,
    )
    assert fault.detail == "ConnectionError: bot process went away"
    assert fault.move_no >= 3
