"""TLS: server authentication with our own CA, and mutual TLS with a client certificate."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from kafana.service.servicer import KafanaServiceServicer
from kafana.service.tables import Tables
from kafana.store.base import TableStore
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2_grpc
from kafana_client import AsyncClient, Deadlines, Retry, RpcError, Tls, table_config

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _issue(directory: Path, name: str, extensions: str) -> None:
    _openssl(
        "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
        "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=directory,
    )  # fmt: skip
    (directory / f"{name}.ext").write_text(extensions)
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
        cwd=directory,
    )  # fmt: skip


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA, a server certificate for localhost and a client certificate."""
    directory = tmp_path_factory.mktemp("certs")
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=kafana test CA", cwd=directory,
    )  # fmt: skip
    _issue(directory, "server", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _issue(directory, "client", "extendedKeyUsage=clientAuth\n")
    return directory


async def _tls_server(
    store: TableStore, certs: Path, require_client: bool
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    servicer = KafanaServiceServicer(Tables(store))
    service_pb2_grpc.add_KafanaServiceServicer_to_server(servicer, server)
    credentials = grpc.ssl_server_credentials(
        [((certs / "server.key").read_bytes(), (certs / "server.pem").read_bytes())],
        root_certificates=(certs / "ca.pem").read_bytes(),
        require_client_auth=require_client,
    )
    port = server.add_secure_port("127.0.0.1:0", credentials)
    await server.start()
    return server, port


@pytest.fixture(params=[False, True], ids=["server-auth", "mutual"])
async def tls_server(
    certs: Path, request: pytest.FixtureRequest, redis_store: RedisStore
) -> AsyncIterator[tuple[int, bool]]:
    server, port = await _tls_server(redis_store, certs, request.param)
    try:
        yield port, request.param
    finally:
        await server.stop(None)


async def test_tls_calls(certs: Path, tls_server: tuple[int, bool]) -> None:
    port, mutual = tls_server
    tls = Tls(
        root_certificates=certs / "ca.pem",
        client_certificate=certs / "client.pem" if mutual else None,
        client_key=certs / "client.key" if mutual else None,
        server_name="localhost",
    )
    async with AsyncClient.connect(f"127.0.0.1:{port}", tls=tls) as client:
        table = await client.create_table(table_config(seed=5))
        seat = await client.join(table.table_id, name="secure")
        assert (await seat.state()).tablic.seat == 0


async def test_tls_refuses_an_unknown_server(certs: Path, tls_server: tuple[int, bool]) -> None:
    port, _mutual = tls_server
    tls = Tls(server_name="localhost")  # the system roots do not know our test CA
    deadlines = Deadlines(default=2.0)
    connect = AsyncClient.connect
    target = f"127.0.0.1:{port}"
    async with connect(target, tls=tls, deadlines=deadlines, retry=Retry(attempts=1)) as client:
        with pytest.raises(RpcError) as error:
            await client.list_tables()
        assert error.value.code == grpc.StatusCode.UNAVAILABLE


def test_a_certificate_needs_its_key(certs: Path) -> None:
    with pytest.raises(ValueError, match="needs its key"):
        Tls(client_certificate=certs / "client.pem").credentials()
