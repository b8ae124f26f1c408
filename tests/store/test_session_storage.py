"""What the service stores of a table: no rules JSON, a digest of it, and per-seat retries."""

from __future__ import annotations

import pytest
from kafana.service.games import build_rules
from kafana.service.records import FORMAT
from kafana.service.session import load_table, rules_digest, table_record
from kafana.service.tables import Tables
from kafana.store.base import TableStore
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, storage_pb2

SERBIAN = rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN)


def stored_table() -> storage_pb2.StoredTable:
    spec = rules_pb2.RulesSpec(players=2, tablic=SERBIAN)
    return storage_pb2.StoredTable(
        name="t", spec=spec, rules_json=build_rules(spec).to_json(), seed=3, created_ms=1
    )


def test_the_record_leaves_the_rules_json_out_and_loading_makes_it_again() -> None:
    stored = stored_table()
    data = table_record(stored)
    kept = storage_pb2.StoredTable.FromString(data)
    assert kept.rules_json == "" and kept.format == FORMAT
    assert len(data) < len(stored.SerializeToString()) - 300
    assert load_table(data).rules_json == stored.rules_json


def test_a_spec_that_now_makes_other_rules_is_refused() -> None:
    kept = storage_pb2.StoredTable.FromString(table_record(stored_table()))
    kept.rules_digest = rules_digest("{}")
    with pytest.raises(RuntimeError, match="other rules"):
        load_table(kept.SerializeToString())


async def seated_table(store: TableStore, seed: int) -> tuple[Tables, str, dict[int, str]]:
    """A serbian 2-player table on `store` with both seats taken: tables, id, tokens."""
    tables = Tables(store)
    spec = rules_pb2.RulesSpec(players=2, tablic=SERBIAN)
    table_id, _admin, _ = await tables.create(rules_pb2.TableConfig(rules=spec, seed=seed))
    tokens = {}
    for seat in range(2):
        _, tokens[seat], _ = await tables.join(table_id, seat, f"p{seat}")
    return tables, table_id, tokens


async def test_a_retry_is_answered_after_the_other_seat_moved(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated_table(redis_store, seed=4)
    other = Tables(tables.store)  # a second process: nothing cached
    session = await tables.session(table_id)
    first_seat = session.match.current_seat
    move = str(tables.legal(session, first_seat)[0])
    played = await tables.play(table_id, tokens[first_seat], move, "mine", session.seq)
    after = played.session
    second_seat = after.match.current_seat
    reply = str(tables.legal(after, second_seat)[0])
    await tables.play(table_id, tokens[second_seat], reply, "theirs", after.seq)
    for process in (tables, other):
        again = await process.play(table_id, tokens[first_seat], move, "mine", session.seq)
        assert again.duplicate and again.seq == played.seq
    assert (await tables.session(table_id)).seq == played.seq + 1  # nothing appended


async def test_the_session_a_move_leaves_in_the_cache_is_the_one_the_log_replays(
    redis_store: RedisStore,
) -> None:
    tables, table_id, tokens = await seated_table(redis_store, seed=9)
    session = await tables.session(table_id)
    before = session
    for number in range(60):
        seat = session.match.current_seat
        move = str(tables.legal(session, seat)[-1])
        session = (
            await tables.play(table_id, tokens[seat], move, f"m{number}", session.seq)
        ).session
    replayed = await Tables(tables.store).session(table_id)  # another process: from the log
    for name in ("seq", "status", "deadline_ms", "names", "token_hashes", "ending", "marks"):
        assert getattr(session, name) == getattr(replayed, name), name
    assert session.log == replayed.log
    assert session.record_text() == replayed.record_text()
    assert session.match.view(0) == replayed.match.view(0)
    assert before.seq == session.seq - 60 and before.names == {0: "p0", 1: "p1"}  # unchanged
    assert before.log.count == before.seq and len(before.marks) == 0
