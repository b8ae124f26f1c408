"""`kafana serve` builds one `Settings` from its flags and environment (their names are
contracts: deploy/ uses them) and the server is built from that object, whole."""

from __future__ import annotations

import dataclasses
import importlib

import pytest
from click.testing import CliRunner
from kafana.cli import main
from kafana.service.server import create_server
from kafana.service.settings import Settings
from kafana.store.redis_store import RedisStore

serve_command = importlib.import_module("kafana.cli.serve")  # the module (the package names
# the command `serve`)


def settings_of(args: list[str], env: dict[str, str]) -> Settings:
    """The Settings `kafana serve ARGS` builds (the server is not started)."""
    seen: list[Settings] = []
    original = serve_command.run
    serve_command.run = seen.append
    try:
        result = CliRunner().invoke(main, ["serve", "--port", "0", *args], env=env)
    finally:
        serve_command.run = original
    assert result.exit_code == 0, result.output
    assert len(seen) == 1
    return seen[0]


def test_flags_and_environment_become_one_settings() -> None:
    flags = ["--idle-ttl", "60", "--abandon-after", "3", "--cache-tables", "99"]
    flags += ["--http", "0", "--http-origins", "https://a.example", "--retention-days", "2"]
    env = {
        "KAFANA_FINISHED_TTL": "7",
        "KAFANA_JOIN_DEADLINE": "30",
        "KAFANA_RATE_LIMIT": "5",
        "KAFANA_RATE_BURST": "10",
        "KAFANA_MAX_STREAMS": "4",
        "KAFANA_TABLES_PER_HOUR": "9",
        "KAFANA_OPEN_TABLES": "8",
        "KAFANA_MAX_CONFIG_BYTES": "1000",
        "KAFANA_MAX_MESSAGE_BYTES": "2000",
        "KAFANA_HOST": "127.0.0.1",
        "KAFANA_DURABILITY": "replicated",
    }
    got = settings_of(flags, env)
    assert (got.idle_ttl_ms, got.finished_ttl_ms, got.join_deadline_ms) == (60_000, 7_000, 30_000)
    assert (got.abandon_after, got.cache_size, got.retention_ms) == (3, 99, 2 * 86_400_000)
    assert (got.http_port, got.http_origins) == (0, ("https://a.example",))
    assert (got.rate_limit.rate, got.rate_limit.burst, got.rate_limit.max_streams) == (5, 10, 4)
    limits = got.limits
    assert (limits.tables_per_hour, limits.open_tables) == (9, 8)
    assert (limits.config_bytes, limits.message_bytes) == (1000, 2000)
    assert (got.host, got.port, got.durability, got.metered) == (
        "127.0.0.1",
        0,
        "replicated",
        False,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.idle_ttl_ms = 1  # type: ignore[misc]


def test_a_bad_setting_is_refused_with_its_name() -> None:
    for wrong, named in (
        ({"abandon_after": 0}, "abandon_after"),
        ({"heartbeat_s": 0.0}, "heartbeat"),
        ({"tls_cert": "server.pem"}, "tls_cert and tls_key"),
        ({"join_deadline_ms": 0}, "join_deadline_ms"),
    ):
        with pytest.raises(ValueError, match=named):
            Settings(**wrong)  # type: ignore[arg-type]
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--abandon-after", "0"])
    assert result.exit_code == 2 and "--abandon-after" in result.output


async def test_the_server_and_its_tables_read_the_one_object(redis_url: str) -> None:
    settings = Settings(idle_ttl_ms=1234, abandon_after=5, heartbeat_s=0.5, clock_tick=0.05)
    store = RedisStore.from_url(redis_url)
    server = create_server(store, settings)
    try:
        assert server.tables.settings is settings
        assert server.tables.idle_ttl_ms == 1234 and server.tables.abandon_after == 5
        assert server.servicer.heartbeat_s == 0.5
        assert server.tables.quotas.limits is settings.limits
        assert server.clock.tick == 0.05
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--rate-limit", "nan"),  # was taken: every comparison with nan is false, no limit
        ("--rate-burst", "inf"),
        ("--grace", "nan"),
        ("--grace", "-1"),
        ("--heartbeat", "inf"),
    ],
)
def test_a_number_that_is_no_finite_setting_is_refused(
    option: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Settings] = []
    monkeypatch.setattr(serve_command, "run", started.append)  # never serves
    result = CliRunner().invoke(main, ["serve", "--port", "0", option, value])
    assert result.exit_code == 2 and not started, result.output
    assert option in result.output and "Traceback" not in result.output
