"""Every Redis key name Kafana uses, in one place.

A table's keys share the hash tag `{t:<id>}` so they live in one Redis Cluster slot and one
Lua script may touch them all; its live channel carries the same tag, so `SPUBLISH` from that
script stays on the table's shard. The listing index is a single key, fine on a cluster too;
the clock's deadline index, written on every clocked move, is `DEADLINE_SHARDS` keys with a hash
tag each, so a Redis Cluster spreads those writes over its primaries.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

DEADLINE_SHARDS = 16
"""Keys of the clock's deadline index: a table's deadline lives in the shard its id hashes to;
the clock sweeper reads every shard (one round trip, a command per shard). Every process of a
deployment must use the same number (changing it strands the entries of the old shards)."""


class TableKeys(NamedTuple):
    """The keys of one table."""

    table: str  # string: StoredTable protobuf, written once
    state: str  # hash: seq, status, deadline, d<slot> = "<seq>:<tag>" (last client move)
    seats: str  # hash: seat number -> StoredSeat protobuf
    log: str  # string: the event log, framed records (`kafana.store.framing`)


def table_keys(table_id: str) -> TableKeys:
    """The keys of table `table_id`.

    >>> table_keys("ab12").state
    '{t:ab12}:state'
    """
    tag = "{t:" + table_id + "}"
    return TableKeys(f"{tag}:table", f"{tag}:state", f"{tag}:seats", f"{tag}:log")


def live_channel(table_id: str) -> str:
    """The sharded pub/sub channel on which each append publishes the table's new seq.

    >>> live_channel("ab12")
    '{t:ab12}:live'
    """
    return "{t:" + table_id + "}:live"


def tables_index(namespace: str) -> str:
    """Sorted set of table ids by creation time (ms), for listing."""
    return f"{namespace}:tables"


def deadline_shard(table_id: str) -> int:
    """The deadline shard of table `table_id` (CRC-32 of its id: the same in every process).

    >>> deadline_shard("ab12")
    6
    """
    return zlib.crc32(table_id.encode()) % DEADLINE_SHARDS


def deadline_shard_key(namespace: str, shard: int) -> str:
    """Shard `shard` of the deadline index: a sorted set of table ids by clock deadline (ms);
    a score is never later than the truth. Each shard has its own hash tag (its own slot).

    >>> deadline_shard_key("kafana", 3)
    '{kafana:deadlines:3}'
    """
    return "{" + namespace + ":deadlines:" + str(shard) + "}"


def deadlines_index(namespace: str, table_id: str) -> str:
    """The deadline index shard that holds table `table_id`'s deadline."""
    return deadline_shard_key(namespace, deadline_shard(table_id))


def deadline_shard_keys(namespace: str) -> list[str]:
    """Every shard of the deadline index, in shard order."""
    return [deadline_shard_key(namespace, shard) for shard in range(DEADLINE_SHARDS)]


def legacy_deadlines_index(namespace: str) -> str:
    """The one deadline index of releases before the shards: the sweeper moves what it finds
    there into the shards (a rolling upgrade's old processes may still write it)."""
    return f"{namespace}:deadlines"


class AccountKeys(NamedTuple):
    """The keys of the account store (`kafana.store.accounts_redis`), all in one slot."""

    names: str  # sorted set (all scores 0): account names, for paging by name
    info: str  # hash: name -> JSON {role, created_ms}, written once
    keyof: str  # hash: name -> hex SHA-256 of its key (absent once revoked)
    bykey: str  # hash: hex SHA-256 of a key -> name
    revoked: str  # hash: name -> revoked at (ms)
    unused: str  # sorted set: self-registered accounts whose key was never used -> made (ms)


def account_keys(namespace: str) -> AccountKeys:
    """The account keys of `namespace`, sharing the hash tag `{<namespace>:accounts}`.

    >>> account_keys("kafana").bykey
    '{kafana:accounts}:bykey'
    """
    tag = "{" + namespace + ":accounts}"
    return AccountKeys(*(f"{tag}:{part}" for part in AccountKeys._fields))


def counter_key(namespace: str, key: str) -> str:
    """A shared counter (`kafana.store.counters`): uses in a window, or places held.

    >>> counter_key("kafana", "open:p:ipv4:10.0.0.7")
    'kafana:n:open:p:ipv4:10.0.0.7'
    """
    return f"{namespace}:n:{key}"


class NoticeKeys(NamedTuple):
    """The keys of one account's notices (`kafana.store.redis_notices`), all in one slot."""

    stream: str  # stream: one entry per notice, field `d` = its bytes (MAXLEN-bounded)
    marks: str  # hash: "<table>:<seat>" -> "<holder>:<rank>" (duplicates dropped); `#`: count
    order: str  # sorted set: mark -> when set (ms), so the oldest marks go first
    live: str  # sharded pub/sub channel: each notice publishes the new count


def notice_keys(namespace: str, account: str) -> NoticeKeys:
    """The notice keys of `account`, sharing the hash tag `{<namespace>:a:<account>}`.

    >>> notice_keys("kafana", "ana").stream
    '{kafana:a:ana}:notices'
    """
    tag = "{" + namespace + ":a:" + account + "}"
    return NoticeKeys(f"{tag}:notices", f"{tag}:marks", f"{tag}:order", f"{tag}:live")


def seat_accounts_key(table_id: str) -> str:
    """Hash of a table's seats taken with an API key: holder -> account (the table's tag).

    >>> seat_accounts_key("ab12")
    '{t:ab12}:accounts'
    """
    return "{t:" + table_id + "}:accounts"
