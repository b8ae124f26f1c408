"""The hash tag of one league's or event's Redis keys, so they all live on one cluster node."""

from __future__ import annotations

from typing import Protocol, overload


def hash_tag(kind: str, name: str, what: str) -> str:
    """``{<kind>:<name>}``; ValueError when `name` is empty or has braces or spaces.

    >>> hash_tag("lg", "spring", "league")
    '{lg:spring}'
    """
    if not name or any(c in name for c in "{} \n"):
        raise ValueError(f"a {what} name has no braces or spaces: {name!r}")
    return f"{{{kind}:{name}}}"


class Tagged(Protocol):
    """Something with a hash tag: a keys class."""

    @property
    def tag(self) -> str:
        """``{<kind>:<name>}``."""
        ...


class TaggedKey:
    """A key name under its owner's hash tag, declared once per key.

    >>> class Keys:
    ...     tag = "{lg:spring}"
    ...     season = TaggedKey("season")
    >>> Keys().season
    '{lg:spring}:season'
    """

    def __init__(self, suffix: str) -> None:
        self.suffix = suffix

    @overload
    def __get__(self, owner: None, kind: type) -> TaggedKey: ...

    @overload
    def __get__(self, owner: Tagged, kind: type | None = None) -> str: ...

    def __get__(self, owner: Tagged | None, kind: type | None = None) -> TaggedKey | str:
        return self if owner is None else f"{owner.tag}:{self.suffix}"
