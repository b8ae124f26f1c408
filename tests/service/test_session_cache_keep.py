"""`SessionCache.keep`: the move path's put, refused for a table the cache holds later."""

from __future__ import annotations

from kafana.service.games import build_rules
from kafana.service.session import Session
from kafana.service.session_cache import SessionCache
from kafana.v1 import rules_pb2, storage_pb2


def at(table_id: str, seq: int) -> Session:
    spec = rules_pb2.RulesSpec(
        game=rules_pb2.GAME_TABLIC,
        players=2,
        tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
    )
    stored = storage_pb2.StoredTable(spec=spec, seed=3, rules_json=build_rules(spec).to_json())
    start = Session.start(table_id, stored)
    return start._evolve(seq=seq)


def test_keep_puts_a_later_or_equal_session_and_refuses_an_earlier_one() -> None:
    cache = SessionCache(entries=2)
    assert cache.keep(at("a", 5)) and cache.keep(at("b", 1))
    weight = cache.bytes
    assert not cache.keep(at("a", 4))  # the cache holds a later one: kept as it is
    kept = cache.get("a")
    assert kept is not None and kept.seq == 5 and cache.bytes == weight
    assert cache.keep(at("a", 5)) and cache.keep(at("c", 1))  # "a" put again: "b" is oldest
    assert cache.get("b") is None and len(cache) == 2
    assert cache.bytes == sum(cache._items[t][1] for t in ("a", "c"))
