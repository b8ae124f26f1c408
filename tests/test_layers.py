"""The layers point one way: each imports only the layers below it, and packages form no cycle.

Two checks that fail differently. The import check imports every module of a layer in a fresh
interpreter whose import system refuses every layer the layer may not use, so a dynamic or
indirect upward import fails too. The graph check reads every `import` of the product code and
requires the graph of packages (folders) to have no cycle, and each game's modules too.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"kafana": ROOT / "server" / "kafana", "kafana_bots": ROOT / "bots" / "kafana_bots",
           "kafana_client": ROOT / "clients" / "kafana_client"}  # fmt: skip

FOUNDATION = {"kafana.errors", "kafana.logs", "kafana.metrics", "kafana.tasks"}
"""Small modules every layer may use; they import nothing of Kafana."""

BELOW: dict[str, set[str]] = {
    "kafana.errors": set(),
    "kafana.logs": set(),
    "kafana.metrics": set(),  # prometheus_client only: every layer counts into it
    "kafana.tasks": set(),
    "kafana.v1": set(),  # generated from proto/: protobuf and grpc only
    "kafana.games": FOUNDATION,
    "kafana_bots": FOUNDATION | {"kafana.games"},
    "kafana.store": FOUNDATION,  # bytes, sequence numbers and keys: no game
    "kafana.service": FOUNDATION | {"kafana.games", "kafana_bots", "kafana.store", "kafana.v1"},
    "kafana.competitions": FOUNDATION
    | {"kafana.games", "kafana_bots", "kafana.store", "kafana.v1", "kafana.service"},
    "kafana_client": FOUNDATION | {"kafana.games", "kafana_bots", "kafana.v1"},
}
"""Each layer and the layers it may import. `kafana.cli`, on top, may import any of them."""

TOP = "kafana.cli"
LAYERS = [*BELOW, TOP]


def layer_of(module: str) -> str | None:
    """The layer a module belongs to (None: the `kafana` package's own `__init__`)."""
    for layer in sorted(LAYERS, key=len, reverse=True):
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


SCRIPT = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    LAYER = {layer!r}
    BLOCKED = {blocked!r}

    def blocked(name):
        return any(name == b or name.startswith(b + ".") for b in BLOCKED)

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if blocked(name):
                raise ImportError(f"{{LAYER}} may not import {{name}} (a higher layer)")
            return None

    sys.meta_path.insert(0, Blocker())
    root = importlib.import_module(LAYER)
    names = [LAYER]
    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(root.__path__, LAYER + "."):
            importlib.import_module(info.name)
            names.append(info.name)
    leaked = sorted(m for m in sys.modules if blocked(m))
    if leaked:
        raise SystemExit(f"leaked into sys.modules: {{leaked}}")
    print("OK", len(names))
    """
)


def import_layer(layer: str, blocked: list[str]) -> subprocess.CompletedProcess[str]:
    script = SCRIPT.format(layer=layer, blocked=blocked)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("layer", list(BELOW))
def test_each_layer_imports_with_every_higher_layer_blocked(layer: str) -> None:
    blocked = sorted(set(LAYERS) - BELOW[layer] - {layer})
    result = import_layer(layer, blocked)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert result.stdout.startswith("OK ")


def test_the_blocker_refuses_an_upward_import() -> None:
    # kafana.cli imports the service: with the service blocked, importing it must fail.
    result = import_layer(TOP, ["kafana.service"])
    assert result.returncode != 0
    assert "may not import kafana.service" in result.stderr


def imports() -> dict[str, set[str]]:
    """Every product module and the product modules it imports (generated code left out)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[1:2] == ["v1"]:
                continue
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            module = ".".join(parts)
            graph.setdefault(module, set())  # every module is a node
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = parts if is_package else parts[:-1]
                        anchor = anchor[: len(anchor) - node.level + 1]
                        base = ".".join([*anchor, *([base] if base else [])])
                    targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
                else:
                    continue
                for target in targets:
                    if target == "kafana.v1" or target.startswith("kafana.v1."):
                        graph[module].add("kafana.v1")  # the generated code, as one node
                    elif target.split(".")[0] in SOURCES:
                        graph[module].add(target)
    modules = set(graph) | {"kafana.v1"}
    return {m: {t for t in targets if t in modules and t != m} for m, targets in graph.items()}


def package_of(module: str, graph: dict[str, set[str]]) -> str:
    """The folder a module lives in (a package is its own folder)."""
    is_package = module == "kafana.v1" or any(other.startswith(module + ".") for other in graph)
    return module if is_package else module.rpartition(".")[0] or module


def test_every_import_points_down() -> None:
    upward = []
    for module, targets in imports().items():
        here = layer_of(module)
        if here is None or here == TOP:
            continue
        for target in targets:
            there = layer_of(target)
            if there not in (None, here) and there not in BELOW[here]:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that point up or sideways:\n" + "\n".join(sorted(upward))


def test_the_package_graph_has_no_cycle() -> None:
    graph = imports()
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        here = package_of(module, graph)
        packages[here] |= {package_of(t, graph) for t in targets} - {here}
    # A package importing its own sub-package (to re-export it) is no cycle between folders.
    for here, targets in packages.items():
        packages[here] = {t for t in targets if not here.startswith(t + ".")}
    graphlib.TopologicalSorter(packages).prepare()  # raises CycleError naming the cycle


@pytest.mark.parametrize("game", ["tablic", "tac"])
def test_no_cycle_between_a_games_modules(game: str) -> None:
    prefix = f"kafana.games.{game}."
    graph = {
        m: {t for t in targets if t.startswith(prefix)}
        for m, targets in imports().items()
        if m.startswith(prefix)
    }
    graphlib.TopologicalSorter(graph).prepare()


def test_the_architecture_doc_lists_every_layer_and_its_folder() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    for layer in [*BELOW, TOP]:
        if layer in FOUNDATION:
            continue
        assert f"`{layer}`" in text, f"docs/architecture.md does not name {layer}"
    for folder in ("server/kafana/games/", "bots/kafana_bots/", "server/kafana/store/",
                   "server/kafana/service/", "server/kafana/competitions/",
                   "clients/kafana_client/", "server/kafana/cli/"):  # fmt: skip
        assert (ROOT / folder).is_dir()
        assert folder in text, f"docs/architecture.md does not name {folder}"
