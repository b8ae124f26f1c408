"""Hosted events apply their fault policy as written, on `kafana serve` and Redis.

A remote bot that raises: its traceback printed by `play_entry`, its seat forfeited after the
grace (`on_disconnect=forfeit_match`). An illegal-move spammer: forfeited with reason
`illegal_move`. A no-show: forfeited with reason `no_show`; nobody showing up: the game is not
played. A built-in bot that raises: logged, and left to the table's policy.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence

import pytest
from kafana.competitions.hosted.bot_seat import bot_seat
from kafana.competitions.policy import Action, FaultPolicy, Reason
from kafana.competitions.table_results import clock_spec, table_faults
from kafana.games import tablic
from kafana.games.tablic import Move, View
from kafana.service import convert
from kafana.service.clock import ClockSweeper
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import events_pb2, rules_pb2, state_pb2
from kafana_bots import registry
from kafana_bots.greedy import GreedyBot
from kafana_client import AsyncClient, AsyncSeat
from kafana_client.aio import LegalMoves
from kafana_client.errors import RefusedMoveError
from kafana_client.seat_loop import Decision, Hooks, follow_seat
from kafana_client.tournaments import Tournaments, play_entry

from .helpers import CrashingBot
from .hosted_helpers import Served, games, until


class Broken(Hooks):
    """A bot whose author made a mistake: it raises at its first decision."""

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        raise RuntimeError("my bot is broken")


class Spammer(Hooks):
    """Sends a move that is never legal, and again when it is refused."""

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        return "AC:2C+3C+4C+5C"

    def refused(self, error: RefusedMoveError) -> bool:
        return True


async def event(
    events: Tournaments, name: str, remote: tuple[str, ...], bot: bool = True, **policy: object
) -> tuple[str, dict[str, str]]:
    """A started two-entrant event: a built-in greedy (with `bot`) and the `remote` entrants;
    its id and the remote entry tokens."""
    made = await events.create(name, "round_robin", target=11, **policy)  # type: ignore[arg-type]
    if bot:
        await events.enter(made.event_id, "greedy", bot="greedy")
    tokens = {}
    for entrant in remote:
        tokens[entrant] = (await events.enter(made.event_id, entrant)).token
    await events.start(made.event_id, made.organiser_token)
    return made.event_id, tokens


def player(hooks: Hooks):  # type: ignore[no-untyped-def]
    """A `play_entry` player that follows each seat with `hooks`."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        return await follow_seat(seat, hooks)

    return play


async def finished_game(events: Tournaments, event_id: str) -> pb.GameInfo:
    """The event's one game, once the event is over."""

    async def get() -> pb.EventInfo:
        return await events.get(event_id)

    info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=60)
    (game,) = games(info)
    return game


async def test_hosted_events_apply_their_fault_policy(
    hosted: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="kafana_client.tournaments")
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        # a grace a loaded machine outlasts: at 700 ms (load 10-13) the slow seat was forfeited
        # as absent before its bot's first decision, so no error was ever logged (2 CI runs)
        dead, dead_tokens = await event(
            events, "dead", ("broken",), disconnect_grace_ms=3000, on_disconnect="forfeit_match"
        )
        spam, spam_tokens = await event(events, "spam", ("spammer",), illegal_limit=3)
        absent, _ = await event(events, "absent", ("absent",), no_show_ms=1500)
        nobody, _ = await event(events, "nobody", ("x", "y"), bot=False, no_show_ms=1000)
        entries = [
            asyncio.create_task(play_entry(client, event_id, tokens[name], player(hooks)))
            for event_id, tokens, name, hooks in (
                (dead, dead_tokens, "broken", Broken()),
                (spam, spam_tokens, "spammer", Spammer()),
            )
        ]
        try:
            broken = await finished_game(events, dead)
            spammed = await finished_game(events, spam)
            missing = await finished_game(events, absent)
            empty = await finished_game(events, nobody)
        finally:
            for task in entries:
                task.cancel()
            await asyncio.gather(*entries, return_exceptions=True)

    seat = list(broken.seats).index("broken")
    assert broken.ending == pb.GAME_ENDING_FORFEIT and broken.winner == 1 - seat
    assert [f.code.split("@")[0] for f in broken.faults] == [
        f"seat{seat}:disconnect->forfeit_match"
    ]
    # Once per time the entry's loop met the game (twice when a slow machine resumed it).
    logged = [r for r in caplog.records if r.name == "kafana_client.tournaments"]
    assert 1 <= len(logged) <= 2
    for record in logged:
        assert record.exc_info is not None and "my bot is broken" in str(record.exc_info[1])
    assert "Traceback" in caplog.text and "in decide" in caplog.text  # the author's own frame

    seat = list(spammed.seats).index("spammer")
    assert spammed.ending == pb.GAME_ENDING_FORFEIT and spammed.winner == 1 - seat
    assert [f.code.split("@")[0] for f in spammed.faults] == [
        f"seat{seat}:illegal_move->forfeit_match"
    ]

    seat = list(missing.seats).index("absent")
    assert missing.ending == pb.GAME_ENDING_FORFEIT and missing.winner == 1 - seat
    assert [f.code.split("@")[0] for f in missing.faults] == [f"seat{seat}:no_show->forfeit_match"]

    assert empty.ending == pb.GAME_ENDING_NOT_PLAYED and not empty.HasField("winner")
    assert sorted(f.code for f in empty.faults) == [
        "seat0:no_show->forfeit_match@0",
        "seat1:no_show->forfeit_match@0",
    ]


async def policy_table(
    domain: Tables, policy: FaultPolicy, target: int, seed: int, name: str
) -> tuple[str, list[str], tablic.Rules]:
    """A two-seat Tablić table whose clock enforces `policy`, both seats taken: its id, the
    seat tokens and its rules."""
    config = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(
            game=rules_pb2.GAME_TABLIC, players=2, tablic=rules_pb2.TablicRules(target=target)
        ),
        clock=clock_spec(policy),
        seed=seed,
        name=name,
    )
    table_id, _admin, _session = await domain.create(config)
    tokens = [(await domain.join(table_id, seat, f"p{seat}"))[1] for seat in range(2)]
    rules = (await domain.session(table_id)).match.rules
    assert isinstance(rules, tablic.Rules)
    return table_id, tokens, rules


async def test_a_built_in_bot_that_raises_is_left_to_the_tables_policy(
    tables: tuple[Tables, Feed], caplog: pytest.LogCaptureFixture
) -> None:
    domain, feed = tables
    policy = FaultPolicy(disconnect_grace_ms=600, on_disconnect=Action.FORFEIT_MATCH)
    table_id, tokens, rules = await policy_table(domain, policy, 11, 3, "crash")
    greedy = registry.create("greedy", seat=1, rules=rules, rng=random.Random(3))
    notes: list = []  # type: ignore[type-arg]
    sweeper = ClockSweeper(domain, tick=0.05)
    sweeper.start()
    try:
        async with asyncio.timeout(20):
            await asyncio.gather(
                bot_seat(
                    domain,
                    feed,
                    table_id,
                    0,
                    tokens[0],
                    CrashingBot(0, rules, random.Random(0)),
                    policy,
                    notes,
                ),
                bot_seat(domain, feed, table_id, 1, tokens[1], greedy, policy, notes),
            )
    finally:
        await sweeper.stop()
    answer = convert.record(await domain.record(table_id))
    last = answer.events[-1]
    assert (last.kind, last.seat) == (events_pb2.EVENT_KIND_FORFEIT, 0)
    assert last.reason == state_pb2.EVENT_REASON_DISCONNECT
    (fault,) = table_faults(list(answer.events), notes)
    assert (fault.seat, fault.reason, fault.action) == (0, Reason.DISCONNECT, Action.FORFEIT_MATCH)
    assert fault.detail == "ConnectionError: bot process went away"
    assert "the bot failed" in caplog.text and "bot process went away" in caplog.text


async def test_a_built_in_seat_outlasts_a_takeover_of_its_director(
    tables: tuple[Tables, Feed],
) -> None:
    # A director that dies mid-game leaves its built-in seats vouched for as long as a takeover
    # takes (`vouch_ms`): the table's disconnect check must not forfeit them meanwhile, and the
    # director that takes over plays the game on to its score.
    domain, feed = tables
    policy = FaultPolicy(disconnect_grace_ms=300, on_disconnect=Action.FORFEIT_MATCH)
    table_id, tokens, rules = await policy_table(domain, policy, 101, 5, "takeover")

    loop, midgame = asyncio.get_running_loop(), asyncio.Event()

    class Counted(GreedyBot):
        """Greedy; says so at its 15th decision (the crash comes then, mid-match)."""

        decisions = 0

        def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
            Counted.decisions += 1
            if Counted.decisions == 15:
                loop.call_soon_threadsafe(midgame.set)
            return super().choose(view, legal_moves)

    def seats(vouch_ms: int) -> list[asyncio.Task[None]]:
        bots = [Counted(s, rules, random.Random(s)) for s in (0, 1)]
        return [
            asyncio.create_task(
                bot_seat(domain, feed, table_id, s, tokens[s], bots[s], policy, [], vouch_ms)
            )
            for s in (0, 1)
        ]

    sweeper = ClockSweeper(domain, tick=0.05)
    sweeper.start()
    try:
        first = seats(vouch_ms=4_000)
        async with asyncio.timeout(20):
            await midgame.wait()  # some moves played
        for task in first:  # the director's process is gone: no goodbye, no failure noted
            task.cancel()
        await asyncio.gather(*first, return_exceptions=True)
        stopped = (await domain.session(table_id)).seq
        await asyncio.sleep(2.6)  # past the grace and two throttle periods, within the vouch
        paused = await domain.session(table_id)
        assert paused.status != "finished", paused.ending
        async with asyncio.timeout(20):
            await asyncio.gather(*seats(vouch_ms=4_000))  # the next director plays on
    finally:
        await sweeper.stop()
    answer = convert.record(await domain.record(table_id))
    assert all(e.kind != events_pb2.EVENT_KIND_FORFEIT for e in answer.events)
    over = await domain.session(table_id)
    assert over.match.is_over and over.ending is None and stopped < over.seq
