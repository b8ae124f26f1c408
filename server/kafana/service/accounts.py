"""The Accounts service: operators make, list, revoke and re-key accounts; strangers register
when the server allows it. Who may call what is the interceptor's (`kafana.service.auth`)."""

from __future__ import annotations

import re
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import AuthenticationError, InvalidInputError, NotFoundError
from kafana.service.auth import Authenticator, caller_of
from kafana.service.errors import refuse, unary
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.v1 import accounts_pb2, accounts_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]
SERVICE_NAME = accounts_pb2.DESCRIPTOR.services_by_name["Accounts"].full_name
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ROLE_NAMES = {
    accounts_pb2.ROLE_PLAYER: "player",
    accounts_pb2.ROLE_BOT: "bot",
    accounts_pb2.ROLE_ORGANISER: "organiser",
    accounts_pb2.ROLE_OPERATOR: "operator",
}
ROLES = {name: role for role, name in ROLE_NAMES.items()}
SELF_ROLES = ("player", "bot")  # what a stranger may register as
ACCOUNT_EXISTS = "AccountExistsError"
ACCOUNT_REVOKED = "AccountRevokedError"
PAGE_SIZE, MAX_PAGE_SIZE = 100, 1000


def account_name(name: str) -> str:
    """`name` if it is a valid account name, else InvalidInputError.

    >>> account_name("ana.bot-2")
    'ana.bot-2'
    """
    if not NAME.fullmatch(name):
        raise InvalidInputError(
            "an account name is 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit"
        )
    return name


def role_name(role: int, allowed: tuple[str, ...] = tuple(ROLES)) -> str:
    """The name of the proto `role`, if it is one of `allowed`, else InvalidInputError."""
    name = ROLE_NAMES.get(role)  # type: ignore[call-overload]
    if name not in allowed:
        raise InvalidInputError(f"the role is one of {', '.join(allowed)}")
    return str(name)


def message(account: Account) -> accounts_pb2.Account:
    """The proto of `account` (never its key: the store has none)."""
    return accounts_pb2.Account(
        name=account.name,
        role=ROLES[account.role],
        created_ms=account.created_ms,
        revoked_ms=account.revoked_ms,
    )


class AccountsServicer(accounts_pb2_grpc.AccountsServicer):  # type: ignore[misc, unused-ignore]
    """Accounts on the authenticator's store; revoking or re-keying here acts at once."""

    def __init__(self, auth: Authenticator) -> None:
        self.auth = auth
        self.accounts = auth.accounts

    async def _create(self, name: str, role: str, context: Context) -> accounts_pb2.AccountKey:
        key = new_key()
        account = Account(account_name(name), role, now_ms())
        if not await self.accounts.create(account, key_hash(key)):
            await refuse(
                context,
                grpc.StatusCode.ALREADY_EXISTS,
                f"there is an account {name!r} already",
                ACCOUNT_EXISTS,
            )
        return accounts_pb2.AccountKey(account=message(account), key=key)

    @unary
    async def CreateAccount(
        self, request: accounts_pb2.CreateAccountRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A new account of any role, and its key."""
        return await self._create(request.name, role_name(request.role), context)

    @unary
    async def Register(
        self, request: accounts_pb2.RegisterRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A player or bot account, when self-registration is on."""
        if not self.auth.policy.self_register:
            raise AuthenticationError(self.auth.policy.refusal("Register", request))
        role = request.role or accounts_pb2.ROLE_PLAYER
        return await self._create(request.name, role_name(role, SELF_ROLES), context)

    @unary
    async def ListAccounts(
        self, request: accounts_pb2.ListAccountsRequest, context: Context
    ) -> accounts_pb2.ListAccountsResponse:
        """A page of accounts by name."""
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        page = await self.accounts.list(request.page_token, size + 1)
        more = len(page) > size
        page = page[:size]
        return accounts_pb2.ListAccountsResponse(
            accounts=[message(a) for a in page],
            next_page_token=page[-1].name if more else "",
        )

    async def _existing(self, name: str) -> Account:
        account = await self.accounts.get(account_name(name))
        if account is None:
            raise NotFoundError(f"no account {name!r}")
        return account

    @unary
    async def RevokeAccount(
        self, request: accounts_pb2.RevokeAccountRequest, context: Context
    ) -> accounts_pb2.Account:
        """Refuse its key from now on."""
        await self._existing(request.name)
        await self.accounts.revoke(request.name, now_ms())
        self.auth.cache.forget(request.name)
        return message(await self._existing(request.name))

    @unary
    async def RotateKey(
        self, request: accounts_pb2.RotateKeyRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A new key for an active account."""
        account = await self._existing(request.name)
        key = new_key()
        if not await self.accounts.rotate(account.name, key_hash(key)):
            await refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"account {account.name!r} is revoked: make a new one",
                ACCOUNT_REVOKED,
            )
        self.auth.cache.forget(account.name)
        return accounts_pb2.AccountKey(account=message(account), key=key)

    @unary
    async def WhoAmI(
        self, request: accounts_pb2.WhoAmIRequest, context: Context
    ) -> accounts_pb2.Account:
        """The caller's account."""
        caller = caller_of(context)
        if caller.account is None:
            raise AuthenticationError("no API key was sent (authorization: Bearer <key>)")
        return message(await self._existing(caller.account))
