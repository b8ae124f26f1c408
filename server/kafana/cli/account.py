"""`kafana account create|list|revoke|rotate`: accounts and their API keys.

Through a server (`--server ADDR --key KEY`, an operator's key) or straight in its Redis
(`--redis URL`: how the first operator is made)::

    kafana account create root --role operator --redis redis://db:6379/0
    kafana account create ana --role player --server kafana.example:443 --tls-ca ca.pem --key $KEY

A new key is printed once, alone on its line (the warning goes to stderr); it is not stored
anywhere and cannot be shown again: `rotate` makes a new one. Errors are one line; exit status
2 for a usage error or bad input (a name the store or the server refuses as invalid), 1 for
another refusal or an unreachable server or store.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import click
import grpc
from kafana_client.aio import AsyncClient
from kafana_client.cli import interrupt
from kafana_client.cli.reach import TARGET, cli_key, reached, server_options
from kafana_client.errors import RpcError

from kafana.errors import InvalidInputError, KafanaError
from kafana.service.accounts import ROLE_NAMES, ROLES
from kafana.service.accounts_book import ROLES as ROLE_CHOICES
from kafana.service.accounts_book import AccountBook
from kafana.store.accounts import Account
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient, parse_url
from kafana.store.errors import StoreError, StoreUnavailable
from kafana.v1 import accounts_pb2, accounts_pb2_grpc

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
TIMEOUT_S = 10.0


class Backend(Protocol):
    """The account operations, through a server or straight in a store."""

    async def create(self, name: str, role: str) -> tuple[Account, str]: ...
    async def page(self, after: str) -> tuple[list[Account], str]: ...
    async def revoke(self, name: str) -> Account: ...
    async def rotate(self, name: str) -> tuple[Account, str]: ...


def _account(message: accounts_pb2.Account) -> Account:
    return Account(message.name, ROLE_NAMES[message.role], message.created_ms, message.revoked_ms)


class Remote:
    """Through the Accounts service of a server, with an operator's key (the client's)."""

    def __init__(self, client: AsyncClient) -> None:
        self.stub = accounts_pb2_grpc.AccountsServiceStub(client.channel)

    async def create(self, name: str, role: str) -> tuple[Account, str]:
        request = accounts_pb2.CreateAccountRequest(name=name, role=ROLES[role])  # type: ignore[arg-type]
        made = await self.stub.CreateAccount(request, timeout=TIMEOUT_S)
        return _account(made.account), made.key

    async def page(self, after: str) -> tuple[list[Account], str]:
        request = accounts_pb2.ListAccountsRequest(page_token=after)
        found = await self.stub.ListAccounts(request, timeout=TIMEOUT_S)
        return [_account(a) for a in found.accounts], found.next_page_token

    async def revoke(self, name: str) -> Account:
        request = accounts_pb2.RevokeAccountRequest(name=name)
        return _account(await self.stub.RevokeAccount(request, timeout=TIMEOUT_S))

    async def rotate(self, name: str) -> tuple[Account, str]:
        made = await self.stub.RotateKey(
            accounts_pb2.RotateKeyRequest(name=name), timeout=TIMEOUT_S
        )
        return _account(made.account), made.key


class Direct:
    """Straight in the store's Redis (no server, no key: whoever reaches the Redis is trusted)."""

    def __init__(self, url: str) -> None:
        self.client = RedisClient.from_url(url)
        self.book = AccountBook(RedisAccounts(self.client))

    async def create(self, name: str, role: str) -> tuple[Account, str]:
        return await self.book.create(name, role)

    async def page(self, after: str) -> tuple[list[Account], str]:
        return await self.book.page(after, 0)

    async def revoke(self, name: str) -> Account:
        return await self.book.revoke(name)

    async def rotate(self, name: str) -> tuple[Account, str]:
        return await self.book.rotate(name)

    async def close(self) -> None:
        await self.client.close()


def _check_backend(server: str | None, redis_url: str | None) -> None:
    """Refuse a usage error before anything is reached: one of --server (with a key) and
    --redis."""
    if bool(server) == bool(redis_url):
        raise click.UsageError("give --server ADDR (with --key), or --redis URL; not both")
    if redis_url:
        try:
            parse_url(redis_url)
        except ValueError as error:
            raise click.UsageError(str(error)) from None
    elif not cli_key():
        raise click.UsageError("--server needs an operator's --key (or KAFANA_KEY)")


def _run(
    server: str | None,
    redis_url: str | None,
    job: Callable[[Backend], Awaitable[T]],
) -> T:
    """`job` on the chosen backend; every failure becomes one line (exit status 2 for bad
    input, else 1)."""
    _check_backend(server, redis_url)

    async def main() -> T:
        if server:
            async with reached(server) as client:
                return await job(Remote(client))
        assert redis_url
        direct = Direct(redis_url)
        try:
            return await job(direct)
        finally:
            await direct.close()

    try:
        return interrupt.run(main())
    except (grpc.aio.AioRpcError, RpcError, InvalidInputError):
        raise  # the error boundary names the server, the code and what to do (bad input: 2)
    except KafanaError as error:
        raise click.ClickException(str(error)) from None
    except (StoreUnavailable, StoreError, OSError) as error:
        raise click.ClickException(f"the store at {redis_url} failed: {error}") from None


def target_options(command: F) -> F:
    """Where the accounts are: --server (with --key, --tls-ca) or --redis."""
    for option in reversed(
        (
            click.option(
                "--server",
                envvar="KAFANA_SERVER",
                type=TARGET,
                default=None,
                help="HOST:PORT of the server.",
            ),
            server_options,
            click.option(
                "--redis",
                "redis_url",
                default=None,
                help="redis://... of the server's store: act there directly (the first operator).",
            ),
        )
    ):
        command = option(command)
    return command


def _show_key(account: Account, key: str) -> None:
    click.echo(key)
    click.echo(
        f"kafana account: the key of {account.name!r} ({account.role}) is shown only this once "
        "and is not stored anywhere: keep it now",
        err=True,
    )


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


@click.group()
def account() -> None:
    """Accounts and their API keys (players, bots, organisers, operators)."""


@account.command()
@click.argument("name")
@click.option("--role", type=click.Choice(ROLE_CHOICES), required=True)
@target_options
def create(name: str, role: str, server: str | None, redis_url: str | None) -> None:
    """Make account NAME; print its key (once)."""
    made, key = _run(server, redis_url, lambda b: b.create(name, role))
    _show_key(made, key)


@account.command(name="list")
@target_options
def list_accounts(server: str | None, redis_url: str | None) -> None:
    """Every account: name, role, created, status (never a key)."""

    async def everything(backend: Backend) -> list[Account]:
        found: list[Account] = []
        after = ""
        while True:
            page, after = await backend.page(after)
            found += page
            if not after:
                return found

    for item in _run(server, redis_url, everything):
        status = "active" if item.active else f"revoked {_when(item.revoked_ms)}"
        click.echo(f"{item.name:<24} {item.role:<10} {_when(item.created_ms)}  {status}")


@account.command()
@click.argument("name")
@target_options
def revoke(name: str, server: str | None, redis_url: str | None) -> None:
    """Refuse NAME's key from now on (the account stays listed, revoked)."""
    gone = _run(server, redis_url, lambda b: b.revoke(name))
    click.echo(f"revoked {gone.name} ({gone.role})")


@account.command()
@click.argument("name")
@target_options
def rotate(name: str, server: str | None, redis_url: str | None) -> None:
    """Give NAME a new key (printed once); the old one stops working."""
    made, key = _run(server, redis_url, lambda b: b.rotate(name))
    _show_key(made, key)
