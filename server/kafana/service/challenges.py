"""Challenges between two accounts: a table made for both, the opponent told, then accepted.

`challenge` checks the challenger has an account and the opponent is another live one, makes a
table of the challenger's `TableConfig` with the two seats bound to the two accounts
(`seat_accounts`: nobody else can take them), takes the challenger's seat, and tells the
opponent on its account feed (`NOTICE_KIND_CHALLENGED`, the table and seat). The opponent
accepts by joining that seat (`JoinTable`), or declines (`Tables.decline`: the open table
closes, reason `declined`); an unanswered challenge lapses with the table's join deadline. The
table is the challenger's, charged to its quotas like any other (so a flood of challenges is
bounded by the tables a caller may create).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafana.errors import InvalidInputError, NotFoundError, PermissionDeniedError
from kafana.service.games import build_rules
from kafana.service.notices import Notices
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.accounts import AccountStore
from kafana.v1 import rules_pb2


@dataclass(frozen=True)
class Challenged:
    """A challenge made: its table, its admin token, the challenger's seat and token."""

    table_id: str
    admin_token: str
    seat: int
    token: str
    session: Session


async def challenge(
    tables: Tables,
    notices: Notices,
    accounts: AccountStore,
    *,
    challenger: str | None,
    owner: str,
    opponent: str,
    config: rules_pb2.TableConfig,
    seat: int | None = None,
    opponent_seat: int | None = None,
) -> Challenged:
    """Make the challenge (see the module's text); errors name what was wrong, before any
    table is made."""
    if not challenger:
        raise PermissionDeniedError("a challenge is made by an account: send its API key")
    if opponent == challenger:
        raise InvalidInputError("an account cannot challenge itself", field="opponent")
    if config.seat_accounts:
        raise InvalidInputError(
            "a challenge binds the seats itself: leave seat_accounts empty",
            field="config.seat_accounts",
        )
    players = build_rules(config.rules).players
    mine = 0 if seat is None else seat
    theirs = (
        next(s for s in range(players) if s != mine) if opponent_seat is None else opponent_seat
    )
    for name, value in (("seat", mine), ("opponent_seat", theirs)):
        if not 0 <= value < players:
            raise InvalidInputError(
                f"{name} {value} does not exist: seats are 0..{players - 1}", field=name
            )
    if mine == theirs:
        raise InvalidInputError("the two seats are one", field="opponent_seat")
    if config.bots:
        raise InvalidInputError("a challenge is between two accounts: no bots", field="config.bots")
    # Looked up last: a bad request says nothing of whether the name exists (a free probe).
    found = await accounts.get(opponent) if opponent else None
    if found is None or not found.active:
        raise NotFoundError(f"no account named {opponent!r} to challenge", field="opponent")
    bound = rules_pb2.TableConfig()
    bound.CopyFrom(config)
    bound.seat_accounts.extend([""] * players)
    bound.seat_accounts[mine] = challenger
    bound.seat_accounts[theirs] = opponent
    table_id, admin, _ = await tables.create(bound, challenger, owner=owner)
    _, token, session = await tables.join(table_id, mine, challenger[:40], challenger)
    await notices.challenged(opponent, table_id, theirs, challenger)
    return Challenged(table_id, admin, mine, token, session)
