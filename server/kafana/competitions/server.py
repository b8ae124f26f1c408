"""The full server of `kafana serve`: the Kafana service with Competitions plugged in."""

from __future__ import annotations

from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.competitions.league.host import LeaguesHost, leagues_for
from kafana.service.server import KafanaServer, Plugin
from kafana.service.server import create_server as create_service
from kafana.service.settings import Settings
from kafana.store.accounts import AccountStore
from kafana.store.base import TableStore


def create_server(
    store: TableStore,
    settings: Settings | None = None,
    *,
    competitions: CompetitionsHost | None = None,
    accounts: AccountStore | None = None,
) -> KafanaServer:
    """`kafana.service.server.create_server` (the same settings) hosting competitions too.

    `competitions`: None keeps the events in the store's Redis (in memory on the memory
    store), directed by this server on its own tables, for `settings.retention_ms` (then they
    expire).
    """
    settings = settings or Settings()
    host = competitions or CompetitionsHost(events_for(store, settings.retention_ms))
    plugins: list[Plugin] = [host, LeaguesHost(leagues_for(store))]
    return create_service(store, settings, plugins=plugins, accounts=accounts)
