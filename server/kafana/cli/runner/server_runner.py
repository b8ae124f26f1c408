"""Play a tournament through a running Kafana server: one table per game, bots via the SDK.

For each game the runner creates a table with the game's seed (and decks), seats the
entrants' bots with `kafana_client.bots.run_bot`, waits for the end, and fetches the record.
The server's clock enforces `move_ms` (its default move, or a forfeit); a bot whose task
fails is a disconnected seat, handled after the policy's grace period. Every fault found in
the table's events is recorded on the game with its reason code.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from kafana_bots import Bot
from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.connection import ConnectOptions
from kafana_client.errors import RpcError

from kafana.cli.runner.remote_seat import remote_seat
from kafana.cli.runner.seat_loops import SeatLoops
from kafana.cli.runner.seats import disconnected
from kafana.competitions.control import EventControl
from kafana.competitions.local_runner import BotFactory
from kafana.competitions.model import GameResult, GameSpec
from kafana.competitions.policy import Fault, FaultPolicy
from kafana.competitions.table_results import game_result, game_table_config
from kafana.competitions.tournament import Status, Tournament
from kafana.errors import InvalidInputError
from kafana.games.tablic import Rules
from kafana.tasks import cancel_and_wait
from kafana.v1 import service_pb2


async def seat_task(
    seat: AsyncSeat, bot: Bot, policy: FaultPolicy, rules: Rules, notes: list[Fault]
) -> None:
    """Play `seat` with `bot`; if the bot fails, apply the disconnect policy (noted in `notes`)."""
    try:
        await run_bot(seat, bot)
        return
    except Exception as exc:  # the bot or its connection failed
        detail = f"{type(exc).__name__}: {exc}"
    await disconnected(seat.client, seat.table_id, seat.seat, seat, detail, policy, rules, notes)


async def isolated_seat(
    options: ConnectOptions,
    joined: AsyncSeat,
    bot: Bot,
    policy: FaultPolicy,
    rules: Rules,
    notes: list[Fault],
) -> None:
    """Run one seat on its own loop with its own connection."""
    async with AsyncClient(options) as client:
        seat = AsyncSeat(client, joined.table_id, joined.seat, joined.token, joined.name)
        await seat_task(seat, bot, policy, rules, notes)


async def play_game(
    client: AsyncClient,
    tournament: Tournament,
    spec: GameSpec,
    factory: BotFactory,
    loops: SeatLoops | None = None,
    remote: Mapping[str, str] | None = None,
    on_table: Callable[[str, tuple[str, str]], None] | None = None,
) -> GameResult:
    """Play one game on the server; the result carries the fair record and its faults.

    Entrants named in `remote` (entrant -> bot spec) play through their own process, the
    remote bot runner (`remote_seat`); the others through `factory`.

    With `loops`, every seat's bot runs on a loop in another thread, with its own connection,
    as separate processes would: a slow or busy bot cannot stall the other seats' clocks.
    """
    config = tournament.config
    seed = tournament.seed_of(spec.game_id)
    created = await client.create_table(game_table_config(spec, seed, tournament))
    table_id = created.table_id
    if on_table is not None:
        on_table(spec.game_id, (table_id, created.admin_token))
    rules = config.rules
    if not isinstance(rules, Rules):
        raise InvalidInputError("tournament run --server plays Tablić events (Tač: in-process)")
    notes: list[Fault] = []
    tasks: list[Coroutine[Any, Any, None]] = []
    inner: list[Coroutine[Any, Any, None]] = []  # the seats' own, run by `loops`
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
                    rules,
                    notes,
                )
            )
            continue
        try:
            seat = await client.join(table_id, seat=index, name=name)
        except BaseException:
            for task in tasks + inner:
                task.close()  # the seats taken never play: the table was closed under them
            raise
        bot = factory(name, index, rules, random.Random(f"{seed}:{spec.game_id}:{index}"))
        if loops is None:
            tasks.append(seat_task(seat, bot, config.policy, rules, notes))
        else:
            inner.append(isolated_seat(client.options, seat, bot, config.policy, rules, notes))
            tasks.append(loops.run(inner[-1]))
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
    isolate: bool = True,
    remote: Mapping[str, str] | None = None,
    control: EventControl | None = None,
) -> Tournament:
    """Play every round on the server (up to `parallel` games at once) until finished.

    With `isolate` (the default) each bot runs in its own thread, loop and connection;
    entrants in `remote` (entrant -> bot spec) run as separate processes. While the event is
    paused no new game starts. With `control`, an organiser's pause, resume, end and
    adjudications (from any process) are read every `poll` seconds; a game adjudicated or
    ended while it runs has its table closed.
    """
    limit = asyncio.Semaphore(parallel)
    loops = SeatLoops(2 * parallel) if isolate else None
    running: dict[str, tuple[str, str]] = {}  # game -> (table id, admin token)

    async def one(spec: GameSpec) -> None:
        async with limit:
            while tournament.status is Status.PAUSED:
                await asyncio.sleep(poll)
            if spec.game_id in tournament.results:
                return  # adjudicated or ended meanwhile
            try:
                result = await play_game(
                    client, tournament, spec, factory, loops, remote, running.__setitem__
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
        if loops is not None:
            loops.close()
    return tournament
