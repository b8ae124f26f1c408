"""Build hook: the rules core compiled with mypyc, the pure-Python modules kept beside it.

`pip install -e .` (what `make venv` runs) compiles the modules of `NATIVE` with the machine's C
compiler into one extension group (`kafana.games.tablic._native__mypyc`), built in place next to
the sources, and writes `kafana/games/tablic/native.json`: each compiled module's path and the
SHA-256 of the source it was compiled from. `kafana.games.tablic.build` reads it at import and
loads the pure modules instead when `KAFANA_PURE=1`, or when a source changed since the build.

No compiler, or `KAFANA_PURE=1` at install time: the build says so and installs pure Python.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
NATIVE = {
    "kafana.games.tablic.capture": "server/kafana/games/tablic/capture.py",
    "kafana.games.tablic.state": "server/kafana/games/tablic/state.py",
    "kafana_bots.sim": "bots/kafana_bots/sim.py",
}
"""Compiled modules and their sources (the capture generator, the state, the simulator)."""
C_MODULES = {"kafana.games.tablic._ccore": "server/kafana/games/tablic/_ccore.c"}
"""Hand-written C: the fast path of `captures()` and of the simulator's playouts."""
GROUP = "kafana.games.tablic._native"
MANIFEST = "kafana/games/tablic/native.json"
METADATA_ONLY = {"dist_info", "egg_info", "sdist"}
"""Commands that read the list of extensions but build none: mypyc is not run for them."""
PACKAGE_DIRS = {"kafana": "server/kafana", "kafana_bots": "bots/kafana_bots"}


def manifest(into: Path, inplace: bool) -> None:
    """Write the manifest under `into` (the install root, or the source tree in place)."""
    target = (ROOT / "server" if inplace else into) / MANIFEST
    modules = {}
    for name, source in (NATIVE | C_MODULES).items():
        top = name.split(".")[0]
        rest = Path(*name.split(".")[1:]).with_suffix(Path(source).suffix)
        where = (ROOT / PACKAGE_DIRS[top] / rest) if inplace else (into / top / rest)
        digest = hashlib.sha256((ROOT / source).read_bytes()).hexdigest()
        modules[name] = {"source": os.path.relpath(where, target.parent), "sha256": digest}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"group": GROUP, "modules": modules}, indent=1) + "\n")


class BuildNative(build_ext):
    """build_ext that writes the manifest, and falls back to pure Python if compiling fails."""

    def finalize_options(self) -> None:
        # mypyc runs once, for a build: not when pip only asks for the metadata (dist_info).
        if not set(self.distribution.commands) <= METADATA_ONLY:
            self.distribution.ext_modules = extensions()
        super().finalize_options()

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # any compiler failure: the pure build
            print(f"kafana: compiling the rules core failed ({exc}); pure Python", file=sys.stderr)
            return
        manifest(Path(self.build_lib), bool(self.inplace))


@functools.cache
def extensions() -> list[Any]:
    """The mypyc extensions, or none (pure build asked for, or mypyc missing)."""
    if os.environ.get("KAFANA_PURE") == "1":
        print("kafana: KAFANA_PURE=1, installing the pure-Python rules core", file=sys.stderr)
        return []
    c_extensions = [
        Extension(name, [source], extra_compile_args=["-O3"]) for name, source in C_MODULES.items()
    ]
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("kafana: mypyc not found, installing the pure-Python rules core", file=sys.stderr)
        return []
    old = Path.cwd()
    os.chdir(ROOT)  # mypy reads pyproject.toml's [tool.mypy] (mypy_path) from here
    try:
        compiled = list(mypycify(list(NATIVE.values()), opt_level="3", group_name=GROUP))
        return compiled + c_extensions
    except BaseException as exc:  # a type error in mypyc's view: pure build
        print(f"kafana: mypyc refused the rules core ({exc}); pure Python", file=sys.stderr)
        return []
    finally:
        os.chdir(old)


C_PLACEHOLDER = [Extension(name, [source]) for name, source in C_MODULES.items()]
"""What pip sees before a build: a package with extensions (BuildNative finds the real list)."""
setup(ext_modules=C_PLACEHOLDER, cmdclass={"build_ext": BuildNative})
