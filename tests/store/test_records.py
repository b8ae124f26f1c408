"""The compact event log: every event reads back the same, moves take a few bytes."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana.service.records import EventLog, decode, encode, pack_move, unpack_move
from kafana.store.framing import frame, skip, split
from kafana.v1 import events_pb2, storage_pb2

Kind = events_pb2.EventKind


@pytest.mark.parametrize(
    ("text", "size"),
    [("9H", 1), ("10D", 1), ("4S:AH+3C", 3), ("KC:QS+10H+AD", 4), ("play 3->5", 9), ("flip", 4)],
)
def test_moves_pack_small_and_read_back(text: str, size: int) -> None:
    packed = pack_move(text)
    assert packed is not None and len(packed) == size
    assert unpack_move(packed) == text


@pytest.mark.parametrize("text", ["4S+AH", "4S:AH:3C", "9é"])
def test_moves_that_do_not_pack_back_are_refused(text: str) -> None:
    assert pack_move(text) is None


@pytest.mark.parametrize(
    "event",
    [
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_SEAT_TAKEN, seat=1, time_ms=1_005, name="Ана"),
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_MOVE, seat=0, time_ms=990, move="4S:AH+3C"),
        storage_pb2.StoredEvent(
            kind=Kind.EVENT_KIND_MOVE, seat=3, time_ms=70_000, move="9H", reason="timeout"
        ),
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_FORFEIT, seat=2, time_ms=1, reason="left"),
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_CLOSED, time_ms=2_000, reason="admin"),
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_MOVE, seat=9, time_ms=5, move="4S+AH"),
        storage_pb2.StoredEvent(kind=Kind.EVENT_KIND_MOVE, seat=1, time_ms=5, move="x", name="n"),
    ],
)
def test_every_event_reads_back_the_same(event: storage_pb2.StoredEvent) -> None:
    assert decode(encode(event, 1_000), 1_000) == event


def test_a_random_match_takes_about_six_bytes_a_move() -> None:
    rng = random.Random(5)
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=5)
    log = EventLog.empty(10_000)
    now = 10_000
    events = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        move = str(rng.choice(state.legal_moves()))
        state = state.apply(move)
        now += rng.randint(0, 40_000)
        event = storage_pb2.StoredEvent(
            kind=Kind.EVENT_KIND_MOVE, seat=seat, time_ms=now, move=move
        )
        events.append(event)
        log = log.appended(log.pack(event.SerializeToString()), now)
        assert storage_pb2.StoredEvent.FromString(log[-1].data) == event
    assert [storage_pb2.StoredEvent.FromString(e.data) for e in log] == events
    assert len(log) == len(events) and len(log.data) < 7 * len(events)
    again = EventLog.empty(10_000).extended(split(log.data))
    assert again == log


def test_framing_splits_and_skips() -> None:
    records = [b"a", b"", b"x" * 300, b"bc"]
    blob = b"".join(frame(r) for r in records)
    assert split(blob) == records
    assert split(blob[skip(blob, 2) :]) == records[2:]
    assert skip(blob, 9) == len(blob)
    with pytest.raises(ValueError, match="truncated"):
        split(blob[:-1])


def test_encoding_from_the_fields_is_encoding_the_event() -> None:
    """`encode_fields` (the move path's, from values) makes what `encode` makes of the
    event with those fields, short or escaped, with or without the event at hand."""
    from kafana.service.records import encode, encode_fields
    from kafana.v1 import events_pb2, storage_pb2

    move, seat_taken = events_pb2.EVENT_KIND_MOVE, events_pb2.EVENT_KIND_SEAT_TAKEN
    cases = [
        dict(kind=move, seat=1, move="7H:3C+4D", time_ms=1_005),
        dict(kind=move, seat=0, move="KS", time_ms=999, reason="timeout"),
        dict(kind=move, seat=9, move="KS", time_ms=2_000),  # seat > 7: escaped
        dict(kind=move, seat=1, move="KS", time_ms=2_000, name="x"),  # escaped
        dict(kind=seat_taken, seat=2, time_ms=1_500, name="ana"),
        dict(kind=seat_taken, seat=2, time_ms=1_500, move="odd"),  # escaped
    ]
    for fields in cases:
        event = storage_pb2.StoredEvent(**fields)  # type: ignore[arg-type]
        expected = encode(event, 1_000)
        kind, seat, time_ms = int(event.kind), int(event.seat), event.time_ms
        for whole in (None, event):
            made = encode_fields(
                kind,
                seat,
                time_ms,
                1_000,
                move=event.move,
                name=event.name,
                reason=event.reason,
                whole=whole,
            )
            assert made == expected
