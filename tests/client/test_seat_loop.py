"""The seat loop: bots resume after a server restart, told each event once, as in-process."""

from __future__ import annotations

import asyncio
import random

from kafana.games import tablic
from kafana.v1 import events_pb2, state_pb2
from kafana_bots import Event, registry
from kafana_bots.play import play
from kafana_client import AsyncClient, LegalMoves, Retry, rules_of, table_config
from kafana_client.bots import run_bot
from kafana_client.seat_loop import Decision, Hooks, SeatLoop

from .kafana_client_live import LiveServer

SEED = 21
BOTS = ("greedy", "heuristic")
FRAGILE = Retry(attempts=1, stream_attempts=1, backoff=0.05)
"""No retries inside the client: every dropped call or stream reaches the seat loop."""


class Recording:
    """Wraps a bot to keep the events it is told."""

    def __init__(self, name: str, seat: int, rules: tablic.Rules) -> None:
        self.bot = registry.create(name, seat=seat, rules=rules, rng=random.Random(seat))
        self.events: list[Event] = []
        self.bot.observe = self.events.append  # type: ignore[method-assign, assignment]


async def _wait_seq(client: AsyncClient, table_id: str, seq: int) -> None:
    while (await client.get_state(table_id)).seq < seq:
        await asyncio.sleep(0.02)


async def test_bots_resume_after_a_server_restart_told_each_event_once(server: LiveServer) -> None:
    async with (
        AsyncClient.connect(server.target) as admin,
        AsyncClient.connect(server.target, retry=FRAGILE) as client,
    ):
        table = await admin.create_table(table_config(seed=SEED, target=1))
        rules = rules_of(table.info)
        seats = [await client.join(table.table_id, name=name) for name in BOTS]
        remote = [Recording(name, s.seat, rules) for name, s in zip(BOTS, seats, strict=True)]
        games = asyncio.gather(
            *(
                run_bot(s, r.bot, delay=0.01, poll=0.2, reconnects=30)
                for s, r in zip(seats, remote, strict=True)
            )
        )
        await asyncio.wait_for(_wait_seq(admin, table.table_id, 12), 30)
        await asyncio.to_thread(server.restart)
        finals = await asyncio.wait_for(games, 60)
        record = await admin.record(table.table_id)

    assert all(f.info.status == state_pb2.TABLE_STATUS_FINISHED for f in finals)
    local = [Recording(name, seat, rules) for seat, name in enumerate(BOTS)]
    final = play(tablic.new_match(rules, seed=SEED), [r.bot for r in local])
    assert tablic.MatchRecord.from_text(record.record).moves == final.record().moves
    for far, near in zip(remote, local, strict=True):
        assert far.events == near.events


class Counting(Hooks):
    """Plays the first legal move; counts the events it is told."""

    def __init__(self) -> None:
        self.seqs: list[int] = []

    def observe(self, event: events_pb2.Event, before: state_pb2.TableState | None) -> None:
        self.seqs.append(int(event.seq))

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        return legal.moves[0].text


async def test_a_turn_announced_before_the_break_is_still_played(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=3, target=1))
        me = await client.join(table.table_id, name="me")
        other = await client.join(table.table_id, name="other")
        # The loop was told every event up to now (seat 0 to move) but never acted on it,
        # as after a connection lost in the middle of a turn.
        hooks = Counting()
        loop = SeatLoop(me, hooks)
        state = await me.state()
        loop.last = state
        task = asyncio.create_task(loop.run())
        await asyncio.wait_for(_wait_seq(client, table.table_id, state.seq + 1), 10)
        assert (await other.legal_moves()).seq == state.seq + 1  # seat 0 played: seat 1 moves
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert hooks.seqs[0] == state.seq + 1  # nothing told twice


async def test_a_turn_the_match_ended_under_is_let_go(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=3, target=1))
        me = await client.join(table.table_id, name="me")
        other = await client.join(table.table_id, name="other")
        turn = await me.state()  # seat 0 to move
        await other.leave()  # a forfeit: the match is over before seat 0 asks for its moves
        hooks = Counting()
        await SeatLoop(me, hooks).turn(turn)  # no MatchOverRpcError: the feed tells the end
        final = await SeatLoop(me, hooks).run()
    assert final.info.status == state_pb2.TABLE_STATUS_FINISHED
    assert hooks.seqs[-1] == final.seq
