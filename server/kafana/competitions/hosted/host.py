"""Hosting competitions in a `kafana serve` process: the service, its store, the director.

`create_server` builds one `CompetitionsHost`; on a Redis table store the events live in the
same Redis (keys `{ev:<event>}:*`), so any server process on it can take over directing an
event; on the in-memory store they live in this process only (and die with it).
"""

from __future__ import annotations

import logging
from typing import Any

from kafana.competitions.hosted.director import Director
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.hosted.servicer import CompetitionsServicer
from kafana.competitions.hosted.store import EventStore, MemoryEvents
from kafana.store.base import TableStore
from kafana.store.client import RedisClient
from kafana.v1 import competitions_pb2, competitions_pb2_grpc

SERVICE_NAME = competitions_pb2.DESCRIPTOR.services_by_name["Competitions"].full_name
log = logging.getLogger(__name__)


def events_for(store: TableStore) -> EventStore:
    """The event store that goes with a table store: its Redis (through the table store's own
    client), else this process's memory."""
    client = getattr(store, "client", None)
    return RedisEvents(client) if isinstance(client, RedisClient) else MemoryEvents()


def loopback(host: str, port: int) -> str:
    """Where this process reaches its own server."""
    if host in ("", "0.0.0.0", "::", "[::]"):
        host = "127.0.0.1"
    return f"{host}:{port}"


class CompetitionsHost:
    """The Competitions service and the director of one server process."""

    def __init__(
        self,
        events: EventStore,
        *,
        lease_ms: int = 5_000,
        scan: float = 1.0,
        refuse_create: str = "",
    ) -> None:
        self.events = events
        self.lease_ms = lease_ms
        self.scan = scan
        self.director: Director | None = None
        self.servicer = CompetitionsServicer(events, self.wake, refuse_create)

    def add_to(self, server: Any) -> None:
        """Register the service on a grpc.aio server."""
        competitions_pb2_grpc.add_CompetitionsServicer_to_server(self.servicer, server)

    def wake(self) -> None:
        """Have the director look for started events now."""
        if self.director is not None:
            self.director.wake()

    def start(self, target: str | None) -> None:
        """Start directing through the server at `target` (None: this process directs nothing)."""
        if target is None:
            return
        self.director = Director(self.events, target, lease_ms=self.lease_ms, scan=self.scan)
        self.director.start()

    async def stop(self) -> None:
        """Stop directing (leases released: another process takes the events over)."""
        self.servicer.stopping.set()
        if self.director is not None:
            await self.director.stop()
            self.director = None
