"""The games are pure: importing them needs none of grpc, redis or protobuf."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ("grpc", "redis", "google.protobuf")

SCRIPT = textwrap.dedent(
    """
    import importlib
    import pkgutil
    import sys

    BLOCKED = {blocked!r}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"blocked by the layering test: {{name}}")
            return None

    sys.meta_path.insert(0, Blocker())

    # The blocker works: each of these imports fails here.
    for name in BLOCKED:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
        else:
            raise SystemExit(f"{{name}} was importable despite the blocker")

    import kafana.games
    from kafana.games import tablic

    # Every module below kafana.games, present and future, imports cleanly too.
    imported = []
    for info in pkgutil.walk_packages(kafana.games.__path__, "kafana.games."):
        importlib.import_module(info.name)
        imported.append(info.name)

    # And the core works without them.
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=1)
    state = state.apply(state.legal_moves()[0])

    leaked = sorted(
        m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED)
    )
    if leaked:
        raise SystemExit(f"leaked into sys.modules: {{leaked}}")
    print("OK", len(imported), " ".join(sorted(imported)))
    """
).format(blocked=BLOCKED)


def run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


def test_games_import_without_grpc_redis_or_protobuf() -> None:
    result = run(SCRIPT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("OK ")
    names = result.stdout.split()[2:]
    assert "kafana.games.tablic" in names
    assert "kafana.games.tablic.state" in names


def test_the_blocker_really_blocks() -> None:
    # The same blocker makes a module that needs grpc fail, so the test above can fail.
    script = SCRIPT.replace("import kafana.games\n", "import kafana.games\nimport grpc\n", 1)
    assert script != SCRIPT
    result = run(script)
    assert result.returncode != 0
    assert "blocked by the layering test: grpc" in result.stderr
