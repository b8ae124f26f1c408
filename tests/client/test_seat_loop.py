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


class PolledTurn(Hooks):
    """Leaves the feed's turns to the poll (a turn the feed did not announce), and while it
    decides there, another seat's forfeit arrives on the feed."""

    def __init__(self, other: object) -> None:
        self.other = other
        self.asked: dict[int, int] = {}
        self.deciding = False
        self.told_while_deciding: list[int] = []
        self.told: list[int] = []

    def observe(self, event: events_pb2.Event, before: state_pb2.TableState | None) -> None:
        self.told.append(int(event.seq))
        if self.deciding:
            self.told_while_deciding.append(int(event.seq))

    def may_act(self, state: state_pb2.TableState, seat: int) -> bool:
        self.asked[state.seq] = self.asked.get(state.seq, 0) + 1
        return self.asked[state.seq] > 1 and super().may_act(state, seat)

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        self.deciding = True
        try:
            await self.other.leave()  # type: ignore[attr-defined]
            await asyncio.sleep(0.3)  # the forfeit's event reaches the feed meanwhile
        finally:
            self.deciding = False
        return legal.moves[0].text


async def test_no_event_is_told_while_a_polled_turn_decides(server: LiveServer) -> None:
    """A bot's `observe` and its (threaded) `choose` must never overlap: the poll's turn and
    the feed take turns."""
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=3, target=1))
        me = await client.join(table.table_id, name="me")
        other = await client.join(table.table_id, name="other")
        hooks = PolledTurn(other)
        final = await asyncio.wait_for(SeatLoop(me, hooks, poll=0.05).run(), 20)
    assert final.info.status == state_pb2.TABLE_STATUS_FINISHED
    assert hooks.told[-1] == final.seq  # the forfeit was told
    assert hooks.told_while_deciding == []
