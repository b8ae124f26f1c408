"""Finished matches' records and the embargoes that hold them back while an event runs."""

from __future__ import annotations

from kafana.errors import MatchNotOverError
from kafana.service.embargo import Embargoes
from kafana.service.session import Session
from kafana.service.table_repository import TableRepository
from kafana.store.base import FINISHED


class Archive:
    """Records of finished tables, refused while embargoed (on every process of a store)."""

    def __init__(self, tables: TableRepository) -> None:
        self.tables = tables
        self.embargoes = Embargoes(tables.store.counters, tables.now)

    async def record(self, table_id: str, *, past_embargo: bool = False) -> Session:
        """The finished table (its record and events: `convert.record`); MatchNotOverError
        while it runs; EmbargoedError while its embargo label is embargoed, unless
        `past_embargo` (the organiser that set the embargo reads it)."""
        session = await self.tables.session(table_id)
        if session.status != FINISHED:
            raise MatchNotOverError(
                f"the match at table {table_id} is not over: the record (with the "
                "seed and the decks) is published when it ends"
            )
        if not past_embargo:
            await self.embargoes.check(session.stored.embargo, table_id, "record (seed, decks)")
        return session

    async def embargo(self, label: str, ttl_ms: int) -> None:
        """Embargo the tables labelled `label` (`TableConfig.embargo`) for `ttl_ms`: their
        records and spectator views are refused on every process of this store."""
        await self.embargoes.embargo(label, ttl_ms)

    async def release(self, label: str) -> None:
        """Lift the embargo of `label`: its tables' records are served again."""
        await self.embargoes.release(label)

    async def check_view(self, session: Session, seat: int | None) -> None:
        """Refuse a spectator (`seat` None) of an embargoed table: the cards it shows played
        are the deals of the games still running (a seat sees its own game)."""
        if seat is None:
            await self.embargoes.check(session.stored.embargo, session.table_id, "play")
