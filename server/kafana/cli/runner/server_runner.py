"""Play a tournament through a running Kafana server: one table per game, bots via the SDK.

For each game the runner creates a table with the game's seed (and decks) and the event's
fault policy as its clock (`table_results.game_table_config`, as the hosted director does),
seats the entrants' bots with `kafana_client.bots.run_bot` (each deciding on a thread of its
own), waits for the end, and fetches the record. The table applies the whole policy (clock,
disconnects, illegal moves); a bot whose task fails is noted and its seat left to the table
(`seats.gone`). Every fault found in the table's events is recorded on the game with its
reason code. Tablić and Tač events alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from kafana_bots import BotError
from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.errors import RpcError

from kafana.cli.runner.remote_seat import remote_seat
from kafana.cli.runner.seats import gone
from kafana.competitions.control import EventControl
from kafana.competitions.local_runner import BotFactory
from kafana.competitions.model import GameResult, GameSpec
from kafana.competitions.policy import Fault, FaultPolicy
from kafana.competitions.table_results import game_result, game_table_config
from kafana.competitions.tournament import Status, Tournament
from kafana.tasks import cancel_and_wait
from kafana.v1 import service_pb2


async def seat_task(seat: AsyncSeat, bot: Any, policy: FaultPolicy, notes: list[Fault]) -> None:
    """Play `seat` with `bot` (on a thread of its own); if the bot fails, note it and leave the
    seat to the table's policy until the table ends."""
    try:
        await run_bot(seat, bot, threaded=True)
        return
    except Exception as exc:  # the bot or its connection failed: its stream is closed
        failed = exc.__cause__ if isinstance(exc, BotError) and exc.__cause__ else exc
        detail = f"{type(failed).__name__}: {failed}"  # what the bot raised, if it raised
    await gone(seat.client, seat.table_id, seat.seat, True, detail, policy, notes)


async def play_game(
    client: AsyncClient,
    tournament: Tournament,
    spec: GameSpec,
    factory: BotFactory,
    remote: Mapping[str, str] | None = None,
    on_table: Callable[[str, tuple[str, str]], None] | None = None,
) -> GameResult:
    """Play one game on the server; the result carries the fair record and its faults.

    Entrants named in `remote` (entrant -> bot spec) play through their own process, the
    remote bot runner (`remote_seat`); the others through `factory`, each bot deciding on a
    thread of its own (`kafana_client.seat_loop.Worker`): a slow or busy bot cannot stall the
    other seats' clocks.
    """
    config = tournament.config
    seed = tournament.seed_of(spec.game_id)
    created = await client.create_table(game_table_config(spec, seed, tournament))
    table_id = created.table_id
    if on_table is not None:
        on_table(spec.game_id, (table_id, created.admin_token))
    rules = config.rules
    notes: list[Fault] = []
    tasks: list[Coroutine[Any, Any, None]] = []
    for index, name in enumerate(spec.seats):
        if remote and name in remote:
            tasks.append(
                remote_seat(
                    client,
                    table_id,
                    created.admin_token,
                    index,
                    name,
                    remote[name],
                    seed,
                    config.policy,
                    notes,
                )
            )
            continue
        try:
            seat = await client.join(table_id, seat=index, name=name)
        except BaseException:
            for task in tasks:
                task.close()  # the seats taken never play: the table was closed under them
            raise
        bot = factory(name, index, rules, random.Random(f"{seed}:{spec.game_id}:{index}"))
        tasks.append(seat_task(seat, bot, config.policy, notes))
    await asyncio.gather(*tasks)
    answer: service_pb2.GetRecordResponse = await client.record(table_id)
    return game_result(spec, seed, table_id, answer, tournament, notes)


async def run_on_server(
    client: AsyncClient,
    tournament: Tournament,
    factory: BotFactory,
    *,
    parallel: int = 4,
    on_result: Callable[[GameResult], None] | None = None,
    poll: float = 0.2,
    remote: Mapping[str, str] | None = None,
    control: EventControl | None = None,
) -> Tournament:
    """Play every round on the server (up to `parallel` games at once) until finished.

    Each bot decides on a thread of its own; entrants in `remote` (entrant -> bot spec) run
    as separate processes. While the event is paused no new game starts. With `control`, an
    organiser's pause, resume, end and adjudications (from any process) are read every `poll`
    seconds; a game adjudicated or ended while it runs has its table closed.
    """
    limit = asyncio.Semaphore(parallel)
    running: dict[str, tuple[str, str]] = {}  # game -> (table id, admin token)

    async def one(spec: GameSpec) -> None:
        async with limit:
            while tournament.status is Status.PAUSED:
                await asyncio.sleep(poll)
            if spec.game_id in tournament.results:
                return  # adjudicated or ended meanwhile
            try:
                result = await play_game(
                    client, tournament, spec, factory, remote, running.__setitem__
                )
            except RpcError:
                if spec.game_id in tournament.results:
                    return  # decided as its seats joined: the organiser closed the table
                raise
            finally:
                running.pop(spec.game_id, None)
            if spec.game_id not in tournament.results:
                tournament.record(result)
                if on_result is not None:
                    on_result(result)

    async def organiser() -> None:
        assert control is not None
        while True:
            for decided in await control.apply(tournament):
                table = running.pop(decided.game_id, None)
                if table is not None:
                    with contextlib.suppress(RpcError):
                        await client.close_table(*table)
            await asyncio.sleep(poll)

    watcher = asyncio.create_task(organiser()) if control is not None else None
    try:
        if control is not None:
            if not (await control.store.control(control.event))[0]:
                await control.resume("started")  # organisers' commands can now find the event
            await control.apply(tournament)
        while not tournament.finished:
            if tournament.status is Status.PAUSED:
                await asyncio.sleep(poll)
                continue
            games = tournament.pending() or tournament.next_round()
            await asyncio.gather(*(one(spec) for spec in games))
    finally:
        await cancel_and_wait([watcher])
    return tournament
