"""Tables on a store for the wire conversion tests: seat them, play them, read their
events as one viewer sees them."""

from __future__ import annotations

import random
import uuid
from itertools import pairwise

from kafana.service import convert
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED, TableStore
from kafana.v1 import events_pb2, rules_pb2


async def seated(
    store: TableStore,
    rules: rules_pb2.RulesSpec,
    seed: int = 7,
    clock: rules_pb2.ClockSpec | None = None,
) -> tuple[Tables, str, dict[int, str]]:
    """A table on `store` with every seat taken: the tables, its id and the seat tokens."""
    tables = Tables(store)
    config = rules_pb2.TableConfig(rules=rules, seed=seed, clock=clock, name="wire")
    table_id, _admin, session = await tables.create(config)
    tokens = {}
    for seat in range(session.players):
        _, tokens[seat], _ = await tables.join(table_id, seat, f"p{seat}")
    return tables, table_id, tokens


async def play_to_end(
    tables: Tables, table_id: str, tokens: dict[int, str], rng: random.Random
) -> Session:
    """The seat to move plays a random legal move (Tač: an in-order one) until the end."""
    while True:
        session = await tables.session(table_id)
        seat = session.match.current_seat
        if session.status == FINISHED or seat is None:
            return session
        legal = [m for m in tables.legal(session, seat) if not str(m).startswith("call")]
        move = legal[0] if session.game.name == "tac" else rng.choice(legal)
        await tables.play(table_id, tokens[seat], str(move), uuid.uuid4().hex, session.seq)


def events_as(session: Session, viewer: int | None) -> list[events_pb2.Event]:
    """Every event of the table as `viewer` (None: a spectator) receives it, without states."""
    replays = [Session.start(session.table_id, session.stored), *session.replays()]
    return [convert.event(before, after, viewer) for before, after in pairwise(replays)]
