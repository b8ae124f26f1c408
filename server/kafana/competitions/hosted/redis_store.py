"""Hosted events in Redis: every key of an event carries its hash tag `{ev:<event>}`.

Entering and starting are Lua scripts (an entrant cannot slip in after the start); the
snapshot is written only by the holder of the lease (`SET ... PX`), so a director that lost
its lease (a pause longer than the lease) cannot overwrite the one that took over.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from kafana.competitions.hosted.store import MAX_ENTRANTS, EventStore, now_ms
from kafana.competitions.keys import EVENT_INDEX, EventKeys
from kafana.competitions.lua import script

_HERE = "kafana.competitions.hosted"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _texts(raw: dict[Any, Any]) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in raw.items()}


class RedisEvents(EventStore):
    """Events in Redis (standalone or cluster); the client is shared, not closed here."""

    kind = "redis"

    def __init__(self, client: Redis | RedisCluster) -> None:
        self.redis = client
        self._enter = client.register_script(script(_HERE, "enter"))
        self._start = client.register_script(script(_HERE, "start"))
        self._lease = client.register_script(script(_HERE, "lease"))
        self._save = client.register_script(script(_HERE, "save"))
        self._release = client.register_script(script(_HERE, "release"))

    async def create(self, event_id: str, meta: dict[str, str]) -> bool:
        keys = EventKeys(event_id)
        created = await self.redis.hsetnx(keys.meta, "phase", "open")
        if not created:
            return False
        fields: dict[Any, Any] = dict(meta)
        await self.redis.hset(keys.meta, mapping=fields)
        await self.redis.zadd(EVENT_INDEX, {event_id: now_ms()})
        return True

    async def meta(self, event_id: str) -> dict[str, str]:
        return _texts(await self.redis.hgetall(EventKeys(event_id).meta))

    async def enter(self, event_id: str, name: str, value: str) -> str:
        keys = EventKeys(event_id)
        args: list[str | int] = [name, value, MAX_ENTRANTS]
        return _text(await self._enter(keys=[keys.meta, keys.entrants], args=args))

    async def entrants(self, event_id: str) -> dict[str, str]:
        return _texts(await self.redis.hgetall(EventKeys(event_id).entrants))

    async def start(self, event_id: str) -> str:
        keys = EventKeys(event_id)
        return _text(await self._start(keys=[keys.meta, keys.entrants]))

    async def finish(self, event_id: str) -> None:
        await self.redis.hset(EventKeys(event_id).meta, "phase", "finished")

    async def event_ids(self, limit: int) -> list[str]:
        return [_text(e) for e in await self.redis.zrevrange(EVENT_INDEX, 0, limit - 1)]

    async def state(self, event_id: str) -> str | None:
        raw = await self.redis.get(EventKeys(event_id).state)
        return None if raw is None else _text(raw)

    async def save(self, event_id: str, owner: str, text: str) -> bool:
        keys = EventKeys(event_id)
        return bool(await self._save(keys=[keys.lease, keys.state], args=[owner, text]))

    async def lease(self, event_id: str, owner: str, ttl_ms: int) -> bool:
        return bool(await self._lease(keys=[EventKeys(event_id).lease], args=[owner, ttl_ms]))

    async def release(self, event_id: str, owner: str) -> None:
        await self._release(keys=[EventKeys(event_id).lease], args=[owner])

    async def set_control(self, event_id: str, status: str, note: str) -> None:
        key = EventKeys(event_id).control
        await self.redis.hset(key, mapping={"status": status, "note": note})

    async def control(self, event_id: str) -> tuple[str, str]:
        data = _texts(await self.redis.hgetall(EventKeys(event_id).control))
        return data.get("status", ""), data.get("note", "")

    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        await self.redis.hset(EventKeys(event_id).adjudications, game_id, value)

    async def adjudications(self, event_id: str) -> dict[str, str]:
        return _texts(await self.redis.hgetall(EventKeys(event_id).adjudications))
