"""Connect errors from the server's `google.rpc.Status` answers, details kept as they are."""

from __future__ import annotations

import grpc  # type: ignore[import-untyped, unused-ignore]
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.rpc import status_pb2  # type: ignore[import-untyped, unused-ignore]
from protobuf.wkt import Any as AnyDetail

from kafana.service.errors import rich_status


def rich_error(status: status_pb2.Status) -> ConnectError:
    """The Connect error of a `google.rpc.Status`, its details (ErrorInfo...) as they are."""
    code = next((c for c in grpc.StatusCode if c.value[0] == status.code), grpc.StatusCode.UNKNOWN)
    details = [ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in status.details]
    return ConnectError(connect_code(code), status.message, details)


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same set; CANCELLED is spelled CANCELED)."""
    if code == grpc.StatusCode.CANCELLED:
        return Code.CANCELED
    return Code[code.name]


def refused(message: str, field: str = "request") -> ConnectError:
    """INVALID_ARGUMENT naming `field` (`request`: a body that is no request at all)."""
    return rich_error(rich_status("INVALID_ARGUMENT", message, {"field": field}))
