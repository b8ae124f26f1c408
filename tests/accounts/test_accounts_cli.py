"""`kafana account` through a server and straight in its Redis; `kafana serve --auth`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import grpc
from kafana.v1 import accounts_pb2, accounts_pb2_grpc, rules_pb2, service_pb2
from kit import KAFANA, healthy, redis_cli, serving

from .accounts_support import bearer, code_of

TABLIC = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)


def account(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    """`kafana account ARGS` (KAFANA_* variables cleared, but for KAFANA_KEY=key)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    if key is not None:
        env["KAFANA_KEY"] = key
    return subprocess.run(
        [KAFANA, "account", *args], capture_output=True, text=True, env=env, timeout=60
    )


def made_key(done: subprocess.CompletedProcess[str]) -> str:
    """The key printed by create or rotate: one line, with a warning on stderr."""
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kfk_")
    assert "shown only this once" in done.stderr
    return lines[0]


async def test_accounts_through_the_cli(tmp_path: Path, redis_url: str) -> None:
    with serving(tmp_path, "--redis", redis_url) as (server,):
        server.wait_started()
        await healthy(server.target)
        assert "auth: required" in server.output()  # the default with a shared Redis
        root = made_key(account("create", "root", "--role", "operator", "--redis", redis_url))
        remote = ("--server", server.target)
        ana = made_key(account("create", "ana", "--role", "player", *remote, "--key", root))
        bot = made_key(account("create", "b1", "--role", "bot", *remote, key=root))
        listed = account("list", *remote, key=root)
        assert listed.returncode == 0, listed.stderr
        rows = [line.split() for line in listed.stdout.splitlines()]
        assert [(r[0], r[1], r[3]) for r in rows] == [
            ("ana", "player", "active"),
            ("b1", "bot", "active"),
            ("root", "operator", "active"),
        ]
        assert "kfk_" not in listed.stdout
        async with grpc.aio.insecure_channel(server.target) as channel:
            kafana = service_pb2_grpc_stub(channel)
            accounts = accounts_pb2_grpc.AccountsServiceStub(channel)
            who = accounts_pb2.WhoAmIRequest()
            assert (await accounts.WhoAmI(who, metadata=bearer(ana))).name == "ana"
            create = service_pb2.CreateTableRequest(
                config=rules_pb2.TableConfig(rules=TABLIC, seed=3)
            )
            assert await code_of(kafana.CreateTable(create)) == grpc.StatusCode.UNAUTHENTICATED
            assert (await kafana.CreateTable(create, metadata=bearer(bot))).table_id
            rotated = made_key(account("rotate", "ana", *remote, key=root))
            assert await code_of(accounts.WhoAmI(who, metadata=bearer(ana))) == (
                grpc.StatusCode.UNAUTHENTICATED
            )
            assert (await accounts.WhoAmI(who, metadata=bearer(rotated))).name == "ana"
            revoked = account("revoke", "ana", *remote, key=root)
            assert revoked.returncode == 0 and "revoked ana" in revoked.stdout
            assert await code_of(accounts.WhoAmI(who, metadata=bearer(rotated))) == (
                grpc.StatusCode.UNAUTHENTICATED
            )
        # A player's key is no operator's.
        refused = account("create", "eve", "--role", "operator", *remote, key=bot)
        assert refused.returncode == 1 and "PERMISSION_DENIED" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
        # Neither the server's log nor Redis holds a key in clear.
        port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
        dump = redis_cli(port, "hgetall", "{kafana:accounts}:bykey")
        dump += redis_cli(port, "hgetall", "{kafana:accounts}:keyof")
        for key in (root, ana, bot, rotated):
            assert key not in server.output() and key not in dump
            assert key.removeprefix("kfk_") not in dump


def test_cli_usage_errors_and_failures(tmp_path: Path, redis_url: str) -> None:
    neither = account("list")
    assert neither.returncode == 2 and "--server" in neither.stderr
    no_key = account("list", "--server", "127.0.0.1:1")
    assert no_key.returncode == 2 and "--key" in no_key.stderr
    bad_role = account("create", "x", "--role", "king", "--redis", redis_url)
    assert bad_role.returncode == 2
    made_key(account("create", "ana", "--role", "player", "--redis", redis_url))
    again = account("create", "ana", "--role", "player", "--redis", redis_url)
    assert again.returncode == 1 and "already" in again.stderr and "Traceback" not in again.stderr
    # bad input is exit status 2 whichever store says so (it was 1 here, 2 over --server)
    bad_name = account("create", "a b", "--role", "player", "--redis", redis_url)
    assert bad_name.returncode == 2 and "account name" in bad_name.stderr
    missing = account("revoke", "nobody", "--redis", redis_url)
    assert missing.returncode == 1 and "no account" in missing.stderr
    gone = account("list", "--redis", "redis://127.0.0.1:1/0")
    assert gone.returncode == 1 and len(gone.stderr.strip().splitlines()) == 1
    typo = subprocess.run(
        [KAFANA, "serve", "--memory", "--anonymous", "Capture"], capture_output=True, text=True
    )
    assert typo.returncode == 2 and "no RPC is called Capture" in typo.stderr


def service_pb2_grpc_stub(channel: grpc.aio.Channel) -> object:
    from kafana.v1 import service_pb2_grpc

    return service_pb2_grpc.KafanaServiceStub(channel)


async def test_client_commands_send_their_key(tmp_path: Path, redis_url: str) -> None:
    """`kafana bot run --key` (and KAFANA_KEY) on a server that requires keys."""
    with serving(tmp_path, "--redis", redis_url) as (server,):
        server.wait_started()
        await healthy(server.target)
        root = made_key(account("create", "root", "--role", "operator", "--redis", redis_url))
        remote = ("--server", server.target)
        keys = [
            made_key(account("create", f"b{i}", "--role", "bot", *remote, key=root)) for i in (0, 1)
        ]
        async with grpc.aio.insecure_channel(server.target) as channel:
            create = service_pb2.CreateTableRequest(
                config=rules_pb2.TableConfig(rules=TABLIC, seed=3, seat_accounts=["b0", "b1"])
            )
            made = await service_pb2_grpc_stub(channel).CreateTable(
                create, metadata=bearer(keys[0])
            )
        env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
        bot = [KAFANA, "bot", "run", "greedy", *remote, "--table", made.table_id]
        anonymous = subprocess.run(bot, capture_output=True, text=True, env=env, timeout=60)
        assert anonymous.returncode != 0 and "API key" in anonymous.stderr
        seats = [
            subprocess.Popen([*bot, "--key", keys[0]], env=env, stdout=subprocess.PIPE, text=True),
            subprocess.Popen(
                bot, env={**env, "KAFANA_KEY": keys[1]}, stdout=subprocess.PIPE, text=True
            ),
        ]
        outputs = [seat.communicate(timeout=120)[0] for seat in seats]
        assert all(seat.returncode == 0 for seat in seats), outputs
        assert all("match over" in out for out in outputs)


def test_the_default_mode_follows_the_store(tmp_path: Path, redis_url: str) -> None:
    """required on a shared Redis (flag or KAFANA_REDIS), open on this process's own store."""
    cases = [
        ((), {"KAFANA_REDIS": redis_url}, "auth: required"),
        (("--memory",), {"KAFANA_REDIS": redis_url}, "auth: open"),
        (("--memory",), {}, "auth: open"),
        (("--redis", redis_url, "--auth", "open"), {}, "auth: open"),
    ]
    for args, env, line in cases:
        with serving(tmp_path, *args, env=env) as (server,):
            server.wait_started()
            assert line in server.output()
