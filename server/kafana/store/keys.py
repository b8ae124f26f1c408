"""Every Redis key name Kafana uses, in one place.

A table's keys share the hash tag `{t:<id>}` so they live in one Redis Cluster slot and one
Lua script may touch them all. The two global keys are single keys, fine on a cluster too.
"""

from __future__ import annotations

from typing import NamedTuple


class TableKeys(NamedTuple):
    """The keys of one table."""

    table: str  # string: StoredTable protobuf, written once
    state: str  # hash: seq, status, deadline (plain integers and words for Lua)
    seats: str  # hash: seat number -> StoredSeat protobuf
    events: str  # stream: entry id "<seq>-0", fields e (StoredEvent protobuf), d (dedupe tag)


def table_keys(table_id: str) -> TableKeys:
    """The keys of table `table_id`.

    >>> table_keys("ab12").state
    '{t:ab12}:state'
    """
    tag = "{t:" + table_id + "}"
    return TableKeys(f"{tag}:table", f"{tag}:state", f"{tag}:seats", f"{tag}:events")


def tables_index(namespace: str) -> str:
    """Sorted set of table ids by creation time (ms), for listing."""
    return f"{namespace}:tables"


def deadlines_index(namespace: str) -> str:
    """Sorted set of table ids by clock deadline (ms); a score is never later than the truth."""
    return f"{namespace}:deadlines"
