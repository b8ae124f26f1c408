"""The README's Python examples run as written."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_rules_core_example_runs() -> None:
    block = next(b for b in _blocks() if "from kafana.games import tablic" in b)
    exec(compile(block, "README.md", "exec"), {})


def test_the_sdk_example_plays_a_whole_match_through_a_server(tmp_path: Path) -> None:
    block = next(b for b in _blocks() if "from kafana_client import" in b)
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "kafana"), "serve", "--memory", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = None
        for line in server.stdout:
            found = re.search(r"serving on port (\d+)", line)
            if found:
                port = int(found.group(1))
                break
        assert port is not None, "the server did not say its port"
        script = tmp_path / "example.py"
        script.write_text(block.replace("127.0.0.1:50051", f"127.0.0.1:{port}"))
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stderr
        assert "scores:" in done.stdout and "winner_side:" in done.stdout
    finally:
        server.terminate()
        server.wait(timeout=30)
