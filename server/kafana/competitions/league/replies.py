"""The league's few words with Redis, on the store's client: batches, transactions, replies."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.store.client import RedisClient
from kafana.store.resp import Reply, pack

Args = tuple[bytes | str | int, ...]
"""One command's words, e.g. ("HGET", key, field)."""


def text(value: Reply) -> str:
    """A bulk reply as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def items(reply: Reply) -> list[Reply]:
    """An array reply's items ([] for nil)."""
    return reply if isinstance(reply, list) else []


def with_scores(reply: Reply) -> list[tuple[str, float]]:
    """A flat `WITHSCORES` reply as (member, score) pairs."""
    flat = items(reply)
    return [(text(flat[i]), float(text(flat[i + 1]))) for i in range(0, len(flat) - 1, 2)]


def fields(reply: Reply) -> dict[str, str]:
    """A flat `HGETALL` reply as a dict."""
    flat = items(reply)
    return {text(flat[i]): text(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def number(value: bytes | str | int | float) -> str:
    """A score or float argument as Redis reads it."""
    return repr(float(value))


async def each(client: RedisClient, commands: Sequence[tuple[str, Args]]) -> list[Reply]:
    """Commands, each on its key's server (one write per server): their replies, the first
    error raised."""
    replies = await client.calls([(key, pack(*words)) for key, words in commands])
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


async def batch(client: RedisClient, key: str, commands: Sequence[Args]) -> list[Reply]:
    """Commands on `key`'s server in one write: their replies, the first error raised."""
    return await each(client, [(key, words) for words in commands])


async def atomic(client: RedisClient, key: str, commands: Sequence[Args]) -> list[Reply]:
    """Commands in one `MULTI`/`EXEC` on `key`'s server (keys of one hash tag): their replies."""
    replies = await batch(client, key, [("MULTI",), *commands, ("EXEC",)])
    done = items(replies[-1])
    for reply in done:
        if isinstance(reply, Exception):
            raise reply
    return done
