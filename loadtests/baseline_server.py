"""The least a gRPC + Redis move must do: the yardstick for Kafana's move path.

The same kafana.v1 Kafana service, minimally: CreateTable and JoinTable hand out ids and tokens
without looking at anything; PlayMove is one unary call running one Redis Lua script that
compares and bumps the table's sequence number and appends the move to a stream, nothing else
(no rules, no tokens checked, no state in the answer); Captures answers an empty list (the bare
cost of a unary gRPC call). Same grpc.aio server, same redis.asyncio client with a
BlockingConnectionPool as `kafana serve`, so a load run can report Kafana as a ratio of this.

    .venv/bin/python loadtests/baseline_server.py --redis redis://127.0.0.1:6380/0 --port 50061
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import signal
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.store.client import RedisClient, Script
from kafana.v1 import events_pb2, service_pb2, service_pb2_grpc, state_pb2
from redis.asyncio import BlockingConnectionPool, Redis

MOVE_LUA = (Path(__file__).resolve().parent / "baseline_move.lua").read_text()
"""KEYS: seq, events. ARGV: expected seq, move. The new seq, or -(current seq) - 1."""

Context = grpc.aio.ServicerContext[Any, Any]


class BaselineServicer(service_pb2_grpc.KafanaServiceServicer):  # type: ignore[misc, unused-ignore]
    """CreateTable, JoinTable, PlayMove and Captures at their barest."""

    def __init__(self, redis: Redis, lane: RedisClient | None = None) -> None:
        self._redis = redis
        self._move = redis.register_script(MOVE_LUA)
        # --lane: the script through Kafana's store client (kafana.store.client, pipelined
        # lanes) instead of redis-py's call, to compare Kafana with a baseline on the same client.
        self._lane = lane
        self._script = Script.of("move", MOVE_LUA)

    async def CreateTable(
        self, request: service_pb2.CreateTableRequest, context: Context
    ) -> service_pb2.CreateTableResponse:
        """A fresh id; nothing stored (a table's seq starts at 0 when absent)."""
        return service_pb2.CreateTableResponse(
            table_id=secrets.token_hex(8), admin_token=secrets.token_urlsafe(24)
        )

    async def JoinTable(
        self, request: service_pb2.JoinTableRequest, context: Context
    ) -> service_pb2.JoinTableResponse:
        """A token; the seat is whatever was asked (joins are not events here: seq stays 0)."""
        return service_pb2.JoinTableResponse(
            seat=request.seat,
            seat_token=secrets.token_urlsafe(24),
            state=state_pb2.TableState(seq=0),
        )

    async def PlayMove(
        self, request: service_pb2.PlayMoveRequest, context: Context
    ) -> service_pb2.PlayMoveResponse:
        """One Lua compare-and-set of the sequence number plus a stream append."""
        tag = "{b:" + request.table_id + "}"
        keys = [tag + ":seq", tag + ":events"]
        if self._lane is not None:
            args = [b"%d" % request.last_seq, request.move.text.encode()]
            seq = int((await self._lane.run(self._script, keys, args))[0])  # type: ignore[arg-type]
        else:
            seq = int(await self._move(keys=keys, args=[request.last_seq, request.move.text]))
        if seq < 0:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"stale sequence number {request.last_seq}: the table is at {-seq - 1}",
            )
        return service_pb2.PlayMoveResponse(event=events_pb2.Event(seq=seq))

    async def Captures(
        self, request: service_pb2.CapturesRequest, context: Context
    ) -> service_pb2.CapturesResponse:
        """Nothing computed: the cost of a unary gRPC call alone."""
        return service_pb2.CapturesResponse()


async def serve(redis_url: str, host: str, port: int, lane: bool = False) -> None:
    """Serve until SIGTERM or SIGINT."""
    pool = BlockingConnectionPool.from_url(redis_url, max_connections=256, timeout=20)
    redis = Redis(connection_pool=pool)
    server = grpc.aio.server()
    client = RedisClient.from_url(redis_url) if lane else None
    service_pb2_grpc.add_KafanaServiceServicer_to_server(
        BaselineServicer(redis, client),  # type: ignore[abstract, unused-ignore]
        server,
    )
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    print(f"baseline: serving on port {bound}", flush=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await server.stop(1.0)
    await redis.aclose()
    if client is not None:
        await client.close()


def main() -> None:
    """Parse the command line and serve."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", required=True, help="redis://host:port/db")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50061)
    parser.add_argument(
        "--lane", action="store_true", help="the script through kafana.store.client, not redis-py"
    )
    args = parser.parse_args()
    asyncio.run(serve(args.redis, args.host, args.port, args.lane))


if __name__ == "__main__":
    main()
