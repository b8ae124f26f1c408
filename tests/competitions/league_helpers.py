"""Helpers of the league tests: servers with leagues on a private Redis, accounts, a player."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from kafana.competitions.server import create_server
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.service.server import KafanaServer
from kafana.service.settings import Settings
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import leagues_pb2_grpc, rules_pb2, service_pb2_grpc, state_pb2
from kafana_bots import registry
from kafana_client import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.convert import rules_of
from kafana_client.tac import tac_rules_of
from kafana_client.tournaments import enum_value

Metadata = tuple[tuple[str, str], ...]
FINISHED = state_pb2.TABLE_STATUS_FINISHED


def bearer(key: str) -> Metadata:
    """The call metadata that carries `key`."""
    return (("authorization", f"Bearer {key}"),)


@dataclass
class Node:
    """One server process (in this test process): its server, channel and stubs."""

    server: KafanaServer
    channel: grpc.aio.Channel
    leagues: leagues_pb2_grpc.LeaguesServiceStub
    kafana: service_pb2_grpc.KafanaServiceStub


@dataclass
class Site:
    """Servers on one Redis in required mode, and the accounts' keys by name."""

    nodes: list[Node]
    accounts: RedisAccounts
    keys: dict[str, Metadata] = field(default_factory=dict)

    async def account(self, name: str, role: str = "player") -> Metadata:
        """A new account's key metadata."""
        key = new_key()
        assert await self.accounts.create(Account(name, role, now_ms()), key_hash(key))
        self.keys[name] = bearer(key)
        return self.keys[name]


@contextlib.asynccontextmanager
async def site(redis_url: str, count: int = 1, **options: Any) -> AsyncIterator[Site]:
    """`count` servers with leagues on the private Redis (each its own store, as processes)."""
    stores: list[RedisStore] = []
    nodes: list[Node] = []
    try:
        for _ in range(count):
            store = RedisStore.from_url(redis_url)
            stores.append(store)
            settings = Settings(clock_tick=0.05, auth=AuthPolicy(mode=REQUIRED), **options)
            server = create_server(store, settings)
            await server.start()
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
            nodes.append(
                Node(
                    server,
                    channel,
                    leagues_pb2_grpc.LeaguesServiceStub(channel),
                    service_pb2_grpc.KafanaServiceStub(channel),
                )
            )
        yield Site(nodes, RedisAccounts(stores[0].client))
    finally:
        for node in nodes:
            await node.channel.close()
            await asyncio.wait_for(node.server.stop(0.5), 20)
        for store in stores:
            await store.close()


class Tickets:
    """A player's WatchTickets stream, read in the background."""

    def __init__(self, node: Node, league: str, key: Metadata) -> None:
        self.call = node.leagues.WatchTickets(pb.WatchTicketsRequest(league=league), metadata=key)
        self.updates: list[pb.TicketUpdate] = []
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for update in self.call:
                self.updates.append(update)
                self.changed.set()

    async def next(self, kind: str, after: int = 0, timeout: float = 30.0) -> pb.TicketUpdate:
        """The first update of `kind` ("ticket", "settled") at index `after` or later."""
        async with asyncio.timeout(timeout):
            while True:
                for update in self.updates[after:]:
                    if update.WhichOneof("update") == kind:
                        return update
                self.changed.clear()
                await self.changed.wait()

    def of(self, kind: str) -> list[pb.TicketUpdate]:
        """Every update of `kind` so far."""
        return [u for u in self.updates if u.WhichOneof("update") == kind]

    def close(self) -> None:
        """Stop reading."""
        self.call.cancel()
        self.task.cancel()


async def play_out(node: Node, ticket: pb.Ticket, key: Metadata, bot: str = "greedy") -> None:
    """Play the ticket's seat with `bot` (from the registry) until the match is over (the
    SDK, with the player's key)."""
    target = f"127.0.0.1:{node.server.port}"
    async with AsyncClient.connect(target, key=key[0][1].split(" ", 1)[1]) as client:
        seat = AsyncSeat(client, ticket.table_id, ticket.seat, ticket.seat_token)
        info = await client.get_table(ticket.table_id)
        tac_table = info.rules.game == rules_pb2.GAME_TAC
        rules = tac_rules_of(info) if tac_table else rules_of(info)
        bot = registry.create(bot, seat=ticket.seat, rules=rules, rng=random.Random(1))
        await run_bot(seat, bot)


async def create_league(node: Node, key: Metadata, name: str, **spec: int | str) -> pb.LeagueInfo:
    """A league with a tiny target and short clock unless told otherwise."""
    chosen: dict[str, int | str] = {"target": 11, "move_ms": 2000, "join_deadline_ms": 3000}
    chosen.update(spec)
    if isinstance(chosen.get("game"), str):  # a name: its enum value
        chosen["game"] = enum_value(rules_pb2.Game, "GAME_", str(chosen["game"]))
    if isinstance(chosen.get("preset"), str):
        chosen["preset"] = enum_value(
            rules_pb2.TablicPreset, "TABLIC_PRESET_", str(chosen["preset"])
        )
    request = pb.CreateLeagueRequest(league=name, spec=pb.LeagueSpec(**chosen))  # type: ignore[arg-type]
    result: pb.LeagueInfo = await node.leagues.CreateLeague(request, metadata=key)
    return result
