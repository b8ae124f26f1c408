"""The rules core's two builds: compiled (mypyc, by `make venv`) and pure Python (`KAFANA_PURE=1`).

`make test` runs the whole suite on the compiled build and the differential tests again with
`KAFANA_PURE=1`, so this file checks, in each run, that the build it expects is the one loaded.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from kafana.games import tablic
from kafana.games.tablic import build, capture, state
from kafana_bots import sim

MODULES = (capture, state, sim)
SHOW = """
from kafana.games import tablic
from kafana.games.tablic import build, capture, state
from kafana_bots import sim
print(tablic.BUILD, *(build.is_compiled(m) for m in (capture, state, sim)))
"""


def loaded(pure: bool) -> list[str]:
    """What a fresh interpreter loads, with or without KAFANA_PURE=1."""
    env = {k: v for k, v in os.environ.items() if k != build.PURE_VARIABLE}
    if pure:
        env[build.PURE_VARIABLE] = "1"
    done = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_this_run_has_the_build_it_asked_for() -> None:
    """The compiled build unless KAFANA_PURE=1: a failed compile must not pass as compiled."""
    expected = "pure" if os.environ.get(build.PURE_VARIABLE) == "1" else "compiled"
    assert expected == tablic.BUILD, build.WHY
    assert [build.is_compiled(m) for m in MODULES] == [expected == "compiled"] * 3


def test_the_variable_picks_the_pure_sources() -> None:
    assert loaded(pure=True) == ["pure", "False", "False", "False"]
    assert loaded(pure=False) == ["compiled", "True", "True", "True"]


def test_a_source_edited_since_the_build_loads_pure_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One stale source: all pure (compiled modules call each other directly)."""
    for module in MODULES:
        source = Path(str(module.__file__)).with_suffix("").with_suffix(".py")
        (tmp_path / source.name).write_bytes(source.read_bytes())
        (tmp_path / (source.stem + EXTENSION_SUFFIXES[0])).write_bytes(b"")
    digests = {
        name: hashlib.sha256((tmp_path / f"{name.rsplit('.', 1)[1]}.py").read_bytes()).hexdigest()
        for name in ("kafana.games.tablic.capture", "kafana.games.tablic.state", "kafana_bots.sim")
    }
    manifest = tmp_path / "native.json"
    modules = {
        name: {"source": f"{name.rsplit('.', 1)[1]}.py", "sha256": digest}
        for name, digest in digests.items()
    }
    c_source = tmp_path / "_ccore.c"  # the C module: listed and checked the same way
    c_source.write_text("/* compiled */\n")
    (tmp_path / ("_ccore" + EXTENSION_SUFFIXES[0])).write_bytes(b"")
    c_digest = hashlib.sha256(c_source.read_bytes()).hexdigest()
    modules["kafana.games.tablic._ccore"] = {"source": "_ccore.c", "sha256": c_digest}
    manifest.write_text(json.dumps({"modules": modules}))
    monkeypatch.setattr(build, "MANIFEST", manifest)
    monkeypatch.delenv(build.PURE_VARIABLE, raising=False)
    assert build._decide()[:2] == ("compiled", "compiled build of " + ", ".join(modules))
    c_source.write_text("/* edited */\n")
    with pytest.warns(UserWarning, match="_ccore.c changed since it was compiled"):
        assert build._decide()[0] == "pure"
    c_source.write_text("/* compiled */\n")
    (tmp_path / "state.py").write_text("# edited\n")
    with pytest.warns(UserWarning, match="state.py changed since it was compiled"):
        chosen, _why, sources = build._decide()
    assert (chosen, sorted(sources)) == ("pure", sorted(modules))
    monkeypatch.setattr(build, "MANIFEST", tmp_path / "missing.json")
    assert build._decide()[0] == "pure"


def test_the_pure_finder_serves_only_listed_modules(tmp_path: Path) -> None:
    source = tmp_path / "listed.py"
    source.write_text(textwrap.dedent("VALUE = 7\n"))
    finder = build.PureFinder({"some.listed": source})
    spec = finder.find_spec("some.listed", None)
    assert spec is not None and spec.origin == str(source)
    assert finder.find_spec("some.other", None) is None


ROOT = Path(__file__).resolve().parent.parent


def _imported_sources(source: Path, seen: set[Path]) -> None:
    """`source` and the project's sources it imports (`kafana.*`), transitively, into `seen`."""
    if source in seen:
        return
    seen.add(source)
    for node in ast.walk(ast.parse(source.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if not name.startswith("kafana."):
                continue
            base = ROOT / "server" / Path(*name.split("."))
            for found in (base.with_suffix(".py"), base / "__init__.py"):
                if found.is_file():
                    _imported_sources(found, seen)


def test_make_rebuilds_the_core_when_a_module_mypyc_reads_changes() -> None:
    # `make venv` rebuilds when a prerequisite changes: every module the compiled ones import
    # from the project (mypyc compiles them against those modules' types) must be one.
    done = subprocess.run(
        ["make", "-s", "--eval=print-native: ; @echo $(NATIVE_SOURCES)", "print-native"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    listed = {(ROOT / p).resolve() for p in done.stdout.split()}
    needed: set[Path] = set()
    for source in (
        "server/kafana/games/tablic/capture.py",
        "server/kafana/games/tablic/state.py",
        "bots/kafana_bots/sim.py",
    ):
        _imported_sources(ROOT / source, needed)
    assert (ROOT / "server/kafana/games/tablic/_ccore.c") in listed
    assert len(needed) > 10 and sorted(map(str, needed - listed)) == []
