"""Hosting competitions in a server process: the Competitions service and the director.

`kafana.competitions.server.create_server` plugs one `CompetitionsHost` into the service's
server; on a Redis table store the events live in the same Redis (keys `{ev:<event>}:*`), so
any server process on it can take over directing an event. The director plays on the
server's own `Tables`.
"""

from __future__ import annotations

import logging
from typing import Any

from kafana.competitions.hosted.director import Director
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.hosted.servicer import CompetitionsServiceServicer
from kafana.competitions.hosted.store import RETENTION_MS, EventStore
from kafana.competitions.hosting import WorkerHost
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.base import TableStore
from kafana.store.redis_store import redis_client_of
from kafana.v1 import competitions_pb2, competitions_pb2_grpc

SERVICE_NAME = competitions_pb2.DESCRIPTOR.services_by_name["CompetitionsService"].full_name
log = logging.getLogger(__name__)


def events_for(store: TableStore, retention_ms: int = RETENTION_MS) -> EventStore:
    """The event store that goes with a table store: in its Redis; events and their data are
    kept `retention_ms`."""
    return RedisEvents(redis_client_of(store), retention_ms)


class CompetitionsHost(WorkerHost[CompetitionsServiceServicer]):
    """The Competitions service and the director of one server process (a server plug-in)."""

    service_name = SERVICE_NAME

    def __init__(self, events: EventStore, *, lease_ms: int = 5_000, scan: float = 1.0) -> None:
        self.events = events
        self.lease_ms = lease_ms
        self.scan = scan
        self.servicer = CompetitionsServiceServicer(events, self.wake)

    def add_to(self, server: Any) -> None:
        """Register the service on a grpc.aio server."""
        competitions_pb2_grpc.add_CompetitionsServiceServicer_to_server(self.servicer, server)

    def _worker(self, tables: Tables, feed: Feed) -> Director:
        return Director(self.events, tables, feed, lease_ms=self.lease_ms, scan=self.scan)
