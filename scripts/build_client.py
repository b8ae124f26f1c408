"""Build the client-only wheel `kafana-client` (clients/python/pyproject.toml) into `--out`.

The packages an app needs to play on a Kafana server, and nothing of the server: they are
copied (sources only: no compiled files, no caches) into a staging folder beside the
distribution's pyproject.toml and README, and built there with the pip of this interpreter.

Usage: `python scripts/build_client.py [--out DIR]` (DIR defaults to `dist`); prints the
wheel's path.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "kafana/__init__.py": ROOT / "server/kafana/__init__.py",
    "kafana/py.typed": ROOT / "server/kafana/py.typed",
    "kafana/errors.py": ROOT / "server/kafana/errors.py",
    "kafana/tasks.py": ROOT / "server/kafana/tasks.py",
    "kafana/games": ROOT / "server/kafana/games",
    "kafana/v1": ROOT / "server/kafana/v1",
    "kafana_bots": ROOT / "bots/kafana_bots",
    "kafana_client": ROOT / "clients/kafana_client",
}
"""What the wheel holds: a path in it, and where it comes from."""
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "native.json", "*.pyc")


def stage(into: Path) -> None:
    """Copy the distribution's files into `into`."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / "clients/python" / name, into / name)
    for target, source in PACKAGES.items():
        (into / target).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, into / target, ignore=LEFT_OUT)
        else:
            shutil.copy(source, into / target)


def build(out: Path) -> Path:
    """Build the wheel into `out`; its path."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kafana-client-") as staging:
        stage(Path(staging))
        before = set(out.glob("kafana_client-*.whl"))
        pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        subprocess.run([*pip, "-w", str(out), staging], check=True)
    made = sorted(set(out.glob("kafana_client-*.whl")) - before) or sorted(
        out.glob("kafana_client-*.whl")
    )
    return made[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    print(build(parser.parse_args().out))


if __name__ == "__main__":
    main()
