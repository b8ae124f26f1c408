"""The Lua scripts of competitions' Redis stores: one `.lua` file each, beside its store."""

from __future__ import annotations

import hashlib
from importlib import resources

from kafana.store.client import Script


def lua_text(package: str, name: str) -> str:
    """The text of `<package>/lua/<name>.lua`."""
    return (resources.files(package) / "lua" / f"{name}.lua").read_text(encoding="utf-8")


def store_script(package: str, name: str) -> Script:
    """`<package>/lua/<name>.lua` as a script the store's client runs (`RedisClient.run`)."""
    body = lua_text(package, name)
    return Script(name, body, hashlib.sha1(body.encode()).hexdigest().encode())
