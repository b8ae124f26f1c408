"""The hash tag of one league's or event's Redis keys, so they all live on one cluster node."""

from __future__ import annotations


def hash_tag(kind: str, name: str, what: str) -> str:
    """``{<kind>:<name>}``; ValueError when `name` is empty or has braces or spaces.

    >>> hash_tag("lg", "spring", "league")
    '{lg:spring}'
    """
    if not name or any(c in name for c in "{} \n"):
        raise ValueError(f"a {what} name has no braces or spaces: {name!r}")
    return f"{{{kind}:{name}}}"
