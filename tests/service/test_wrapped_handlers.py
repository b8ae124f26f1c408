"""Handlers wrapped by the interceptors as they are added (`intercept.Wrapped`) are the very
handlers the interceptors give a call: the server runs none per call and nothing changes."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.service.auth import Authenticator
from kafana.service.guard import Guard
from kafana.service.intercept import Wrapped, chained
from kafana.service.metered import Metered
from kafana.service.ratelimit import RateLimit
from kafana.store.accounts import AccountStore


class Server:
    """What `Wrapped` adds to: records the handlers."""

    def __init__(self) -> None:
        self.registered: dict[str, Any] = {}
        self.generic: list[Any] = []

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        for name, handler in handlers.items():
            self.registered[f"/{service}/{name}"] = handler

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self.generic.extend(handlers)


class Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def answer(request: Any, context: Any) -> Any:
    return request


def test_the_added_handlers_are_those_the_interceptors_give_each_call() -> None:
    interceptors = [
        Metered(),
        Authenticator(cast(AccountStore, object())),  # no call here looks a key up
        Guard(RateLimit(rate=0)),
    ]
    raw: Any = grpc.unary_unary_rpc_method_handler(answer)
    health: Any = grpc.unary_unary_rpc_method_handler(answer)
    server = Server()
    adding = Wrapped(server, interceptors)
    adding.add_registered_method_handlers("kafana.v1.KafanaService", {"PlayMove": raw})
    adding.add_registered_method_handlers("grpc.health.v1.Health", {"Check": health})
    adding.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("kafana.v1.KafanaService", {"GetTable": raw})]
    )

    async def per_call(method: str, handler: Any) -> Any:
        """What gRPC's interceptor chain makes of `handler` on a call of `method`."""

        async def run(index: int, details: Any) -> Any:
            if index == len(interceptors):
                return handler
            return await interceptors[index].intercept_service(lambda d: run(index + 1, d), details)

        return await run(0, Details(method))

    # Registered methods are one generic handler's, first: grpc.aio registers none (it would
    # wait on a pending request per registered method on every call).
    assert server.registered == {}
    paths = server.generic[0]
    play = "/kafana.v1.KafanaService/PlayMove"
    added = paths.service(Details(play))
    assert added is not raw and added.unary_unary is not answer
    assert asyncio.run(per_call(play, raw)) is added
    assert added is chained(interceptors, play, raw)  # made once, then the same object
    check = "/grpc.health.v1.Health/Check"  # not authenticated nor guarded: only metered
    assert asyncio.run(per_call(check, health)) is paths.service(Details(check))
    table = "/kafana.v1.KafanaService/GetTable"
    assert paths.service(Details(table)) is None  # added as a generic handler only
    found = server.generic[1].service(Details(table))
    assert found is not raw and asyncio.run(per_call(table, raw)) is found
    assert server.generic[1].service(Details("/kafana.v1.KafanaService/Nothing")) is None


async def test_a_served_method_is_found_and_an_unknown_one_is_unimplemented(
    service: Any,
) -> None:
    """On the wire: the methods served by the one handler of paths answer, health too, and a
    method nobody serves is UNIMPLEMENTED as before."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
    from kafana.v1 import service_pb2

    info = await service.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
    assert info.version
    health = health_pb2_grpc.HealthStub(service.channel)
    checked = await health.Check(health_pb2.HealthCheckRequest(service=""))
    assert checked.status == health_pb2.HealthCheckResponse.SERVING
    nothing = service.channel.unary_unary("/kafana.v1.KafanaService/Nothing")
    try:
        await nothing(b"")
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    else:
        raise AssertionError("an unknown method answered")
