"""OpenTelemetry traces of the gRPC calls a process serves: off by default.

On only when the `otel` extra is installed (`pip install 'kafana[otel]'`) and asked for:
`OTEL_EXPORTER_OTLP_ENDPOINT` set, or `kafana serve --trace`. Every call is then a server span
(`/kafana.v1.KafanaService/PlayMove`), joined to the caller's trace when its metadata carries
one (W3C `traceparent`), exported over OTLP to the endpoint (the OTEL_* variables configure
it). Nothing of OpenTelemetry is imported otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
MISSING = "tracing: off (install the otel extra: pip install 'kafana[otel]')"


def wanted(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether traces were asked for: `--trace`, or an OTLP endpoint in the environment."""
    return flag or bool(environ.get(ENDPOINT))


def enable(exporter: Any = None, *, batch: bool = True) -> Any:
    """Trace every gRPC server made from now on (call it before `create_server`); the tracer
    provider, or None when the `otel` extra (or its OTLP exporter) is not installed.

    `exporter`: where spans go (default: OTLP, configured by the OTEL_* variables); `batch`
    False exports each span as it ends (tests)."""
    try:
        from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorServer
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        if exporter is None:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found, unused-ignore]
                OTLPSpanExporter,
            )

            exporter = OTLPSpanExporter()
    except ImportError:
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "kafana"}))
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    GrpcAioInstrumentorServer().instrument(tracer_provider=provider)  # type: ignore[no-untyped-call]
    return provider


def disable() -> None:
    """Stop tracing the servers made from now on (tests)."""
    from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorServer

    GrpcAioInstrumentorServer().uninstrument()  # type: ignore[no-untyped-call]


__all__ = ["ENDPOINT", "MISSING", "disable", "enable", "wanted"]
