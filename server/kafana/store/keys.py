"""Every Redis key name Kafana uses, in one place.

A table's keys share the hash tag `{t:<id>}` so they live in one Redis Cluster slot and one
Lua script may touch them all; its live channel carries the same tag, so `SPUBLISH` from that
script stays on the table's shard. The two global keys are single keys, fine on a cluster too.
"""

from __future__ import annotations

from typing import NamedTuple


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


def deadlines_index(namespace: str) -> str:
    """Sorted set of table ids by clock deadline (ms); a score is never later than the truth."""
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
