"""The README's first steps work when pasted: the bot author's block runs as written, and the
newcomer's commands name options that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _shell_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)


def test_the_bot_authors_block_runs_as_pasted(tmp_path: Path) -> None:
    block = next(b for b in _shell_blocks() if "cat > mybot.py" in b)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFANA_", "PYTHONPATH"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # what `. .venv/bin/activate` does
    done = subprocess.run(
        ["bash", "-e", "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "minus heuristic (95% CI)" in done.stdout and "mybot:MyBot" in done.stdout
    assert "minus greedy (95% CI)" in done.stdout and "./mybot.py:MyBot" in done.stdout


def test_the_newcomers_commands_exist() -> None:
    block = next(b for b in _shell_blocks() if ". .venv/bin/activate" in b)
    assert "venv:" in (ROOT / "Makefile").read_text()
    assert (BIN / "activate").exists()
    named = set()
    for line in block.splitlines():
        command = line.split("#")[0].split()
        if command[:1] == ["kafana"]:
            named.add(command[1])
            helps = subprocess.run(
                [str(BIN / "kafana"), command[1], "--help"], capture_output=True, text=True
            ).stdout
            for option in (word for word in command if word.startswith("--")):
                assert option in helps, option
    assert named == {"play", "rules"}
    shown = subprocess.run(
        [str(BIN / "kafana"), "rules", "--preset", "tabinet"], capture_output=True, text=True
    )
    assert shown.returncode == 0 and "played to 151 points" in shown.stdout, shown.stderr
