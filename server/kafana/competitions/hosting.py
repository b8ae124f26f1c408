"""What every competition plug-in of a server process shares: its gRPC servicer, and a worker
(the events' director, the leagues' referee) that plays on the server's own tables.

`CompetitionsHost` (`hosted/host.py`) and `LeaguesHost` (`league/host.py`) are the two; each
says how to register its servicer and how to build its worker, and `WorkerHost` does the rest
of `kafana.service.server.Plugin`: start, wake, stop.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from typing import Any, Generic, Protocol, TypeVar

from kafana.competitions.quota import CreationQuota
from kafana.service.feed import Feed
from kafana.service.tables import Tables


class Worker(Protocol):
    """Background work on the server's tables (`Director`, `Referee`)."""

    def start(self) -> None:
        """Start it on the running event loop."""

    def wake(self) -> None:
        """Have it look at its work now rather than at its next scan."""

    async def stop(self) -> None:
        """Stop it; what it held is left for another process to take over."""


class HostedServicer(Protocol):
    """What the host touches of its servicer."""

    @property
    def quota(self) -> CreationQuota:
        """Creations per account, counted in the server's store once started."""

    @property
    def stopping(self) -> asyncio.Event:
        """Set when the server stops: the servicer's streams end."""


Servicer = TypeVar("Servicer", bound=HostedServicer)


class WorkerHost(Generic[Servicer]):
    """A competition service and its worker in one server process (a server plug-in)."""

    service_name: str
    servicer: Servicer
    worker: Worker | None = None

    @abstractmethod
    def add_to(self, server: Any) -> None:
        """Register the service on a grpc.aio server."""

    @abstractmethod
    def _worker(self, tables: Tables, feed: Feed) -> Worker:
        """The worker for the server's tables (anything else the host wires up, done)."""

    def _stopping(self) -> None:
        """What the servicer ends, beyond its `stopping` event, when the server stops."""

    def wake(self) -> None:
        """Have the worker look for its work now."""
        if self.worker is not None:
            self.worker.wake()

    def start(self, tables: Tables, feed: Feed) -> None:
        """Start the worker on the server's tables (from its event loop)."""
        self.servicer.quota.counters = tables.store.counters  # shared by the server's processes
        self.worker = self._worker(tables, feed)
        self.worker.start()

    async def stop(self) -> None:
        """End the servicer's streams and stop the worker (another process carries on)."""
        self.servicer.stopping.set()
        self._stopping()
        if self.worker is not None:
            await self.worker.stop()
            self.worker = None
