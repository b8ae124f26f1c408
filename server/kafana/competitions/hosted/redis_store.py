"""Hosted events in Redis: every key of an event carries its hash tag `{ev:<event>}`.

Entering and starting are Lua scripts (an entrant cannot slip in after the start); the
snapshot is written only by the holder of the lease (`SET ... PX`), so a director that lost
its lease (a pause longer than the lease) cannot overwrite the one that took over.
"""

from __future__ import annotations

from kafana.competitions.hosted.store import MAX_ENTRANTS, EventStore, now_ms
from kafana.competitions.keys import EVENT_INDEX, EventKeys
from kafana.store.client import RedisClient, Script
from kafana.store.resp import Reply

_HERE = "kafana.competitions.hosted"


def _text(value: Reply) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _texts(reply: Reply) -> dict[str, str]:
    """A hash's fields from HGETALL's flat reply."""
    items = reply if isinstance(reply, list) else []
    return {_text(items[i]): _text(items[i + 1]) for i in range(0, len(items) - 1, 2)}


class RedisEvents(EventStore):
    """Events in Redis (standalone or cluster), through the table store's client (shared, not
    closed here)."""

    kind = "redis"

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._enter = Script.named("enter", _HERE)
        self._start = Script.named("start", _HERE)
        self._lease = Script.named("lease", _HERE)
        self._save = Script.named("save", _HERE)
        self._release = Script.named("release", _HERE)

    async def _run(self, script: Script, keys: list[str], *args: str | int) -> Reply:
        values = [a.encode() if isinstance(a, str) else b"%d" % a for a in args]
        return (await self.client.run(script, keys, values))[0]

    async def create(self, event_id: str, meta: dict[str, str]) -> bool:
        keys = EventKeys(event_id)
        if not await self.client.call(keys.meta, "HSETNX", keys.meta, "phase", "open"):
            return False
        fields = [part for item in meta.items() for part in item]
        await self.client.call(keys.meta, "HSET", keys.meta, *fields)
        await self.client.call(EVENT_INDEX, "ZADD", EVENT_INDEX, now_ms(), event_id)
        return True

    async def _hash(self, key: str) -> dict[str, str]:
        return _texts(await self.client.call(key, "HGETALL", key))

    async def meta(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).meta)

    async def enter(self, event_id: str, name: str, value: str) -> str:
        keys = EventKeys(event_id)
        return _text(await self._run(self._enter, [keys.meta, keys.entrants], name, value,
                                     MAX_ENTRANTS))  # fmt: skip

    async def entrants(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).entrants)

    async def start(self, event_id: str) -> str:
        keys = EventKeys(event_id)
        return _text(await self._run(self._start, [keys.meta, keys.entrants]))

    async def finish(self, event_id: str) -> None:
        key = EventKeys(event_id).meta
        await self.client.call(key, "HSET", key, "phase", "finished")

    async def event_ids(self, limit: int) -> list[str]:
        reply = await self.client.call(EVENT_INDEX, "ZREVRANGE", EVENT_INDEX, 0, limit - 1)
        return [_text(e) for e in reply] if isinstance(reply, list) else []

    async def state(self, event_id: str) -> str | None:
        key = EventKeys(event_id).state
        raw = await self.client.call(key, "GET", key)
        return None if raw is None else _text(raw)

    async def save(self, event_id: str, owner: str, text: str) -> bool:
        keys = EventKeys(event_id)
        return bool(await self._run(self._save, [keys.lease, keys.state], owner, text))

    async def lease(self, event_id: str, owner: str, ttl_ms: int) -> bool:
        return bool(await self._run(self._lease, [EventKeys(event_id).lease], owner, ttl_ms))

    async def release(self, event_id: str, owner: str) -> None:
        await self._run(self._release, [EventKeys(event_id).lease], owner)

    async def set_control(self, event_id: str, status: str, note: str) -> None:
        key = EventKeys(event_id).control
        await self.client.call(key, "HSET", key, "status", status, "note", note)

    async def control(self, event_id: str) -> tuple[str, str]:
        data = await self._hash(EventKeys(event_id).control)
        return data.get("status", ""), data.get("note", "")

    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        key = EventKeys(event_id).adjudications
        await self.client.call(key, "HSET", key, game_id, value)

    async def adjudications(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).adjudications)
