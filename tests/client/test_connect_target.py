"""A URL given as the SDK's target is refused at once, saying the HOST:PORT in it: grpc took
`http://127.0.0.1:50051` as a name to resolve and every call failed after its deadline,
naming neither the target nor the scheme (only the CLI's `--server` refused URLs)."""

from __future__ import annotations

import pytest
from kafana_client.blocking import Client
from kafana_client.connection import ConnectOptions


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("http://127.0.0.1:50051", "give 127.0.0.1:50051"),
        ("https://kafana.example:443/", "give kafana.example:443 with tls=Tls(...)"),
        ("grpc://nowhere/", "give HOST:PORT"),
    ],
)
def test_a_url_is_no_target(target: str, says: str) -> None:
    with pytest.raises(ValueError, match="takes no scheme") as refused:
        Client.connect(target)
    assert says in str(refused.value)
    with pytest.raises(ValueError, match="takes no scheme"):
        ConnectOptions("127.0.0.1:50051", routes=(target,))  # a route is a target too


@pytest.mark.parametrize("target", ["127.0.0.1:50051", "[::1]:50051", "dns:///localhost:1"])
def test_targets_grpc_takes_are_taken(target: str) -> None:
    assert ConnectOptions(target).target == target
