"""The figures and vectors published in docs/ agree with the code."""

import re
from pathlib import Path

from kafana.games import tablic

ROOT = Path(__file__).resolve().parents[1]


def test_shuffle_vectors_in_docs_match_the_engine() -> None:
    text = (ROOT / "docs" / "shuffle.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\d+) \| `([^`]+)` \|$", text, flags=re.MULTILINE)
    assert len(rows) >= 4
    for seed, hand, deck in rows:
        assert " ".join(map(str, tablic.shuffled_deck(int(seed), int(hand)))) == deck
