"""The full server of `kafana serve`: the Kafana service with Competitions plugged in."""

from __future__ import annotations

from typing import Any

from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.hosted.store import RETENTION_MS
from kafana.competitions.league.host import LeaguesHost, leagues_for
from kafana.service.server import KafanaServer
from kafana.service.server import create_server as create_service
from kafana.store.base import TableStore


def create_server(
    store: TableStore,
    *,
    competitions: CompetitionsHost | None = None,
    retention_ms: int = RETENTION_MS,
    **options: Any,
) -> KafanaServer:
    """`kafana.service.server.create_server` (same options) hosting competitions too.

    `competitions`: None keeps the events in the store's Redis (in memory on the memory
    store), directed by this server on its own tables, for `retention_ms` (then they expire).
    """
    host = competitions or CompetitionsHost(events_for(store, retention_ms))
    return create_service(store, plugins=[host, LeaguesHost(leagues_for(store))], **options)
