"""The fault policy: timeouts, disconnects, illegal moves; organiser controls."""

from __future__ import annotations

import pytest
from client.kafana_client_live import LiveServer
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.local_runner import BotFactory, registry_bots, run_local
from kafana.competitions.model import Ending
from kafana.competitions.policy import Action, FaultPolicy, Reason
from kafana.competitions.tournament import EventConfig, EventError, Kind, Status, Tournament
from kafana.competitions.verify import verify
from kafana_client import AsyncClient

from .helpers import CrashingBot, IllegalBot, SlowBot, with_special

BOTS = {"fast": "greedy", "slow": "greedy"}


async def _on_server(
    server: LiveServer, policy: FaultPolicy, factory: BotFactory, name: str = "p", seed: int = 5
) -> Tournament:
    """One game between "fast" and "slow" (as `factory` makes them) on the server."""
    config = EventConfig(name, Kind.ROUND_ROBIN, ("fast", "slow"), chosen_seed=seed, target=31,
                         policy=policy)  # fmt: skip
    event = Tournament(config)
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, factory)
    return event


async def _one_game(
    server: LiveServer, policy: FaultPolicy, slow_moves: int, seconds: float = 2.5
) -> Tournament:
    factory = with_special(BOTS, {"slow": SlowBot}, seconds=seconds, slow_moves=slow_moves)
    return await _on_server(server, policy, factory)


async def test_server_timeout_forfeits_the_match_with_its_reason(server: LiveServer) -> None:
    policy = FaultPolicy(move_ms=1000, on_timeout=Action.FORFEIT_MATCH)
    event = await _one_game(server, policy, slow_moves=99)
    (result,) = event.results.values()
    slow_seat = event.rounds[0][0].seats.index("slow")
    assert result.ending is Ending.FORFEIT and result.winner == 1 - slow_seat
    (fault,) = result.faults
    assert (fault.seat, fault.reason, fault.action) == (
        slow_seat,
        Reason.TIMEOUT,
        Action.FORFEIT_MATCH,
    )
    fair = FairRecord.from_text(result.record)
    assert fair.get("fault") == fault.code() and fair.get("ending").startswith("forfeit")
    assert not verify(fair).finished  # the moves so far still check out
    assert event.standings()[0].entrant == "fast"


async def test_server_timeout_default_move_then_play_on(server: LiveServer) -> None:
    policy = FaultPolicy(move_ms=1500, on_timeout=Action.DEFAULT_MOVE)
    event = await _one_game(server, policy, slow_moves=1, seconds=2.0)
    (result,) = event.results.values()
    slow_seat = event.rounds[0][0].seats.index("slow")
    assert result.ending is Ending.SCORE and max(result.scores) >= 31
    # the slow seat's first move (and, on a loaded machine, maybe its next) timed out
    assert result.faults and result.faults[0].move_no <= 1
    for fault in result.faults:
        assert (fault.seat, fault.reason, fault.action) == (
            slow_seat,
            Reason.TIMEOUT,
            Action.DEFAULT_MOVE,
        )
    assert "fault" in dict(FairRecord.from_text(result.record).meta)
    assert verify(FairRecord.from_text(result.record)).finished


def _local(special: dict[str, type], policy: FaultPolicy, **options: float) -> Tournament:
    config = EventConfig("l", Kind.ROUND_ROBIN, ("fast", "slow"), chosen_seed=6, target=31,
                         policy=policy)  # fmt: skip
    return run_local(Tournament(config), with_special(BOTS, special, **options))


def test_local_timeout_policies() -> None:
    forfeit = _local(
        {"slow": SlowBot},
        FaultPolicy(move_ms=250, on_timeout=Action.FORFEIT_MATCH),
        seconds=0.5,
        slow_moves=1,
    )
    (result,) = forfeit.results.values()
    assert result.ending is Ending.FORFEIT and result.faults[0].reason is Reason.TIMEOUT
    hand = _local(
        {"slow": SlowBot},
        FaultPolicy(move_ms=250, on_timeout=Action.FORFEIT_HAND),
        seconds=0.5,
        slow_moves=1,
    )
    (result,) = hand.results.values()
    assert result.ending is Ending.SCORE
    assert [f.action for f in result.faults] == [Action.FORFEIT_HAND]
    assert verify(FairRecord.from_text(result.record)).finished


def test_illegal_moves_and_disconnects() -> None:
    illegal = _local({"slow": IllegalBot}, FaultPolicy(illegal_limit=3))
    (result,) = illegal.results.values()
    assert result.ending is Ending.FORFEIT
    assert result.faults[0].reason is Reason.ILLEGAL_MOVE
    crash = _local({"slow": CrashingBot}, FaultPolicy(on_disconnect=Action.DEFAULT_MOVE))
    (result,) = crash.results.values()
    assert result.ending is Ending.SCORE  # played on with default moves
    assert {f.reason for f in result.faults} == {Reason.DISCONNECT}
    assert len(result.faults) > 5  # every one of its turns is recorded


def test_organiser_pause_adjudicate_end() -> None:
    names = ("a", "b", "c", "d")
    event = Tournament(EventConfig("o", Kind.ROUND_ROBIN, names, chosen_seed=1, target=31))
    first = event.next_round()
    event.pause()
    assert event.status is Status.PAUSED
    with pytest.raises(EventError):
        event.next_round()
    adjudicated = event.adjudicate(first[0].game_id, winner=1, note="both agreed")
    assert adjudicated.ending is Ending.ADJUDICATED
    assert adjudicated.faults[0].reason is Reason.ADJUDICATED
    event.resume()
    run_local(event, registry_bots(dict.fromkeys(names, "greedy")))
    assert event.finished
    table = {row.entrant: row for row in event.standings()}
    assert table[first[0].seats[1]].wins >= 1
    ended = Tournament(EventConfig("e", Kind.SWISS, names, chosen_seed=1, target=31))
    games = ended.next_round()
    ended.adjudicate(games[0].game_id, winner=None, note="draw agreed")
    results = ended.end(note="venue closed")
    assert ended.status is Status.ENDED and ended.finished
    assert [r.ending for r in results] == [Ending.NOT_PLAYED]
    assert results[0].faults[0].reason is Reason.EVENT_ENDED
    assert sum(row.points for row in ended.standings()) == 1.0  # only the adjudicated draw
    with pytest.raises(EventError):
        ended.pause()


async def test_server_disconnect_past_grace_forfeits(server: LiveServer) -> None:
    policy = FaultPolicy(disconnect_grace_ms=300, on_disconnect=Action.FORFEIT_MATCH)
    event = await _on_server(server, policy, with_special(BOTS, {"slow": CrashingBot}), "d", 7)
    (result,) = event.results.values()
    crashed = event.rounds[0][0].seats.index("slow")
    assert result.ending is Ending.FORFEIT and result.winner == 1 - crashed
    (fault,) = result.faults
    assert (fault.seat, fault.reason, fault.action) == (
        crashed,
        Reason.DISCONNECT,
        Action.FORFEIT_MATCH,
    )
    assert "bot process went away" in fault.detail
    assert fault.move_no <= 1  # it crashed at its first decision and left then
    assert FairRecord.from_text(result.record).get("fault") == fault.code()
