"""ListTables on the domain layer: a page of tables, newest first, filtered."""

from __future__ import annotations

import logging

from kafana.errors import KafanaError, NotFoundError
from kafana.service.ratelimit import charge
from kafana.service.session import Session
from kafana.service.table_repository import TableRepository
from kafana.store.base import Listed
from kafana.v1 import rules_pb2

LIST_SCAN = 100
"""Tables a ListTables page looks at beyond its size: filtered out ones, expired ones."""
TABLES_A_TOKEN = 5
"""Tables looked at that cost the caller one token of its rate limit, as one more call (each
is loaded and replayed: ~73 us of server CPU, a page of 500 with a rare filter 44 ms)."""
log = logging.getLogger(__name__)


async def listed(tables: TableRepository, table_id: str) -> Session | None:
    """The session of a listed table; None when it expired (the index forgets it) or when
    its log does not replay (logged)."""
    try:
        return await tables.session(table_id)
    except NotFoundError:
        await tables.store.forget(table_id)
    except (KafanaError, ValueError, RuntimeError) as error:  # a log that does not replay
        log.error("table %s does not replay, left out of the list: %s", table_id, error)
    return None


async def page(
    tables: TableRepository, game: int, status: str, limit: int, after: Listed | None = None
) -> tuple[list[Session], Listed | None]:
    """Up to `limit` tables, newest first, of `game` (a `Game` value; 0: any) and `status`
    ("": any), from just after the cursor `after`; and the cursor to go on from (None: no
    more). At most `limit` + `LIST_SCAN` tables are looked at (each charged to the caller,
    `TABLES_A_TOKEN`): a rare filter may give a short page, and the cursor goes on from the
    last table looked at."""
    budget = limit + LIST_SCAN
    found = await tables.store.list_tables(budget, before=after)
    looked = 0
    try:
        out: list[Session] = []
        cursor: Listed | None = None
        for at, entry in enumerate(found):
            if len(out) >= limit:
                return out, cursor
            cursor = entry
            looked += 1
            session = await listed(tables, entry[1])
            if session is None:
                continue
            if game and (session.stored.spec.game or rules_pb2.GAME_TABLIC) != game:
                continue
            if status and session.status != status:
                continue
            out.append(session)
            if len(out) >= limit and at == len(found) - 1 and len(found) < budget:
                return out, None  # the index's last table: no page after this one
        return out, cursor if len(found) >= budget else None
    finally:
        charge(looked / TABLES_A_TOKEN)
