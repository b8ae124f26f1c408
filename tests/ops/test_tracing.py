"""Traces (kafana.service.tracing): off unless asked for; when on, every served call is a server
span that joins the caller's trace (so one move can be followed from client to server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kafana.service import tracing
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kafana_client import table_config
from kit import running
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
"""A caller's W3C trace context: trace 0af7..., its span b7ad..."""


def test_tracing_is_asked_for_by_flag_or_endpoint() -> None:
    assert not tracing.wanted(False, {})
    assert tracing.wanted(True, {})
    assert tracing.wanted(False, {tracing.ENDPOINT: "http://collector:4317"})
    assert not tracing.wanted(False, {tracing.ENDPOINT: ""})


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on, spans kept in memory; off again after the test."""
    exporter = InMemorySpanExporter()
    assert tracing.enable(exporter, batch=False) is not None
    try:
        yield exporter
    finally:
        tracing.disable()


async def test_a_served_call_is_a_span_of_the_callers_trace(
    spans: InMemorySpanExporter, redis_store: RedisStore
) -> None:
    async with running(redis_store) as svc:
        made = await svc.stub.CreateTable(
            service_pb2.CreateTableRequest(config=table_config(target=1)),
            metadata=(("traceparent", TRACEPARENT),),
        )
        await svc.stub.GetTable(service_pb2.GetTableRequest(table_id=made.table_id))
    found = {span.name: span for span in spans.get_finished_spans()}
    create = found["/kafana.v1.KafanaService/CreateTable"]
    assert create.kind == SpanKind.SERVER
    assert f"{create.context.trace_id:032x}" == TRACEPARENT.split("-")[1]
    assert create.parent is not None and f"{create.parent.span_id:016x}" == "b7ad6b7169203331"
    assert "/kafana.v1.KafanaService/GetTable" in found  # every call, not only the traced ones
