"""The standard health service and server reflection are there, and shutdown is graceful."""

from __future__ import annotations

from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from kit import Service


async def test_health_and_reflection(service: Service) -> None:
    health = health_pb2_grpc.HealthStub(service.channel)
    for name in ("", "kafana.v1.KafanaService"):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(service.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    names: set[str] = set()
    async for answer in reflection.ServerReflectionInfo(iter([request])):
        names |= {s.name for s in answer.list_services_response.service}
    assert {"kafana.v1.KafanaService", "grpc.health.v1.Health"} <= names
    await service.server.stop(1.0)
    # After stop the health service no longer answers SERVING (the server is gone).
