"""The record test vectors of docs/records.md: current, canonical, and replaying as they say."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from kafana.games.tablic.state import MatchRecord
from kafana.games.tac.state import GameRecord

ROOT = Path(__file__).resolve().parents[2]
VECTORS = sorted((ROOT / "tests" / "data" / "records").glob("*.json"))


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_record_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_the_vectors_are_current() -> None:
    made = _generator().vectors()
    assert sorted(made) == sorted(p.stem for p in VECTORS)
    for path in VECTORS:
        assert _load(path) == made[path.stem], f"{path.name}: run scripts/gen_record_vectors.py"


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_a_vector_replays_to_what_it_expects(path: Path) -> None:
    vector = _load(path)
    text, expect = vector["record"], vector["expect"]
    if vector["game"] == "tablic":
        record = MatchRecord.from_text(text)
        assert record.to_text() == text
        state = record.replay()
        assert len(record.moves) == expect["moves"]
        assert list(state.scores) == expect["scores"]
        assert [list(h.points) for h in state.hand_results] == [
            h["points"] for h in expect["hands"]
        ]
        assert [list(h.cards) for h in state.hand_results] == [h["cards"] for h in expect["hands"]]
    else:
        game = GameRecord.from_text(text)
        assert game.to_text() == text
        view = game.replay().public_view()
        assert len(game.moves) == expect["moves"]
        assert list(view.places or ()) == expect["places"]
        assert [c.text for c in view.central] == expect["central"]


@pytest.mark.parametrize("path", VECTORS[:2], ids=lambda p: p.stem)
def test_a_changed_record_is_refused(path: Path) -> None:
    vector = _load(path)
    lines = vector["record"].splitlines()
    last = next(
        i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith(("scores", "places"))
    )
    key, _, values = lines[last].partition(" ")
    numbers = values.split()
    numbers[0], numbers[-1] = numbers[-1], numbers[0]
    if numbers == values.split():  # equal ends: change the first instead
        numbers[0] = str(int(numbers[0]) + 1)
    lines[last] = f"{key} {' '.join(numbers)}"
    cls = MatchRecord if vector["game"] == "tablic" else GameRecord
    with pytest.raises(ValueError, match=key):
        cls.from_text("\n".join(lines) + "\n").replay()
