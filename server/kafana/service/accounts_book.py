"""Account administration on an account store: the rules, with no gRPC in them.

The Accounts service (`kafana.service.accounts`) and `kafana account --redis` (which makes the
first operator straight in the store) both act through an `AccountBook`, here on the accounts
of a table store `store` (`kafana.store.accounts_redis.accounts_for`):

    book = AccountBook(accounts_for(store))
    account, key = await book.create("ana", "player")  # account.role == "player", key "kfk_..."
"""

from __future__ import annotations

import re

from kafana.errors import AlreadyExistsError, InvalidInputError, KafanaError, NotFoundError
from kafana.store.accounts import Account, AccountStore, key_hash, new_key, now_ms

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ROLES = ("player", "bot", "organiser", "operator")
SELF_ROLES = ("player", "bot")  # what a stranger may register as
PAGE_SIZE, MAX_PAGE_SIZE = 100, 1000


class AccountExistsError(AlreadyExistsError):
    """The name is taken."""


class AccountRevokedError(KafanaError):
    """The account is revoked: it gets no new key."""


def account_name(name: str) -> str:
    """`name` if it is a valid account name, else InvalidInputError.

    >>> account_name("ana.bot-2")
    'ana.bot-2'
    """
    if not NAME.fullmatch(name):
        raise InvalidInputError(
            "an account name is 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit",
            field="name",
        )
    return name


def role(name: str, allowed: tuple[str, ...] = ROLES) -> str:
    """`name` if it is one of the `allowed` roles, else InvalidInputError."""
    if name not in allowed:
        raise InvalidInputError(f"the role is one of {', '.join(allowed)}")
    return name


class AccountBook:
    """Creates, lists, revokes and re-keys the accounts of one store."""

    def __init__(self, accounts: AccountStore) -> None:
        self.accounts = accounts

    async def create(self, name: str, role_name: str, origin: str = "") -> tuple[Account, str]:
        """A new account and its key (shown to its holder once, never kept); `origin`: made by
        self-registration from that address (charged to it, deleted if its key goes unused)."""
        key = new_key()
        account = Account(account_name(name), role(role_name), now_ms(), origin=origin)
        if not await self.accounts.create(account, key_hash(key), expires=bool(origin)):
            raise _taken(name)
        return account, key

    async def free(self, name: str) -> str:
        """`name` if it is a valid account name no account has yet, else InvalidInputError or
        AccountExistsError (as `create` would answer)."""
        if await self.accounts.get(account_name(name)) is not None:
            raise _taken(name)
        return name

    async def page(self, after: str, size: int) -> tuple[list[Account], str]:
        """Up to `size` accounts after `after`, and the name to go on after ("": the end)."""
        size = min(size or PAGE_SIZE, MAX_PAGE_SIZE)
        found = await self.accounts.list(after, size + 1)
        page = found[:size]
        return page, page[-1].name if len(found) > size else ""

    async def get(self, name: str) -> Account:
        """The account `name`, else NotFoundError."""
        account = await self.accounts.get(account_name(name))
        if account is None:
            raise NotFoundError(f"no account {name!r}", resource="account")
        return account

    async def revoke(self, name: str) -> Account:
        """Refuse its key from now on; the account stays, revoked."""
        await self.get(name)
        await self.accounts.revoke(name, now_ms())
        return await self.get(name)

    async def rotate(self, name: str) -> tuple[Account, str]:
        """A new key for an active account; the old one stops working."""
        account = await self.get(name)
        key = new_key()
        if not await self.accounts.rotate(account.name, key_hash(key)):
            raise AccountRevokedError(f"account {account.name!r} is revoked: make a new one")
        return account, key


def _taken(name: str) -> AccountExistsError:
    return AccountExistsError(f"there is an account {name!r} already", resource="account")
