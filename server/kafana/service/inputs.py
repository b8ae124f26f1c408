"""Checks of what callers send that the protobuf decoding lets through.

- Names: one rule per kind (`SEAT`, `TABLE`, `EVENT`, `ENTRANT`, `LEAGUE`, `ACCOUNT`), checked
  by `check`. Every name is printable Unicode: no character of the categories Cc (controls:
  NUL, BEL, ESC of ANSI escapes, newlines, tabs), Cf (format: bidi overrides such as U+202E,
  zero-width spaces and joiners), Zl or Zp (line and paragraph separators), and of a bounded
  length. An entrant is seated under its name, so an entrant name is at most a seat name's
  length; events and entrants take no spaces or braces (braces are Redis hash tags); accounts
  and leagues are identifiers. A refusal is INVALID_ARGUMENT with the request's `field`.
- Enum fields hold one of their enum's values: proto3 keeps any number it receives, so
  `ClockSpec.policy = 99` decodes; `bad_enum` finds such a field (`clock.policy`).
- Page tokens (ListTables, AIP-158) are opaque: URL-safe base64 of the cursor and a digest of
  the filters they were handed out for; any other token is INVALID_PAGE_TOKEN.

>>> token = page_token((1700000000000, "ab12"), "game=1")
>>> read_page_token(token, "game=1")
(1700000000000, 'ab12')
>>> read_page_token(token, "game=2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kafana.errors.InvalidPageToken: page_token was handed out for other filters: ...
>>> check(SEAT, "Ana \\u0160")
'Ana \u0160'
>>> check(ENTRANT, "evil\\u202egnp")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kafana.errors.InvalidInputError: an entrant name takes printable characters only: ...
>>> check(ENTRANT, "x" * 41)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kafana.errors.InvalidInputError: an entrant name has at most 40 characters, not 41
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from kafana.errors import InvalidInputError, InvalidPageToken
from kafana.service.limits import MAX_SEAT_NAME, MAX_TABLE_NAME

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
IDENTIFIER = "A-Z a-z 0-9 . _ -, starting with a letter or digit"
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class NameRule:
    """What one kind of name may be: its length, and whether it takes spaces and braces or
    is an identifier (`IDENTIFIER`). `field` is the request field a refusal names."""

    what: str
    field: str
    max_length: int
    min_length: int = 1
    spaces: bool = True
    identifier: bool = False


SEAT = NameRule("a seat name", "name", MAX_SEAT_NAME, min_length=0)
TABLE = NameRule("a table name", "config.name", MAX_TABLE_NAME, min_length=0)
EVENT = NameRule("an event name", "name", 64, spaces=False)
ENTRANT = NameRule("an entrant name", "name", MAX_SEAT_NAME, spaces=False)
LEAGUE = NameRule("a league name", "league", 48, identifier=True)
ACCOUNT = NameRule("an account name", "name", 64, identifier=True)
NOTE = NameRule("a note", "note", 200, min_length=0)
"""An organiser's note (pause, end, adjudication, removal): shown to everyone with the event."""
EVENT_ID = NameRule("an event id", "event_id", 64, spaces=False)
GAME_ID = NameRule("a game id", "game_id", 64, spaces=False)
RULES = {rule.what: rule for rule in (SEAT, TABLE, EVENT, ENTRANT, LEAGUE, ACCOUNT)}


def check(rule: NameRule, name: str, field: str = "") -> str:
    """`name` if `rule` allows it, else InvalidInputError naming what is wrong and the field
    (`field`, else the rule's)."""
    where = {"field": field or rule.field} if field or rule.field else {}
    if not rule.min_length <= len(name) <= rule.max_length:
        raise InvalidInputError(
            f"{rule.what} has {rule.min_length} to {rule.max_length} characters, not {len(name)}"
            if len(name) < rule.min_length
            else f"{rule.what} has at most {rule.max_length} characters, not {len(name)}",
            **where,
        )
    for at, char in enumerate(name):
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise InvalidInputError(
                f"{rule.what} takes printable characters only: character {at} is "
                f"U+{ord(char):04X} ({unicodedata.category(char)}, a control or format "
                "character)",
                **where,
            )
    if rule.identifier and not _IDENTIFIER.fullmatch(name):
        raise InvalidInputError(
            f"{rule.what} is 1 to {rule.max_length} of {IDENTIFIER}, not {name!r}", **where
        )
    if not rule.spaces and any(c.isspace() or c in "{}" for c in name):
        raise InvalidInputError(f"{rule.what} has no spaces or braces: {name!r}", **where)
    return name


def check_name(name: str, what: str, max_length: int) -> None:
    """Refuse a name that is too long or holds a control or format character (the rule of
    `what` when it is one of `RULES`, with its field)."""
    rule = RULES.get(what)
    if rule is None or rule.max_length != max_length:
        rule = NameRule(what, "", max_length, min_length=0)
    check(rule, name, rule.field)


@cache
def _has_enums(descriptor: Descriptor) -> bool:
    """Whether messages of this type hold an enum field, at any depth."""
    seen: set[str] = set()

    def walk(d: Descriptor) -> bool:
        if d.full_name in seen:
            return False
        seen.add(d.full_name)
        for field in d.fields:
            if field.type == FieldDescriptor.TYPE_ENUM:
                return True
            if field.message_type is not None and walk(field.message_type):
                return True
        return False

    return walk(descriptor)


@cache
def _enum_fields(descriptor: Descriptor) -> tuple[tuple[str, FieldDescriptor, str], ...]:
    """The fields of this message type that may hold an enum value, at any depth, in the
    order of their numbers: (name, field, how: "enum", "enums", "message", "messages" or
    "map")."""
    out = []
    for field in sorted(descriptor.fields, key=lambda f: f.number):
        many = _repeated(field)
        if field.type == FieldDescriptor.TYPE_ENUM:
            out.append((field.name, field, "enums" if many else "enum"))
        elif field.message_type is not None and _has_enums(field.message_type):
            if field.message_type.GetOptions().map_entry:
                out.append((field.name, field, "map"))
            else:
                out.append((field.name, field, "messages" if many else "message"))
    return tuple(out)


def bad_enum(message: Message, prefix: str = "") -> str | None:
    """The path of the first enum field whose value its enum does not define, else None.

    Only the fields that may hold an enum are looked at (worked out once per message type):
    a PlayMove request costs a look at its move's Tač part, which a Tablić move has not.
    """
    for name, field, how in _enum_fields(message.DESCRIPTOR):
        if how == "message":
            if message.HasField(name):
                found = bad_enum(getattr(message, name), prefix + name + ".")
                if found is not None:
                    return found
        elif how == "enum" or how == "enums":
            known = field.enum_type.values_by_number if field.enum_type else {}
            value = getattr(message, name)
            for item in value if how == "enums" else (value,):
                if item not in known:
                    return f"{prefix}{name} = {item}"
        else:  # repeated messages, or a map's values (a map of enums is not looked into)
            value = getattr(message, name)
            for item in value.values() if how == "map" else value:
                if isinstance(item, Message):
                    found = bad_enum(item, prefix + name + ".")
                    if found is not None:
                        return found
    return None


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def check_enums(message: Message) -> None:
    """Refuse a message with an enum value outside its enum (naming the field)."""
    found = bad_enum(message)
    if found is not None:
        raise InvalidInputError(f"{found} is not a value of its enum")


PAGE_TOKEN_VERSION = 1
MAX_PAGE_TOKEN = 512


def _filters_digest(filters: str) -> str:
    return hashlib.blake2b(filters.encode(), digest_size=6).hexdigest()


def page_token(cursor: tuple[int, str], filters: str) -> str:
    """The opaque next_page_token of a page that ends at `cursor`, for these `filters`."""
    data = json.dumps([PAGE_TOKEN_VERSION, cursor[0], cursor[1], _filters_digest(filters)])
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def made_up_token() -> InvalidPageToken:
    """The refusal of a page_token this server did not hand out (tokens are not signed: a
    caller that reads one also checks what it holds)."""
    return InvalidPageToken(
        "page_token is not one this server handed out: pass next_page_token as it came, "
        "or none for the first page",
        field="page_token",
    )


def read_page_token(token: str, filters: str) -> tuple[int, str]:
    """The cursor of a page_token this server handed out for `filters` (else refused)."""
    try:
        if len(token) > MAX_PAGE_TOKEN:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        version, created, table_id, digest = json.loads(raw)
        if version != PAGE_TOKEN_VERSION or type(created) is not int:  # a bool is an int
            raise ValueError("not a cursor")
        if not 0 <= created < 2**63:  # a Redis score in a time's range
            raise ValueError("not a cursor")
        if not isinstance(table_id, str) or not isinstance(digest, str):
            raise ValueError("not a cursor")
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise made_up_token() from None  # the decoder's own words would tell the caller nothing
    if digest != _filters_digest(filters):
        raise InvalidPageToken(
            "page_token was handed out for other filters: send it with the filters of the "
            "first page (a ListTables' game and status, a leaderboard's league and season)",
            field="page_token",
        )
    return created, table_id
