"""Every cache of the product has a bound: each test fills one past it and checks its size."""

from __future__ import annotations

import contextlib
import gc
import random
import tracemalloc
from collections.abc import Iterator

import pytest
from kafana.errors import TooManyMovesError
from kafana.games import shuffle, tablic
from kafana.games.tablic import capture
from kafana.service import records, session, session_cache
from kafana.service.games import tablic as tablic_game
from kafana.service.session import Session
from kafana.store.base import Entry
from kafana.v1 import rules_pb2, service_pb2, storage_pb2

RULES = tablic.Rules.preset("serbian", players=2)


@pytest.fixture(autouse=True)
def fresh_engines() -> Iterator[None]:
    """Every test starts and ends with no engine cached (a small bound must not leak out)."""
    capture.reset_engines()
    yield
    capture.reset_engines()


def random_calls(count: int, seed: int = 1, largest: int = 20) -> None:
    """`count` captures on fresh random tables of up to `largest` cards, by the Python path:
    the listing caches are its own (and `legal_moves`' and the simulator's); the compiled
    build's C path of `captures()` keeps nothing (test_fast_captures.py)."""
    rng = random.Random(seed)
    deck = list(tablic.CARDS)
    for _ in range(count):
        cards = rng.sample(deck, rng.randint(1, largest + 1))
        with contextlib.suppress(TooManyMovesError):
            capture.python_captures(cards[0], cards[1:], RULES)


def held(engine: capture.CaptureEngine, listings: dict[int, capture.Listing]) -> int:
    """Estimated bytes of some listings, each distinct listing counted once."""
    distinct = {id(found): found for found in listings.values()}
    return sum(capture.listing_bytes(len(masks)) for masks, _ in distinct.values())


def test_overflowing_keys_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture, "CAPTURE_LIMIT", 1)
    monkeypatch.setattr(capture, "OVERFLOW_ENTRIES", 5)
    random_calls(300, largest=12)
    assert 0 < len(capture.engine_for(RULES)._overflowing) <= 5


def test_memos_are_bounded() -> None:
    memo = capture._Memo(capture._positions, 10)
    for mask in range(1, 100):
        assert memo[mask] == capture._positions(mask)
        assert len(memo) <= 10
    assert capture._POSITIONS.entries == capture.POSITION_ENTRIES
    assert capture._LOW_RANKS.entries == capture._HIGH_RANKS.entries == capture.MEMO_ENTRIES


def test_engines_are_bounded_and_dropped_ones_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture, "ENGINE_ENTRIES", 3)
    first = capture.engine_for(tablic.Rules.preset("serbian", players=2, king_value=2))
    first.listing(13, capture.count_vector((1, 2, 13)))
    for value in range(3, 12):
        capture.engine_for(tablic.Rules.preset("serbian", players=2, king_value=value))
        assert len(capture._ENGINES) <= 3
    assert not first._by_vector and not first._old


def test_engines_by_rules_object_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture, "_BY_RULES_LIMIT", 4)
    for _ in range(20):
        capture.engine_for(tablic.Rules.preset("serbian", players=2))
        assert len(capture._BY_RULES) <= 4


def test_service_lru_caches_are_bounded() -> None:
    assert records.pack_move.cache_info().maxsize == 16_384
    for i in range(16_500):
        records.pack_move(f"x{i}")
    assert records.pack_move.cache_info().currsize <= 16_384
    assert tablic_game._played.cache_info().maxsize == 8192
    for card in tablic.CARDS:
        tablic_game._played(card.text)
    assert tablic_game._capture_rules.cache_info().maxsize == 256
    for target in range(1, 300):
        tablic_game.captures(
            service_pb2.CapturesRequest(
                rules=rules_pb2.RulesSpec(tablic=rules_pb2.TablicRules(target=target)), card="KC"
            )
        )
        assert tablic_game._capture_rules.cache_info().currsize <= 256
    assert session._rules_json.cache_info().maxsize == 256
    for target in range(1, 300):
        spec = rules_pb2.RulesSpec(tablic=rules_pb2.TablicRules(target=target))
        session._rules_json(spec.SerializeToString(deterministic=True))
        assert session._rules_json.cache_info().currsize <= 256
    for n in range(2, 200):
        shuffle._bounds(n)
    assert shuffle._bounds.cache_info().currsize <= shuffle.BOUNDS_ENTRIES


def sessions(count: int, seq: int = 0) -> Iterator[Session]:
    """`count` sessions of distinct tables, each claiming `seq` events."""
    stored = storage_pb2.StoredTable(spec=rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC), seed=1)
    stored.rules_json = tablic_game.build_rules(stored.spec).to_json()
    start = Session.start("t", stored)
    for i in range(count):
        yield start._evolve(table_id=f"t{i}", seq=seq)


def test_session_cache_is_bounded_in_entries() -> None:
    cache = session_cache.SessionCache(entries=10, max_bytes=10**12)
    for item in sessions(25):
        cache.put(item)
        assert len(cache) <= 10
    assert cache.get("t24") is not None and cache.get("t0") is None


def test_session_cache_is_bounded_in_bytes() -> None:
    one = session_cache.session_bytes(next(sessions(1, seq=300)))
    cache = session_cache.SessionCache(entries=1000, max_bytes=5 * one)
    for item in sessions(40, seq=300):
        cache.put(item)
        assert cache.bytes <= 5 * one
    assert len(cache) == 5
    assert cache.bytes == sum(
        session_cache.session_bytes(s)
        for s in map(cache.get, [f"t{i}" for i in range(35, 40)])
        if s
    )
    cache.pop("t39")
    assert len(cache) == 4 and cache.bytes == 4 * one


def long_listing(least: int, most: int = 10_000) -> tablic.MatchState:
    """A state whose seat to move has more than `least` legal moves and at most `most`: trails
    grow the table."""
    for seed in range(50):
        match = tablic.new_match(RULES, seed=seed)
        while not match.is_over and match.hand_no == 0:
            try:
                legal = match.legal_moves()
            except TooManyMovesError:
                break
            if least < len(legal) <= most:
                return match
            match = match.apply(next((m for m in legal if m.is_trail), legal[0]))
    raise AssertionError(f"no listing of {least} to {most} moves")


def test_a_state_keeps_only_short_legal_move_lists() -> None:
    from kafana.games.tablic import state

    match = tablic.new_match(RULES, seed=3)
    assert match.legal_moves() and match._legal is not None  # a short list is kept
    kept = state.LISTING_KEPT if tablic.BUILD == "compiled" else state.LEGAL_KEPT
    longer = long_listing(kept)
    assert longer.legal_moves() and longer._legal is None  # past the bound: not kept
    if tablic.BUILD == "compiled":  # a long C listing is kept as cards, its Moves up to a bound
        middle = long_listing(state.LEGAL_KEPT, state.LISTING_KEPT)
        legal = middle.legal_moves()
        assert state.LEGAL_KEPT < len(legal) <= state.LISTING_KEPT and middle._legal is legal
        assert legal[0] is legal[0] and legal[state.LEGAL_KEPT - 1] is legal[state.LEGAL_KEPT - 1]
        last = legal[len(legal) - 1]
        assert last == legal[len(legal) - 1] and last is not legal[len(legal) - 1]
        assert state._FAST_ADVANCE is not None and state._FAST_ADVANCE(middle, last) is not None


def test_packed_rules_are_bounded_by_rules_object() -> None:
    from kafana.games.tablic import state

    state._STATE_PARAMS.clear()
    many = [
        tablic.Rules.preset("serbian", target=100 + k) for k in range(3 * capture.RULES_ENTRIES)
    ]
    for rules in many:
        tablic.new_match(rules, seed=1)
        assert len(state._STATE_PARAMS) <= capture.RULES_ENTRIES
    assert state._STATE_PARAMS  # packed once, then found by the Rules object
    again = tablic.new_match(many[-1], seed=2)
    assert again._params is tablic.new_match(many[-1], seed=3)._params


def match_events(seed: int) -> tuple[storage_pb2.StoredTable, list[bytes]]:
    """A table and the events of a whole 2-player serbian match on it (two seats taken, then
    random legal moves: 386 events), as stored."""
    stored = storage_pb2.StoredTable(
        spec=rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC), seed=seed, created_ms=1
    )
    stored.rules_json = tablic_game.build_rules(stored.spec).to_json()
    rng = random.Random(seed)
    events = [
        storage_pb2.StoredEvent(kind=session.SEAT_TAKEN, seat=seat, name="b", time_ms=2 + seat)
        for seat in range(2)
    ]
    match = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=seed)
    while not match.is_over:
        move = rng.choice(match.legal_moves())
        seat = match.current_seat
        events.append(
            storage_pb2.StoredEvent(
                kind=session.MOVE, seat=seat, move=str(move), time_ms=1500 * len(events)
            )
        )
        match = match.apply(move)
    return stored, [event.SerializeToString() for event in events]


def replayed(table: tuple[storage_pb2.StoredTable, list[bytes]]) -> Session:
    """The table's session, every event applied from its stored form (as a cache miss does)."""
    stored, events = table
    current = Session.start("t", stored)
    for number, data in enumerate(events, start=1):
        current = current.apply(Entry(number, data))
    return current


def test_a_cached_match_is_small_and_its_record_whole() -> None:
    """A cached table at the end of its match holds its log, not a history per move: ~16 KB
    at most (it held ~135 KB when the game state kept every move it was replayed through)."""
    table = match_events(7)
    replayed(table)  # once first: the rules core's and the codec's shared caches warm
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        whole = replayed(table)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert whole.seq == 386 and whole.status == "finished"
    assert held < 16_384, held
    assert session_cache.session_bytes(whole) >= held  # the cache's estimate does not undercount
    record = tablic.MatchRecord.from_text(whole.record_text())
    assert len(record.moves) == 384
    assert record.replay().scores == whole.match.scores == whole.full_match().scores
