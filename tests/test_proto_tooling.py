"""The contract's tooling: reflection v1 and v1alpha with the protos' comments, and buf's
checks (`scripts/buf-check`: lint, and breaking against the last release image) catching a
break.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2
from kafana.service.server import create_server
from kafana.store.redis_store import RedisStore

ROOT = Path(__file__).resolve().parents[1]
BUF = ROOT / "node_modules" / ".bin" / "buf"
RELEASES = ROOT / "proto" / "releases"
MESSAGE_TYPE, FIELD = 4, 2  # FileDescriptorProto.message_type, DescriptorProto.field
Request = reflection_pb2.ServerReflectionRequest
Response = reflection_pb2.ServerReflectionResponse


async def reflect(target: str, version: str, request: Request) -> Response:
    """One reflection request to `grpc.reflection.<version>` at `target`."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=Request.SerializeToString,
            response_deserializer=Response.FromString,
        )
        async for answer in call(iter([request])):
            return answer
    raise AssertionError("no reflection answer")


def comment_of(file: descriptor_pb2.FileDescriptorProto, message: str, field: str) -> str:
    """The leading comment of `message.field` in the file's source info."""
    m = next(i for i, d in enumerate(file.message_type) if d.name == message)
    f = next(i for i, d in enumerate(file.message_type[m].field) if d.name == field)
    for location in file.source_code_info.location:
        if list(location.path) == [MESSAGE_TYPE, m, FIELD, f]:
            return location.leading_comments
    raise AssertionError(f"no source info for {message}.{field}")


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
async def test_reflection_serves_descriptors_with_their_comments(
    version: str, redis_store: RedisStore
) -> None:
    server = create_server(redis_store)
    await server.start()
    try:
        target = f"127.0.0.1:{server.port}"
        listed = await reflect(target, version, Request(list_services=""))
        names = {s.name for s in listed.list_services_response.service}
        assert {
            "kafana.v1.KafanaService",
            "kafana.v1.AccountsService",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        } <= names

        answer = await reflect(
            target, version, Request(file_containing_symbol="kafana.v1.KafanaService")
        )
        files = {
            f.name: f
            for f in map(
                descriptor_pb2.FileDescriptorProto.FromString,
                answer.file_descriptor_response.file_descriptor_proto,
            )
        }
        # the service's file and every file it imports
        assert {"kafana/v1/service.proto", "kafana/v1/rules.proto"} <= set(files)
        comment = comment_of(files["kafana/v1/service.proto"], "PlayMoveRequest", "client_move_id")
        assert "MOVE_ID_REUSED" in comment, comment  # the proto's own words

        v1 = await reflect(
            target, version, Request(file_containing_symbol="grpc.reflection.v1.ServerReflection")
        )
        (own,) = map(
            descriptor_pb2.FileDescriptorProto.FromString,
            v1.file_descriptor_response.file_descriptor_proto,
        )
        assert (own.name, own.package) == (
            "grpc/reflection/v1/reflection.proto",
            "grpc.reflection.v1",
        )

        missing = await reflect(target, version, Request(file_containing_symbol="no.Such"))
        assert missing.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    finally:
        await server.stop(0.5)


def buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the repository's buf (from npm: `npm ci`, which `make test` runs first)."""
    assert BUF.exists(), "buf is missing: run npm ci (make test does)"
    return subprocess.run(
        [str(BUF), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def last_release() -> Path:
    """The newest committed release image (proto/releases/vX.Y.Z.binpb)."""
    images = sorted(
        RELEASES.glob("v*.binpb"),
        key=lambda p: tuple(int(n) for n in p.stem[1:].split(".")),
    )
    assert images, "no release image: scripts/buf-check --release v1.0.0"
    return images[-1]


def test_buf_check_passes_on_the_protos_as_they_are() -> None:
    result = subprocess.run(
        [str(ROOT / "scripts" / "buf-check")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "buf lint: clean" in result.stdout
    assert f"no breaking change since {last_release().stem}" in result.stdout


def test_buf_breaking_catches_a_deleted_field(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    image = str(last_release())
    assert buf("breaking", "--against", image, cwd=tmp_path).returncode == 0
    service = tmp_path / "proto" / "kafana" / "v1" / "service.proto"
    text = service.read_text()
    field = "  string client_move_id = 3;\n"
    assert text.count(field) == 1
    service.write_text(text.replace(field, ""))
    broken = buf("breaking", "--against", image, cwd=tmp_path)
    assert broken.returncode != 0
    assert 'field "3" with name "client_move_id" on message "PlayMoveRequest" was deleted' in (
        broken.stdout + broken.stderr
    )
