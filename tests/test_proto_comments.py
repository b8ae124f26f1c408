"""Every client-facing element of the proto has a comment: an outsider reads only proto/ and docs/.

Read from the committed descriptor set (server/kafana/v1/kafana.binpb, made with its source
info by scripts/gen_proto.py): each message, field, enum, enum value, service and method of
kafana.v1 has a leading (or trailing) comment. storage.proto is the server's own (never sent).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from google.protobuf import descriptor_pb2

DESCRIPTORS = Path(__file__).resolve().parents[1] / "server" / "kafana" / "v1" / "kafana.binpb"
INTERNAL = {"kafana/v1/storage.proto"}

# Paths in FileDescriptorProto (descriptor.proto field numbers).
MESSAGE, ENUM, SERVICE = 4, 5, 6
FIELD, NESTED, NESTED_ENUM, ONEOF = 2, 3, 4, 8
VALUE, METHOD = 2, 2


def _elements(file: descriptor_pb2.FileDescriptorProto) -> Iterator[tuple[tuple[int, ...], str]]:
    """(source path, full name) of every element that must be documented."""

    def enums(
        prefix: tuple[int, ...], scope: str, items: list[descriptor_pb2.EnumDescriptorProto]
    ) -> Iterator[tuple[tuple[int, ...], str]]:
        for i, enum in enumerate(items):
            yield (*prefix, i), f"{scope}.{enum.name}"
            for j, value in enumerate(enum.value):
                yield (*prefix, i, VALUE, j), f"{scope}.{enum.name}.{value.name}"

    def messages(
        prefix: tuple[int, ...], scope: str, items: list[descriptor_pb2.DescriptorProto]
    ) -> Iterator[tuple[tuple[int, ...], str]]:
        for i, message in enumerate(items):
            if message.options.map_entry:  # a map<,> field's own synthetic message
                continue
            path, name = (*prefix, i), f"{scope}.{message.name}"
            yield path, name
            for j, field in enumerate(message.field):
                yield (*path, FIELD, j), f"{name}.{field.name}"
            for j, oneof in enumerate(message.oneof_decl):
                if not oneof.name.startswith("_"):  # proto3 `optional` makes synthetic ones
                    yield (*path, ONEOF, j), f"{name}.{oneof.name}"
            yield from messages((*path, NESTED), name, list(message.nested_type))
            yield from enums((*path, NESTED_ENUM), name, list(message.enum_type))

    package = file.package
    yield from messages((MESSAGE,), package, list(file.message_type))
    yield from enums((ENUM,), package, list(file.enum_type))
    for i, service in enumerate(file.service):
        yield (SERVICE, i), f"{package}.{service.name}"
        for j, method in enumerate(service.method):
            yield (SERVICE, i, METHOD, j), f"{package}.{service.name}.{method.name}"


def _undocumented() -> list[str]:
    files = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTORS.read_bytes()).file
    missing = []
    for file in files:
        if not file.name.startswith("kafana/") or file.name in INTERNAL:
            continue
        comments = {
            tuple(loc.path): (loc.leading_comments + loc.trailing_comments).strip()
            for loc in file.source_code_info.location
        }
        missing += [name for path, name in _elements(file) if not comments.get(path)]
    return missing


def test_the_descriptor_set_has_source_info() -> None:
    files = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTORS.read_bytes()).file
    service = next(f for f in files if f.name == "kafana/v1/service.proto")
    assert len(service.source_code_info.location) > 100


def test_every_client_facing_element_has_a_comment() -> None:
    missing = _undocumented()
    assert not missing, f"{len(missing)} without a comment: {', '.join(missing[:40])}"
