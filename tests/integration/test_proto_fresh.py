"""The committed generated code is exactly what `scripts/gen_proto.py` makes from the protos."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = {p.name: p.read_bytes() for p in (tmp_path / "kafana" / "v1").iterdir()}
    committed_dir = ROOT / "server" / "kafana" / "v1"
    committed = {
        p.name: p.read_bytes()
        for p in committed_dir.iterdir()
        if p.is_file() and p.suffix in (".py", ".pyi", ".binpb")
    }
    assert sorted(fresh) == sorted(committed), "run: python scripts/gen_proto.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale generated files {stale}: run python scripts/gen_proto.py"
    assert any(name.endswith("_pb2.pyi") for name in fresh)
