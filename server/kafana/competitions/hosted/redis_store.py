"""Hosted events in Redis: every key of an event carries its hash tag `{ev:<event>}`.

Entering and starting are Lua scripts (an entrant cannot slip in after the start); the
snapshot is written only by the holder of the lease (`SET ... PX`), so a director that lost
its lease (a pause longer than the lease) cannot overwrite the one that took over. Every key of
an event gets the retention as its TTL when it is written (and again with each snapshot and
when the event finishes). The rating book is a hash per pool, `{ev}:ratings:<pool>`.
"""

from __future__ import annotations

import asyncio

from kafana.competitions.hosted.store import (
    MAX_ENTRANTS,
    RETENTION_MS,
    EventStore,
    StoredEvent,
    now_ms,
)
from kafana.competitions.keys import (
    EVENT_INDEX,
    SCHEDULED_INDEX,
    STARTED_INDEX,
    EventKeys,
    rating_book,
)
from kafana.competitions.league.replies import Args, atomic
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

    def __init__(self, client: RedisClient, retention_ms: int = RETENTION_MS) -> None:
        self.client = client
        self.retention_ms = retention_ms
        self._enter = Script.named("enter", _HERE)
        self._start = Script.named("start", _HERE)
        self._lease = Script.named("lease", _HERE)
        self._save = Script.named("save", _HERE)
        self._release = Script.named("release", _HERE)
        self._withdraw = Script.named("withdraw", _HERE)

    async def _run(self, script: Script, keys: list[str], *args: str | int) -> Reply:
        values = [a.encode() if isinstance(a, str) else b"%d" % a for a in args]
        return (await self.client.run(script, keys, values))[0]

    async def create(self, event_id: str, meta: dict[str, str]) -> bool:
        keys = EventKeys(event_id)
        if not await self.client.call(keys.meta, "HSETNX", keys.meta, "phase", "open"):
            return False
        fields = [part for item in meta.items() for part in item]
        await self.client.call(keys.meta, "HSET", keys.meta, *fields)
        await self.client.call(keys.meta, "PEXPIRE", keys.meta, self.retention_ms)
        now = now_ms()
        await self.client.call(EVENT_INDEX, "ZADD", EVENT_INDEX, now, event_id)
        # the index forgets events past their retention (their keys expired by then)
        old = now - self.retention_ms
        await self.client.call(EVENT_INDEX, "ZREMRANGEBYSCORE", EVENT_INDEX, "-inf", old)
        return True

    def _all(self, event_id: str) -> list[str]:
        keys = EventKeys(event_id)
        return [keys.meta, keys.entrants, keys.callers, keys.control, keys.adjudications,
                keys.marks, keys.state]  # fmt: skip

    async def _keep(self, key: str) -> None:
        await self.client.call(key, "PEXPIRE", key, self.retention_ms)

    async def _set(self, key: str, *fields: str) -> None:
        """HSET `fields` (name, value, ...) in hash `key`, kept as long as the event."""
        await self.client.call(key, "HSET", key, *fields)
        await self._keep(key)

    async def _hash(self, key: str) -> dict[str, str]:
        return _texts(await self.client.call(key, "HGETALL", key))

    async def meta(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).meta)

    async def enter(
        self, event_id: str, name: str, value: str, caller: str = "", most: int = 1
    ) -> str:
        keys = EventKeys(event_id)
        return _text(await self._run(self._enter, [keys.meta, keys.entrants, keys.callers],
                                     name, value, MAX_ENTRANTS, self.retention_ms, caller,
                                     most))  # fmt: skip

    async def withdraw(self, event_id: str, name: str, caller: str) -> str:
        keys = EventKeys(event_id)
        return _text(
            await self._run(self._withdraw, [keys.meta, keys.entrants, keys.callers], name, caller)
        )

    async def entrants(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).entrants)

    async def start(self, event_id: str) -> str:
        keys = EventKeys(event_id)
        # listed first (another hash tag: not in the script), so a crash between the two
        # leaves an id to drop, never a started event no director finds
        await self.list_started(event_id)
        answer = _text(await self._run(self._start, [keys.meta, keys.entrants], self.retention_ms))
        if answer in ("few", "missing"):
            await self.unlist(event_id)
        return answer

    async def finish(self, event_id: str, reason: str = "") -> None:
        key = EventKeys(event_id).meta
        await self.client.call(key, "HSET", key, "phase", "finished", "reason", reason)
        for each in self._all(event_id):
            await self._keep(each)
        await self.unlist(event_id)

    async def started(self) -> list[str]:
        reply = await self.client.call(STARTED_INDEX, "SMEMBERS", STARTED_INDEX)
        return sorted(_text(e) for e in reply) if isinstance(reply, list) else []

    async def list_started(self, event_id: str) -> None:
        await self.client.call(STARTED_INDEX, "SADD", STARTED_INDEX, event_id)

    async def unlist(self, event_id: str) -> None:
        await self.client.call(STARTED_INDEX, "SREM", STARTED_INDEX, event_id)

    async def schedule(self, event_id: str, at_ms: int) -> None:
        await self.client.call(SCHEDULED_INDEX, "ZADD", SCHEDULED_INDEX, at_ms, event_id)

    async def list_due(self, now_ms: int, limit: int) -> list[str]:
        key = SCHEDULED_INDEX
        reply = await self.client.call(key, "ZRANGEBYSCORE", key, "-inf", now_ms, "LIMIT", 0, limit)
        due = [_text(e) for e in reply] if isinstance(reply, list) else []
        for event_id in due:  # listed first: a crash between the two lists it twice, harmlessly
            await self.list_started(event_id)
            await self.client.call(key, "ZREM", key, event_id)
        return due

    async def event_ids(self, limit: int) -> list[str]:
        reply = await self.client.call(EVENT_INDEX, "ZREVRANGE", EVENT_INDEX, 0, limit - 1)
        return [_text(e) for e in reply] if isinstance(reply, list) else []

    async def newest(self, limit: int, before: tuple[int, str] | None) -> list[tuple[str, int]]:
        top: int | str = "+inf" if before is None else before[0]
        out: list[tuple[str, int]] = []
        offset = 0
        while len(out) < limit:  # skips the ties at the cursor's millisecond already shown
            reply = await self.client.call(
                EVENT_INDEX, "ZREVRANGEBYSCORE", EVENT_INDEX, top, "-inf",
                "WITHSCORES", "LIMIT", offset, limit,
            )  # fmt: skip
            items = reply if isinstance(reply, list) else []
            pairs = [
                (_text(items[i]), int(float(_text(items[i + 1]))))
                for i in range(0, len(items) - 1, 2)
            ]
            out += [(e, c) for e, c in pairs if before is None or (c, e) < before]
            if len(pairs) < limit:
                break
            offset += len(pairs)
        return out[:limit]

    async def state(self, event_id: str) -> str | None:
        key = EventKeys(event_id).state
        raw = await self.client.call(key, "GET", key)
        return None if raw is None else _text(raw)

    async def save(self, event_id: str, owner: str, text: str) -> bool:
        keys = EventKeys(event_id)
        others = [
            keys.meta, keys.entrants, keys.callers, keys.control, keys.adjudications, keys.marks
        ]  # fmt: skip
        return bool(
            await self._run(
                self._save, [keys.lease, keys.state, *others], owner, text, self.retention_ms
            )
        )

    async def lease(self, event_id: str, owner: str, ttl_ms: int) -> bool:
        return bool(await self._run(self._lease, [EventKeys(event_id).lease], owner, ttl_ms))

    async def release(self, event_id: str, owner: str) -> None:
        await self._run(self._release, [EventKeys(event_id).lease], owner)

    async def set_control(self, event_id: str, status: str, note: str) -> None:
        await self._set(EventKeys(event_id).control, "status", status, "note", note)

    async def control(self, event_id: str) -> tuple[str, str]:
        data = await self._hash(EventKeys(event_id).control)
        return data.get("status", ""), data.get("note", "")

    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        await self._set(EventKeys(event_id).adjudications, game_id, value)

    async def adjudications(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).adjudications)

    async def mark(self, event_id: str, name: str, value: str) -> None:
        await self._set(EventKeys(event_id).marks, name, value)

    async def marks(self, event_id: str) -> dict[str, str]:
        return await self._hash(EventKeys(event_id).marks)

    def _reads(self, event_id: str, state: bool) -> list[Args]:
        keys = EventKeys(event_id)
        reads: list[Args] = [
            ("HGETALL", keys.meta),
            ("HGETALL", keys.entrants),
            ("HGETALL", keys.control),
            ("HGETALL", keys.marks),
        ]
        return [*reads, ("GET", keys.state)] if state else reads

    @staticmethod
    def _stored(event_id: str, replies: list[Reply]) -> StoredEvent:
        control = _texts(replies[2])
        state = replies[4] if len(replies) > 4 else None
        return StoredEvent(
            event_id,
            _texts(replies[0]),
            _texts(replies[1]),
            (control.get("status", ""), control.get("note", "")),
            _texts(replies[3]),
            None if state is None else _text(state),
        )

    async def record(self, event_id: str, *, state: bool = True) -> StoredEvent:
        """One MULTI on the event's slot: a round trip, and one moment's view."""
        keys = EventKeys(event_id)
        replies = await atomic(self.client, keys.meta, self._reads(event_id, state))
        return self._stored(event_id, replies)

    async def records(self, event_ids: list[str]) -> list[StoredEvent]:
        """Each event's MULTI, all at once (events live on different slots)."""
        done = await asyncio.gather(*(self.record(e, state=False) for e in event_ids))
        return list(done)

    async def forget(self, event_id: str) -> None:
        await self.client.call(EVENT_INDEX, "ZREM", EVENT_INDEX, event_id)

    async def ratings(self, pool: str, players: list[str]) -> dict[str, str]:
        if not players:
            return {}
        key = rating_book(pool)
        reply = await self.client.call(key, "HMGET", key, *players)
        values = reply if isinstance(reply, list) else []
        return {p: _text(v) for p, v in zip(players, values, strict=False) if v is not None}

    async def save_ratings(self, pool: str, ratings: dict[str, str]) -> None:
        if ratings:
            key = rating_book(pool)
            await self.client.call(key, "HSET", key, *[x for item in ratings.items() for x in item])
