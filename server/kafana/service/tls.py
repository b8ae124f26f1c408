"""TLS for the server: a certificate and key, and optionally a CA whose clients are admitted.

With `client_ca`, the server asks every client for a certificate signed by that CA (mutual
TLS) and refuses the handshake without one.
"""

from __future__ import annotations

from pathlib import Path

import grpc  # type: ignore[import-untyped, unused-ignore]


def _pem(value: bytes | str | Path) -> bytes:
    return value if isinstance(value, bytes) else Path(value).read_bytes()


def server_credentials(
    certificate: bytes | str | Path,
    key: bytes | str | Path,
    client_ca: bytes | str | Path | None = None,
) -> grpc.ServerCredentials:
    """Credentials for `create_server`: PEM bytes or paths to PEM files.

    Args:
        certificate: the server's certificate chain.
        key: its private key.
        client_ca: if given, mutual TLS: clients must present a certificate signed by it.
    """
    return grpc.ssl_server_credentials(
        [(_pem(key), _pem(certificate))],
        root_certificates=None if client_ca is None else _pem(client_ca),
        require_client_auth=client_ca is not None,
    )
