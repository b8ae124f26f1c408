"""The competition logic is pure (no grpc, redis, protobuf) and its doctests hold."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
import textwrap

import pytest

PURE = (
    "fairness",
    "envelope",
    "verify",
    "verify_export",
    "ratings",
    "pairing",
    "standings",
    "policy",
    "model",
    "tournament",
    "exports",
    "local_runner",
    "league.verify_export",
)
DOCTESTED = (*PURE, "keys", "league.matchmaking", "wire")

SCRIPT = textwrap.dedent(
    """
    import importlib, sys
    BLOCKED = ("grpc", "redis", "google.protobuf")
    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"blocked: {{name}}")
            return None
    sys.meta_path.insert(0, Blocker())
    for name in {modules!r}:
        importlib.import_module("kafana.competitions." + name)
    print("ok")
    """
)


def test_pure_modules_import_without_grpc_or_redis() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(modules=PURE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("name", DOCTESTED)
def test_doctests(name: str) -> None:
    module = importlib.import_module(f"kafana.competitions.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0
