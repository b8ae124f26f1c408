"""The embedded default is a private redis-server: `kafana serve` without `--redis` starts one,
a `kafana serve` killed outright leaves none behind, and without `redis-server` on the PATH it
refuses in one line saying how to install one (exit status 1)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from signal import SIGKILL

import pytest
from kafana.cli.boundary import describe
from kafana.service.embedded import MissingRedisServer, choose_store
from kit import KAFANA, serve


def children(pid: int) -> list[int]:
    """The pids of `pid`'s child processes (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (not a zombie)."""
    try:
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]
    except OSError:
        return False


def test_without_redis_server_the_store_choice_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", str(Path(KAFANA).parent))  # no redis-server there
    with pytest.raises(MissingRedisServer) as refused:
        choose_store(None)
    line, status = describe(refused.value, ["serve"])
    assert status == 1 and "\n" not in line
    assert line.startswith("redis-server is not on the PATH: install Redis 7")
    assert "scripts/ensure-redis" in line and "--redis URL" in line


def test_a_redis_server_older_than_7_is_refused_the_same_way(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = tmp_path / "redis-server"  # what Ubuntu 22.04's package says
    old.write_text('#!/bin/sh\necho "Redis server v=6.0.16 sha=00000000:0 malloc=jemalloc"\n')
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingRedisServer) as refused:
        choose_store(None)
    line, status = describe(refused.value, ["serve"])
    assert status == 1 and line.startswith("redis-server 6.0.16 is older than Redis 7: install")


def test_a_private_redis_server_is_the_store_without_redis() -> None:
    choice = choose_store(None)
    try:
        assert choice.description.startswith("store: private redis-server on 127.0.0.1:")
        assert choice.cleanups  # stopped with the server
    finally:
        choice.cleanup()


def test_without_redis_server_on_the_path_serve_says_how_to_install_it(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    env["PATH"] = str(Path(KAFANA).parent)  # the venv's commands, no redis-server
    done = subprocess.run(
        [KAFANA, "serve", "--port", "0"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if "UserWarning" not in line]
    lines = [line for line in lines if not line.startswith("  ")]  # a stale build's warning
    assert lines == [lines[-1]] and lines[-1].startswith("kafana serve: redis-server is not on")
    assert "scripts/ensure-redis" in lines[-1] and "--redis" in lines[-1]
    assert "serving on port" not in done.stdout


def test_a_killed_serve_leaves_no_private_redis_server_behind(tmp_path: Path) -> None:
    served = serve(tmp_path)
    try:
        served.wait_started()
        assert "store: private redis-server" in served.output()
        (redis,) = [p for p in children(served.process.pid) if alive(p)]
        assert "redis-server" in Path(f"/proc/{redis}/cmdline").read_text()
        served.stop(SIGKILL)
        deadline = time.monotonic() + 10
        while alive(redis) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(redis), "the private redis-server outlived its kafana serve"
    finally:
        served.end()
