"""Checks of what callers send that the protobuf decoding lets through.

- Names (of seats and tables) are printable Unicode: no character of the categories Cc
  (controls: NUL, ESC of ANSI escapes, newlines, tabs), Cf (format: bidi overrides,
  zero-width joiners), Zl or Zp (line and paragraph separators), and a bounded length.
- Enum fields hold one of their enum's values: proto3 keeps any number it receives, so
  `ClockSpec.policy = 99` decodes; `bad_enum` finds such a field (`clock.policy`).

>>> check_name("Ana \\u0160", "a seat name", 40)
>>> check_name("evil\\x1b[31m", "a seat name", 40)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kafana.errors.InvalidInputError: a seat name takes printable characters only: ...
"""

from __future__ import annotations

import unicodedata
from functools import cache

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from kafana.errors import InvalidInputError

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def check_name(name: str, what: str, max_length: int) -> None:
    """Refuse a name that is too long or holds a control or format character."""
    if len(name) > max_length:
        raise InvalidInputError(f"{what} has at most {max_length} characters, not {len(name)}")
    for at, char in enumerate(name):
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise InvalidInputError(
                f"{what} takes printable characters only: character {at} is "
                f"U+{ord(char):04X} ({unicodedata.category(char)}, a control or format "
                "character)"
            )


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


def bad_enum(message: Message, prefix: str = "") -> str | None:
    """The path of the first enum field whose value its enum does not define, else None.

    Quick for messages without enum fields (the move path): their type is checked once.
    """
    if not _has_enums(message.DESCRIPTOR):
        return None
    for field, value in message.ListFields():
        path = prefix + field.name
        if field.type == FieldDescriptor.TYPE_ENUM:
            known = field.enum_type.values_by_number if field.enum_type else {}
            for item in value if _repeated(field) else [value]:
                if item not in known:
                    return f"{path} = {item}"
        elif field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                items = list(value.values())
            else:
                items = list(value) if _repeated(field) else [value]
            for item in items:
                if isinstance(item, Message):
                    found = bad_enum(item, path + ".")
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
