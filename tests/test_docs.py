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


def test_the_errors_table_in_docs_matches_errors_proto() -> None:
    """docs/service.md tables every ErrorReason with the status code its errors.proto comment
    fixes, as kafana.errors.STATUS_CODES does."""
    from kafana.errors import STATUS_CODES
    from kafana.v1 import errors_pb2

    proto = (ROOT / "proto" / "kafana" / "v1" / "errors.proto").read_text()
    found = re.findall(r"^  // ([A-Z_]+): .*\n(?:  //.*\n)*  ([A-Z_]+) = \d+;$", proto, re.M)
    coded = {reason: code for code, reason in found}
    docs = (ROOT / "docs" / "service.md").read_text()
    rows = re.findall(r"^\| `([A-Z_]+)` \| `([A-Z_]+)` \| [^|]+ \| [^|]+ \|$", docs, re.M)
    assert set(coded) == set(errors_pb2.ErrorReason.keys()) - {"ERROR_REASON_UNSPECIFIED"}
    assert dict(rows) == coded == STATUS_CODES
    assert [reason for reason, _ in rows] == list(coded)  # in the proto's order
