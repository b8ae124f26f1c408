"""Organiser controls from another process's point of view: the event store the runner reads."""

from __future__ import annotations

import asyncio
from typing import Any

from click.testing import CliRunner
from client.kafana_client_live import LiveServer
from kafana.cli import main
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.control import EventControl
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.local_runner import registry_bots
from kafana.competitions.model import Ending
from kafana.competitions.policy import Reason
from kafana.competitions.tournament import EventConfig, Kind, Status, Tournament
from kafana_client import AsyncClient

NAMES = ("a", "b", "c", "d")


async def _until(condition: object, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def test_pause_adjudicate_and_end_a_running_event(
    server: LiveServer, events: RedisEvents, redis_url: str
) -> None:
    event = Tournament(EventConfig("ctl", Kind.SWISS, NAMES, rounds=3, chosen_seed=2, target=101))
    control = EventControl(events, "ctl")
    bots = registry_bots(dict.fromkeys(NAMES, "greedy"))
    async with AsyncClient.connect(server.target) as client:
        runner = asyncio.create_task(
            run_on_server(client, event, bots, parallel=1, control=control, poll=0.05)
        )
        try:
            await _drive(event, control, runner, redis_url)
        finally:
            runner.cancel()
    assert event.status is Status.ENDED and event.finished
    assert len(event.rounds) == 2  # round 3 never started
    endings = {r.ending for r in event.results.values()}
    assert Ending.ADJUDICATED in endings
    not_played = [r for r in event.results.values() if r.ending is Ending.NOT_PLAYED]
    for result in not_played:
        assert {f.reason for f in result.faults} == {Reason.EVENT_ENDED}
        assert result.note == "out of time"
    assert len(event.results) == 4  # every game of both rounds has a result


async def _drive(
    event: Tournament, control: EventControl, runner: asyncio.Task[Tournament], redis_url: str
) -> None:
    await _until(lambda: len(event.results) >= 1)
    # from the command line, as an organiser in another process would
    args = ["tournament", "pause", "ctl", "--redis", redis_url]
    cli = await asyncio.to_thread(CliRunner().invoke, main, args)
    assert cli.exit_code == 0, cli.output
    await _until(lambda: event.status is Status.PAUSED)
    await asyncio.sleep(1.0)  # the running game may finish; no other starts
    started = len(event.results)
    assert started <= 2 and len(event.rounds) == 1
    await control.resume()
    await _until(lambda: len(event.rounds) == 2)
    game = event.rounds[1][0].game_id
    await control.adjudicate(game, 1, "seat 0 was abusive")  # stopped while it runs
    await _until(lambda: game in event.results)
    assert event.results[game].ending is Ending.ADJUDICATED
    assert event.results[game].winner == 1
    await control.end("out of time")
    await asyncio.wait_for(runner, 60)


async def test_a_game_adjudicated_before_its_seats_join_is_not_played(
    server: LiveServer, events: RedisEvents
) -> None:
    """The organiser closes the table between its creation and the joins: the runner goes on."""
    event = Tournament(EventConfig("early", Kind.SWISS, NAMES, rounds=1, chosen_seed=3, target=51))
    control = EventControl(events, "early")
    bots = registry_bots(dict.fromkeys(NAMES, "greedy"))
    closed = asyncio.Event()
    async with AsyncClient.connect(server.target) as client:
        join, close_table = client.join, client.close_table
        first: list[str] = []

        async def late_join(table_id: str, **kwargs: Any) -> Any:
            if kwargs.get("seat") == 1 and not first:
                first.append(table_id)
                await control.adjudicate(event.rounds[0][0].game_id, 0, "decided early")
                await asyncio.wait_for(closed.wait(), 30)  # the table is closed: seat 1 is not
            return await join(table_id, **kwargs)

        async def noted_close(*args: Any, **kwargs: Any) -> int:
            try:
                return await close_table(*args, **kwargs)
            finally:
                closed.set()

        client.join = late_join  # type: ignore[method-assign]
        client.close_table = noted_close  # type: ignore[method-assign]
        played = run_on_server(client, event, bots, parallel=1, control=control, poll=0.05)
        await asyncio.wait_for(played, 120)
    assert closed.is_set() and event.finished
    decided = event.results[event.rounds[0][0].game_id]
    assert decided.ending is Ending.ADJUDICATED and decided.winner == 0
    assert len(event.results) == 2  # the other game was played
