"""Server reflection, `grpc.reflection.v1` and `v1alpha`, that answers with the protos' comments.

grpcio-reflection ships only v1alpha, and it answers from a descriptor pool, which keeps no
source info. This servicer answers both names from the descriptor set `scripts/gen_proto.py`
writes with `--include_source_info` (`kafana/v1/kafana.binpb`), so `grpcurl describe`, Postman
and code generators that read reflection see every field's documentation. v1's messages are
v1alpha's under a new package (the same fields and numbers, so the same bytes on the wire): one
handler serves both, and reflection describes its own v1 file, derived from the v1alpha one.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterable
from importlib import resources
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped, unused-ignore]
    reflection_pb2,
)

DESCRIPTOR_SET = "kafana.binpb"
ALPHA = "grpc.reflection.v1alpha"
V1 = "grpc.reflection.v1"
METHOD = "ServerReflectionInfo"
SERVICE_NAMES = (f"{V1}.ServerReflection", f"{ALPHA}.ServerReflection")
"""The two names the reflection service answers to."""
Request = Any  # reflection_pb2.ServerReflectionRequest (grpc_reflection has no types)
Response = Any  # reflection_pb2.ServerReflectionResponse


def kafana_files() -> list[descriptor_pb2.FileDescriptorProto]:
    """The files of `proto/kafana/v1`, with their comments, in dependency order."""
    data = (resources.files("kafana.v1") / DESCRIPTOR_SET).read_bytes()
    return list(descriptor_pb2.FileDescriptorSet.FromString(data).file)


def reflection_v1_file() -> descriptor_pb2.FileDescriptorProto:
    """`grpc/reflection/v1/reflection.proto`: the v1alpha file under v1's name and package."""
    alpha = descriptor_pb2.FileDescriptorProto.FromString(reflection_pb2.DESCRIPTOR.serialized_pb)
    v1 = descriptor_pb2.FileDescriptorProto()
    v1.CopyFrom(alpha)
    v1.name = "grpc/reflection/v1/reflection.proto"
    v1.package = V1
    v1.ClearField("options")  # v1alpha's language options name v1alpha packages

    def rename(type_name: str) -> str:
        return type_name.replace(f".{ALPHA}.", f".{V1}.", 1)

    for message in v1.message_type:
        for field in message.field:
            if field.type_name:
                field.type_name = rename(field.type_name)
    for service in v1.service:
        for method in service.method:
            method.input_type = rename(method.input_type)
            method.output_type = rename(method.output_type)
    return v1


def served_files() -> list[descriptor_pb2.FileDescriptorProto]:
    """Every file reflection describes: Kafana's, health checking's and reflection's own."""
    standard = [
        descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
        for module in (health_pb2, reflection_pb2)
    ]
    return [*kafana_files(), *standard, reflection_v1_file()]


class Reflection:
    """The `ServerReflectionInfo` stream of both reflection versions, over `files`."""

    def __init__(
        self,
        service_names: Iterable[str],
        files: Iterable[descriptor_pb2.FileDescriptorProto] | None = None,
    ) -> None:
        self.service_names = tuple(sorted(set(service_names) | set(SERVICE_NAMES)))
        self.pool, self.files = _catalogue() if files is None else _indexed(tuple(files))

    async def ServerReflectionInfo(  # the gRPC method's name
        self, requests: AsyncIterator[Request], context: Any
    ) -> AsyncIterator[Response]:
        """One answer per request, as grpc.reflection's servicer gives them."""
        async for request in requests:
            yield self.answer(request)

    def answer(self, request: Request) -> Response:
        """The answer to one reflection request."""
        kind = request.WhichOneof("message_request")
        try:
            if kind == "list_services":
                services = [reflection_pb2.ServiceResponse(name=n) for n in self.service_names]
                return reflection_pb2.ServerReflectionResponse(
                    original_request=request,
                    list_services_response=reflection_pb2.ListServiceResponse(service=services),
                )
            if kind == "file_by_filename":
                return self._file(request, request.file_by_filename)
            if kind == "file_containing_symbol":
                symbol = request.file_containing_symbol
                return self._file(request, self.pool.FindFileContainingSymbol(symbol).name)
            if kind == "file_containing_extension":
                wanted = request.file_containing_extension
                message = self.pool.FindMessageTypeByName(wanted.containing_type)
                extension = self.pool.FindExtensionByNumber(message, wanted.extension_number)
                symbol = extension.full_name
                return self._file(request, self.pool.FindFileContainingSymbol(symbol).name)
            if kind == "all_extension_numbers_of_type":
                message = self.pool.FindMessageTypeByName(request.all_extension_numbers_of_type)
                numbers = sorted(e.number for e in self.pool.FindAllExtensions(message))
                return reflection_pb2.ServerReflectionResponse(
                    original_request=request,
                    all_extension_numbers_response=reflection_pb2.ExtensionNumberResponse(
                        base_type_name=message.full_name, extension_number=numbers
                    ),
                )
        except KeyError:
            return _error(request, grpc.StatusCode.NOT_FOUND, "not found")
        return _error(request, grpc.StatusCode.INVALID_ARGUMENT, "no request")

    def _file(self, request: Request, name: str) -> Response:
        """The file `name` and every file it imports, directly or not, comments included."""
        if name not in self.files:
            raise KeyError(name)
        found: dict[str, bytes] = {}
        waiting = [name]
        while waiting:
            file = self.files[waiting.pop()]
            if file.name not in found:
                found[file.name] = file.SerializeToString()
                waiting.extend(d for d in file.dependency if d in self.files)
        return reflection_pb2.ServerReflectionResponse(
            original_request=request,
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(
                file_descriptor_proto=list(found.values())
            ),
        )


Catalogue = tuple[descriptor_pool.DescriptorPool, dict[str, descriptor_pb2.FileDescriptorProto]]


def _indexed(files: tuple[descriptor_pb2.FileDescriptorProto, ...]) -> Catalogue:
    """A pool of `files` (dependencies first) and the files by name."""
    pool = descriptor_pool.DescriptorPool()
    for file in files:
        pool.Add(file)
    return pool, {file.name: file for file in files}


@functools.cache
def _catalogue() -> Catalogue:
    """The served files, read once per process (every server shares them: they never change)."""
    return _indexed(tuple(served_files()))


def _error(request: Request, code: grpc.StatusCode, message: str) -> Response:
    return reflection_pb2.ServerReflectionResponse(
        original_request=request,
        error_response=reflection_pb2.ErrorResponse(
            error_code=code.value[0], error_message=message
        ),
    )


def enable_reflection(service_names: Iterable[str], server: Any) -> Reflection:
    """Serve reflection v1 and v1alpha on the grpc.aio `server`, listing `service_names`."""
    reflection = Reflection(service_names)
    handler = grpc.stream_stream_rpc_method_handler(
        reflection.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    for name in SERVICE_NAMES:
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(name, {METHOD: handler}),)
        )
    return reflection
