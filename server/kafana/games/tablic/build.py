"""Which build of the rules core is loaded: compiled (mypyc and C) or pure Python.

`make venv` compiles the capture generator, the state and the search simulator
(`kafana_bots.sim`) with mypyc, and the C fast path of `captures()` and of the simulator's
playouts (`_ccore.c`), beside their sources and lists them in `native.json` with the SHA-256
of each source (setup.py). The pure modules stay the reference (the C module has no Python
twin: `capture.py` leaves it out of the pure build). `select()`, run once by the package
before its modules load, keeps the compiled ones unless:

- `KAFANA_PURE=1` is set (the pure build, for the differential tests and for debugging);
- a listed source differs from the one compiled (edited since `make venv`): pure, with a warning;
- the compiled files are missing (no compiler at install time): pure.

All or none: compiled modules call each other directly, so one stale source makes all pure.
`BUILD` says which ("compiled" or "pure") and `WHY` why; `kafana.games.tablic.BUILD` too.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

MANIFEST = Path(__file__).with_name("native.json")
PURE_VARIABLE = "KAFANA_PURE"


class PureFinder:
    """Finds the listed modules' `.py` sources first, ahead of their compiled files."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The source's spec for a listed module, else None (the usual finders go on)."""
        source = self.sources.get(name)
        if source is None:
            return None
        loader = importlib.machinery.SourceFileLoader(name, str(source))
        return importlib.util.spec_from_file_location(name, source, loader=loader)


def _listed() -> tuple[dict[str, Path], dict[str, str]]:
    """The manifest's modules: their source paths and the digests they were compiled from."""
    data = json.loads(MANIFEST.read_text())
    modules = data["modules"]
    sources = {name: (MANIFEST.parent / item["source"]).resolve() for name, item in modules.items()}
    return sources, {name: item["sha256"] for name, item in modules.items()}


def _compiled_present(name: str, source: Path) -> bool:
    """Whether an extension module sits beside the source of `name`."""
    stem = source.with_suffix("")
    return any(
        Path(f"{stem}{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _decide() -> tuple[str, str, dict[str, Path]]:
    """(build, why, sources to load as Python)."""
    if not MANIFEST.exists():
        return "pure", "not compiled (no native.json: the build had no compiler or mypyc)", {}
    sources, digests = _listed()
    if os.environ.get(PURE_VARIABLE) == "1":
        return "pure", f"{PURE_VARIABLE}=1", sources
    for name, source in sources.items():
        if not _compiled_present(name, source):
            return "pure", f"no compiled file for {name}", sources
        if hashlib.sha256(source.read_bytes()).hexdigest() != digests[name]:
            why = f"{source.name} changed since it was compiled: run `make venv` to rebuild"
            warnings.warn(f"kafana: pure-Python rules core loaded: {why}", stacklevel=2)
            return "pure", why, sources
    return "compiled", "compiled build of " + ", ".join(sources), {}


def select() -> str:
    """Choose the build once, before the listed modules load; returns it."""
    global BUILD, WHY
    if BUILD:
        return BUILD
    BUILD, WHY, pure = _decide()
    python = {name: source for name, source in pure.items() if source.suffix == ".py"}
    if python:  # the C module (`_ccore`) has no Python twin: capture.py skips it when pure
        sys.meta_path.insert(0, PureFinder(python))
    return BUILD


def is_compiled(module: ModuleType) -> bool:
    """Whether a loaded module is an extension module (mypyc) rather than Python source."""
    return not str(getattr(module, "__file__", "")).endswith(".py")


BUILD = ""
"""`compiled` or `pure` once `select()` ran."""
WHY = ""
"""What decided it."""
select()  # at import: the package imports this module before any compiled one
