"""The Python example of docs/service.md runs as written and plays a whole match."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from kafana.v1 import state_pb2
from kit import Service

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"


async def test_docs_example_plays_a_match(service: Service) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    example = next(b for b in blocks if "def play_match" in b)
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(example, str(DOC), "exec"), namespace)
    result = await asyncio.to_thread(namespace["play_match"], service.target, 3)
    assert result.reason == state_pb2.RESULT_REASON_SCORE
    assert max(result.scores) >= 101
