"""GetServerInfo reports the limits the server really enforces, not defaults."""

from __future__ import annotations

from importlib import metadata

from kafana.games.tablic.capture import CAPTURE_LIMIT
from kafana.service.auth import AuthPolicy
from kafana.service.limits import Limits
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kit import running


async def test_the_info_is_the_servers_own(redis_store: RedisStore) -> None:
    options = {
        "rate_limit": RateLimit(rate=7.5, burst=30, max_streams=9),
        "limits": Limits(message_bytes=123_456),
        "auth": AuthPolicy(mode="required", self_register=True),
        "heartbeat_s": 0.25,
    }
    async with running(redis_store, **options) as svc:
        info = await svc.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
    assert info.version == metadata.version("kafana") and info.api == "kafana.v1"
    limits = info.limits
    assert (limits.default_page_size, limits.max_page_size) == (50, 500)
    assert limits.max_captures == CAPTURE_LIMIT
    assert limits.heartbeat_millis == 250
    assert (limits.rate_per_second, limits.rate_burst, limits.max_streams) == (7.5, 30, 9)
    assert limits.max_request_bytes == 123_456
    assert info.auth_required and info.self_register
    assert {offer.game for offer in info.games} == {1, 2}


async def test_the_defaults_are_reported_too(redis_store: RedisStore) -> None:
    async with running(redis_store) as svc:
        info = await svc.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
    assert info.limits.heartbeat_millis == 5000
    assert info.limits.max_streams == RateLimit().max_streams
    assert info.limits.max_request_bytes == Limits().message_bytes
    assert not info.auth_required and not info.self_register
