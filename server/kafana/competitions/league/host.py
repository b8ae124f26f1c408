"""Hosting leagues in a server process: the Leagues service and the league referee.

The leagues live in the table store's Redis (keys `{lg:<league>}:*`) and every server process
on it referees them together (`referee`).
"""

from __future__ import annotations

from typing import Any

from kafana.competitions.hosting import WorkerHost
from kafana.competitions.league.notices import revealer
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.servicer import LeaguesServiceServicer
from kafana.competitions.league.store import LeagueStore
from kafana.service.feed import Feed
from kafana.service.notices import notices_of
from kafana.service.tables import Tables
from kafana.store.base import TableStore
from kafana.store.redis_store import redis_client_of
from kafana.v1 import leagues_pb2, leagues_pb2_grpc

SERVICE_NAME = leagues_pb2.DESCRIPTOR.services_by_name["LeaguesService"].full_name


def leagues_for(store: TableStore) -> LeagueStore:
    """The league store that goes with a table store: in its Redis."""
    return RedisLeagues(redis_client_of(store))


class LeaguesHost(WorkerHost[LeaguesServiceServicer]):
    """The Leagues service and the league referee of one server process (a server plug-in)."""

    service_name = SERVICE_NAME

    def __init__(self, store: LeagueStore, **referee: Any) -> None:
        self.store = store
        self.options = referee
        self._tables: Tables | None = None
        self.servicer = LeaguesServiceServicer(store, self.tables, self.wake)

    def tables(self) -> Tables:
        """The server's tables (once started)."""
        if self._tables is None:
            raise RuntimeError("the leagues host has not started")
        return self._tables

    def add_to(self, server: Any) -> None:
        """Register the service on a grpc.aio server."""
        leagues_pb2_grpc.add_LeaguesServiceServicer_to_server(self.servicer, server)

    def _worker(self, tables: Tables, feed: Feed) -> Referee:
        self._tables = tables
        self.servicer.waiters.connect(tables.store)  # tickets pushed to every process
        notices = notices_of(tables)
        if notices is not None:  # WatchAccount carries the tickets, seat tokens revealed
            notices.reveal.append(revealer(self.store, tables))
        return Referee(self.store, tables, wake_players=self.servicer.waiters.wake, **self.options)

    def _stopping(self) -> None:
        self.servicer.waiters.wake_all()
