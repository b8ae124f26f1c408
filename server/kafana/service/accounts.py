"""The Accounts service: operators make, list, revoke and re-key accounts; strangers register
when the server allows it. Who may call what is the interceptor's (`kafana.service.auth`); the
rules are the account book's (`kafana.service.accounts_book`)."""

from __future__ import annotations

from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import ApiKeyMissing, InvalidInputError, PermissionDeniedError
from kafana.service.accounts_book import (
    SELF_ROLES,
    AccountBook,
    AccountExistsError,
    account_name,
)
from kafana.service.auth import Authenticator, caller_of, peer_address
from kafana.service.errors import refuse, unary
from kafana.service.inputs import page_token, read_page_token
from kafana.service.limits import (
    HOUR_MS,
    REGISTER_PER_HOUR,
    REGISTER_PER_HOUR_ALL,
    UNUSED_ACCOUNT_MS,
)
from kafana.service.quotas import over_quota
from kafana.store.accounts import Account, now_ms
from kafana.store.counters import Counters
from kafana.v1 import accounts_pb2, accounts_pb2_grpc

__all__ = ["SERVICE_NAME", "AccountsServiceServicer", "account_name", "message", "role_of"]

Context = grpc.aio.ServicerContext[Any, Any]
SERVICE_NAME = accounts_pb2.DESCRIPTOR.services_by_name["AccountsService"].full_name
ROLE_NAMES: dict[int, str] = {
    accounts_pb2.ROLE_PLAYER: "player",
    accounts_pb2.ROLE_BOT: "bot",
    accounts_pb2.ROLE_ORGANISER: "organiser",
    accounts_pb2.ROLE_OPERATOR: "operator",
}
ROLES = {name: number for number, name in ROLE_NAMES.items()}


def role_of(number: int) -> str:
    """The role name of the proto enum value `number`, else InvalidInputError."""
    name = ROLE_NAMES.get(number)
    if name is None:
        raise InvalidInputError(f"the role is one of {', '.join(ROLES)}")
    return name


def message(account: Account) -> accounts_pb2.Account:
    """The proto of `account` (never a key: the store has none)."""
    return accounts_pb2.Account(
        name=account.name,
        role=ROLES[account.role],  # type: ignore[arg-type]
        created_ms=account.created_ms,
        revoked_ms=account.revoked_ms,
    )


class AccountsServiceServicer(accounts_pb2_grpc.AccountsServiceServicer):  # type: ignore[misc, unused-ignore]
    """Accounts on the authenticator's store; revoking or re-keying here acts at once."""

    def __init__(self, auth: Authenticator, counters: Counters | None = None) -> None:
        self.auth = auth
        self.book = AccountBook(auth.accounts)
        self.counters = counters  # registrations per hour (shared by the store's processes)

    async def _create(
        self, name: str, role: str, context: Context, origin: str = ""
    ) -> accounts_pb2.AccountKey:
        try:
            account, key = await self.book.create(name, role, origin)
        except AccountExistsError as error:
            await refuse(context, error)
            raise
        return accounts_pb2.AccountKey(account=message(account), key=key)

    @unary
    async def CreateAccount(
        self, request: accounts_pb2.CreateAccountRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A new account of any role, and its key."""
        return await self._create(request.name, role_of(request.role), context)

    @unary
    async def Register(
        self, request: accounts_pb2.RegisterRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A player or bot account, when self-registration is on."""
        if not self.auth.policy.self_register:
            raise PermissionDeniedError(
                self.auth.policy.refusal("Register", request), needs="self_register"
            )
        role = role_of(request.role or accounts_pb2.ROLE_PLAYER)
        if role not in SELF_ROLES:
            raise InvalidInputError(
                f"a stranger registers as {' or '.join(SELF_ROLES)}", field="role"
            )
        name = await self.book.free(request.name)  # a refused one costs no place of the quota
        address = peer_address(context)
        await self._admit_registration(address)
        return await self._create(name, role, context, origin=address)

    async def _admit_registration(self, address: str) -> None:
        """Count a registration from `address` (per address, and all together, per hour), or
        raise QuotaExceeded; first delete the unused self-registered accounts that expired."""
        now = now_ms()
        for name in await self.auth.accounts.expire_unused(now - UNUSED_ACCOUNT_MS, 100):
            self.auth.cache.forget(name)
        if self.counters is None:
            return
        for key, limit, whose in (
            ("reg:p:" + address, REGISTER_PER_HOUR, "per address"),
            ("reg:*", REGISTER_PER_HOUR_ALL, "from all addresses"),
        ):
            wait = await self.counters.count(key, limit, HOUR_MS, now)
            if wait:
                raise over_quota(
                    f"at most {limit} accounts are registered per hour {whose}: retry in "
                    f"{-(-wait // 60_000)} min",
                    wait,
                    "registrations_per_hour",
                    limit,
                    refusal="registrations",
                )

    @unary
    async def ListAccounts(
        self, request: accounts_pb2.ListAccountsRequest, context: Context
    ) -> accounts_pb2.ListAccountsResponse:
        """A page of accounts by name."""
        after = read_page_token(request.page_token, "accounts")[1] if request.page_token else ""
        page, last = await self.book.page(after, request.page_size)
        token = page_token((0, last), "accounts") if last else ""  # opaque (AIP-158)
        return accounts_pb2.ListAccountsResponse(
            accounts=[message(a) for a in page], next_page_token=token
        )

    @unary
    async def RevokeAccount(
        self, request: accounts_pb2.RevokeAccountRequest, context: Context
    ) -> accounts_pb2.Account:
        """Refuse its key from now on."""
        account = await self.book.revoke(request.name)
        self.auth.cache.forget(account.name)
        return message(account)

    @unary
    async def RotateKey(
        self, request: accounts_pb2.RotateKeyRequest, context: Context
    ) -> accounts_pb2.AccountKey:
        """A new key for an active account."""
        account, key = await self.book.rotate(request.name)
        self.auth.cache.forget(account.name)
        return accounts_pb2.AccountKey(account=message(account), key=key)

    @unary
    async def WhoAmI(
        self, request: accounts_pb2.WhoAmIRequest, context: Context
    ) -> accounts_pb2.Account:
        """The caller's account."""
        caller = caller_of(context)
        if caller.account is None:
            raise ApiKeyMissing("no API key was sent (authorization: Bearer <key>)")
        return message(await self.book.get(caller.account))
