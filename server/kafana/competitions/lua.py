"""The Lua scripts of competitions' Redis stores: one `.lua` file each, beside its store."""

from __future__ import annotations

from importlib import resources


def script(package: str, name: str) -> str:
    """The text of `<package>/lua/<name>.lua`."""
    return (resources.files(package) / "lua" / f"{name}.lua").read_text(encoding="utf-8")
