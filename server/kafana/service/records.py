"""The compact event log: a table's events as one byte string, ~5-8 bytes a move.

The service's codec of its events (the store only frames and appends bytes): the store keeps a
table's log as the concatenation of framed records (`frame`: a varint length, then the record),
appended atomically with the rest of a move. A record is one
`StoredEvent` packed small:

- byte 0: bits 0-2 the event kind, bits 3-5 the seat, bit 6 "a reason follows", bit 7
  "escaped": the rest is the whole `StoredEvent` protobuf (for anything the short form cannot
  say: a seat above 7, a kind above 7, a move that does not pack back to the same text);
- the time as a zigzag varint: milliseconds since the previous record (the first record:
  since the table was created), so a clock step backwards costs nothing special;
- with bit 6: the reason, a varint length and UTF-8;
- the rest: a move's text with each card (`AS`, `10D`, ...) as one byte >= 0x80 and the `:`
  and `+` between two cards left out (`4S:AH+3C` is 3 bytes), or a seat-taker's name in UTF-8.

`EventLog` is the log as a session holds it: the bytes, the count, the last record's offset and
time, and its digest (`kafana.store.framing.chain`: the store keeps the same, so a log the store
no longer holds is told apart). Entries read from it are `Entry(seq, StoredEvent protobuf)`,
decoded on demand, so a cached table holds one bytes object instead of an object per event.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import overload

from kafana.games.cards import CARDS
from kafana.store.base import Entry
from kafana.store.framing import GENESIS, chain, frame, read_varint, split, varint
from kafana.v1 import events_pb2, storage_pb2

FORMAT = 2  # StoredTable.format of tables whose log is in this form
MOVE = events_pb2.EVENT_KIND_MOVE
_ESCAPED = 0x80
_REASON = 0x40
# The games' part of the codec: card `index` (A C, A D, ..., K S) is the byte 0x80 + index.
_CARDS = [card.text for card in CARDS]
_CARD_BYTE = {text: 0x80 + i for i, text in enumerate(_CARDS)}


def _unzigzag(value: int) -> int:
    return value >> 1 if not value & 1 else -((value + 1) >> 1)


@functools.lru_cache(maxsize=16384)
def pack_move(text: str) -> bytes | None:
    """The move's text with cards as bytes; None when that would not read back the same.

    Cached: a match repeats a few hundred texts, and every move of every table packs one.
    Bounded: the 16,384 texts used last (a legal move's text, under 60 characters: ~4 MB).
    """
    out = bytearray()
    i = 0
    previous_card = False
    while i < len(text):
        for size in (3, 2):
            token = text[i : i + size]
            if token in _CARD_BYTE:
                out.append(_CARD_BYTE[token])
                i += size
                previous_card = True
                break
        else:
            char = text[i]
            nxt = text[i + 1 : i + 4]
            if previous_card and char in ":+" and _cards_at(nxt):
                i += 1  # implied between two cards
            else:
                out.extend(char.encode())
                i += 1
            previous_card = False
    packed = bytes(out)
    return packed if unpack_move(packed) == text else None


def _cards_at(text: str) -> list[str]:
    return [t for t in (text[:3], text[:2]) if t in _CARD_BYTE]


def unpack_move(data: bytes) -> str:
    """The text of a packed move."""
    parts: list[str] = []
    literal = bytearray()
    colon = False
    previous_card = False
    for byte in data:
        if byte >= 0x80 and byte - 0x80 < len(_CARDS):
            if literal:
                text = literal.decode(errors="replace")
                parts.append(text)
                colon = colon or ":" in text
                literal.clear()
            elif previous_card:
                parts.append("+" if colon else ":")
                colon = True
            parts.append(_CARDS[byte - 0x80])
            previous_card = True
        else:
            literal.append(byte)
            previous_card = False
    if literal:
        parts.append(literal.decode(errors="replace"))
    return "".join(parts)


def encode(event: storage_pb2.StoredEvent, previous_ms: int) -> bytes:
    """The short form of `event` logged after a record at `previous_ms`."""
    return encode_fields(
        int(event.kind),
        int(event.seat),
        event.time_ms,
        previous_ms,
        move=event.move,
        name=event.name,
        reason=event.reason,
        whole=event,
    )


def encode_fields(
    kind: int,
    seat: int,
    time_ms: int,
    previous_ms: int,
    *,
    move: str = "",
    name: str = "",
    reason: str = "",
    whole: storage_pb2.StoredEvent | None = None,
) -> bytes:
    """`encode` of the event with these fields (the move path has them: no field read back
    from the message); `whole`, the event itself when made already."""
    body: bytes | None = b""
    if kind == MOVE:
        body = pack_move(move) if not name else None
    elif move:
        body = None
    else:
        body = name.encode()
    if body is None or kind > 7 or seat > 7:
        if whole is None:
            whole = storage_pb2.StoredEvent(
                kind=kind,  # type: ignore[arg-type]
                seat=seat,
                move=move,
                reason=reason,
                time_ms=time_ms,
                name=name,
            )
        return bytes([_ESCAPED]) + whole.SerializeToString()
    head = kind | seat << 3 | (_REASON if reason else 0)
    delta = time_ms - previous_ms  # zigzag, in one varint byte when under 64 ms apart
    zigzag = delta * 2 if delta >= 0 else -delta * 2 - 1
    out = bytes((head, zigzag)) if zigzag < 0x80 else bytes((head,)) + varint(zigzag)
    if reason:
        encoded = reason.encode()
        out += varint(len(encoded)) + encoded
    return out + body


def decode(record: bytes, previous_ms: int) -> storage_pb2.StoredEvent:
    """The event of a short-form record logged after one at `previous_ms`."""
    if not record:
        raise ValueError("empty record in the event log")
    head = record[0]
    if head & _ESCAPED:
        return storage_pb2.StoredEvent.FromString(record[1:])
    delta, pos = read_varint(record, 1)
    event = storage_pb2.StoredEvent(
        kind=head & 7,  # type: ignore[arg-type]
        seat=head >> 3 & 7,
        time_ms=previous_ms + _unzigzag(delta),
    )
    if head & _REASON:
        size, pos = read_varint(record, pos)
        event.reason = record[pos : pos + size].decode()
        pos += size
    if event.kind == MOVE:
        event.move = unpack_move(record[pos:])
    else:
        event.name = record[pos:].decode()
    return event


@dataclass(slots=True)
class EventLog:
    """A table's log as framed bytes, read as `Entry(seq, StoredEvent protobuf)` on demand.

    Slotted, not frozen (each move makes one: a frozen dataclass sets each field through
    `object.__setattr__`): do not change one once made; sessions share them."""

    data: bytes = b""
    count: int = 0
    start_ms: int = 0  # the time the first record's delta counts from (table creation)
    last_ms: int = 0  # the time of the last record (start_ms when empty)
    last_at: int = 0  # offset of the last record's frame
    digest: str = GENESIS  # names this history: the store's log up to `count` has the same

    @staticmethod
    def empty(start_ms: int) -> EventLog:
        """No events yet; times count from `start_ms`."""
        return EventLog(start_ms=start_ms, last_ms=start_ms)

    def __len__(self) -> int:
        return self.count

    def pack(self, event: bytes) -> bytes:
        """The record of a StoredEvent (protobuf) to be appended after this log."""
        return encode(storage_pb2.StoredEvent.FromString(event), self.last_ms)

    def appended(self, record: bytes, time_ms: int) -> EventLog:
        """The log with one more record (whose event happened at `time_ms`)."""
        framed = frame(record)
        return EventLog(
            self.data + framed,
            self.count + 1,
            self.start_ms,
            time_ms,
            len(self.data),
            chain(self.digest, framed),
        )

    def extended(self, records: list[bytes]) -> EventLog:
        """The log with records appended (times decoded from them)."""
        log = self
        for record in records:
            log = log.appended(record, decode(record, log.last_ms).time_ms)
        return log

    def events(self) -> Iterator[tuple[int, bytes, storage_pb2.StoredEvent]]:
        """(seq, record, event) of every record, oldest first."""
        previous = self.start_ms
        for seq, record in enumerate(split(self.data), start=1):
            event = decode(record, previous)
            previous = event.time_ms
            yield seq, record, event

    def __iter__(self) -> Iterator[Entry]:
        for seq, _record, event in self.events():
            yield Entry(seq, event.SerializeToString())

    def last(self) -> Entry:
        """The newest entry, without reading the rest."""
        if not self.count:
            raise IndexError("the event log is empty")
        size, pos = read_varint(self.data, self.last_at)
        record = self.data[pos : pos + size]
        head = record[0]
        if head & _ESCAPED:
            return Entry(self.count, record[1:])
        # The last record's own time is known: decode it against the time before it.
        delta, _ = read_varint(record, 1)
        event = decode(record, self.last_ms - _unzigzag(delta))
        return Entry(self.count, event.SerializeToString())

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        if isinstance(index, slice):
            return list(self)[index]
        if index in (-1, self.count - 1):
            return self.last()
        return list(self)[index]
