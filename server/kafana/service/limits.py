"""What one caller may use, in one place: the defaults of every limit `kafana serve` sets.

A caller is its account, or its network address when anonymous (`kafana.service.auth`).
The rate of calls and the open event streams are `kafana.service.ratelimit.RateLimit`; the rest
is here. docs/security.md ("Limits") lists them all with their flags and refusal codes.
"""

from __future__ import annotations

from dataclasses import dataclass

HOUR_MS = 3_600_000
MAX_SEAT_NAME = 40
"""Characters in a seat's name (`JoinTableRequest.name`)."""
MAX_TABLE_NAME = 80
"""Characters in a table's name (`TableConfig.name`)."""
MAX_CLIENT_MOVE_ID = 64
"""Characters in a `client_move_id`."""
MAX_DECKS = 256
"""Explicit decks of one table whatever its rules (fewer when its match cannot use so many)."""
REGISTER_PER_HOUR = 5
"""Accounts one address may make by self-registration (`Register`) per hour."""
REGISTER_PER_HOUR_ALL = 1000
"""Accounts all addresses together may make by self-registration per hour."""
UNUSED_ACCOUNT_MS = 24 * HOUR_MS
"""A self-registered account whose key is not used this long after it was made is deleted."""


@dataclass(frozen=True)
class Limits:
    """Per-caller quotas on tables and the sizes of what a caller sends (0: no limit).

    `open_tables` counts a table from its creation until it finishes, or for the idle time to
    live after its creation, whichever comes first; `open_bot_tables` counts the same way the
    tables whose every seat is a built-in bot (the server plays them: its own CPU, see
    `kafana.service.bot_tables`). The quotas are counted in the store, so every server process
    on one Redis shares them.
    """

    tables_per_hour: int = 600
    open_tables: int = 200
    config_bytes: int = 64 * 1024  # a CreateTable's TableConfig, serialized
    message_bytes: int = 1024 * 1024  # any request, serialized
    open_bot_tables: int = 4
