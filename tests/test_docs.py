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


def _move_rows(heading: str) -> list[tuple[str, str]]:
    """The (text, structured) columns of the move table after `heading` in docs/service.md."""
    docs = (ROOT / "docs" / "service.md").read_text()
    section = docs[docs.index(heading) :]
    section = section[: section.index("\n\n", section.index("| text | structured |"))]
    return re.findall(r"^\| `([^`]+)`[^|]* \| `(\{[^`]+\})` \|", section, re.M)


def _text_format(structured: str) -> str:
    """The docs' `{field: value}` notation as protobuf text format (`<own>` is seat 0)."""
    inner = structured.strip()[1:-1].replace("<own>", "0")
    inner = re.sub(r"(\w+): \{", r"\1 {", inner)
    return re.sub(r"kind: (\w+)", r"kind: TAC_PILE_KIND_\1", inner)


def test_the_move_examples_in_service_md_name_the_same_moves_both_ways() -> None:
    """Each row of the Tablić and Tač move tables: the structured form, as the server reads it
    (for seat 0), is the move the text names, and the text is canonical."""
    from google.protobuf import text_format
    from kafana.games import tac
    from kafana.service.games import tablic as tablic_game
    from kafana.service.games import tac as tac_game
    from kafana.v1 import state_pb2

    tablic_rows = _move_rows("**Tablić** (`TablicMove")
    tac_rows = _move_rows("**Tač** (`TacMove`")
    assert len(tablic_rows) >= 4 and len(tac_rows) >= 6
    for text, structured in tablic_rows:
        placed = text_format.Parse(_text_format(structured), state_pb2.TablicMove())
        assert str(tablic_game.structured_move(placed)) == text == str(tablic.Move.parse(text))
    for text, structured in tac_rows:
        acted = text_format.Parse(_text_format(structured), state_pb2.TacMove())
        assert str(tac_game.move_of(acted, 0)) == text == str(tac.Move.parse(text))


def test_the_metadata_names_in_service_md_are_the_ones_the_server_reads() -> None:
    from kafana.competitions.hosted.event import ENTRY_TOKEN, ORGANISER_TOKEN
    from kafana.service.auth import ADMIN_TOKEN, SEAT_TOKEN
    from kafana.service.servicer import STATE_METADATA

    docs = (ROOT / "docs" / "service.md").read_text()
    named = set(re.findall(r"`(kafana-[a-z-]+-(?:token|bin))", docs))
    assert named == {SEAT_TOKEN, ADMIN_TOKEN, ORGANISER_TOKEN, ENTRY_TOKEN, STATE_METADATA}


def test_the_limits_in_service_md_are_the_servers() -> None:
    """The figures GetServerInfo reports for a server run with the defaults."""
    from kafana.games.tablic.capture import CAPTURE_LIMIT
    from kafana.service import servicer
    from kafana.service.limits import MAX_CLIENT_MOVE_ID, MAX_SEAT_NAME, MAX_TABLE_NAME

    docs = " ".join((ROOT / "docs" / "service.md").read_text().split())
    assert (
        f"`default_page_size` {servicer.DEFAULT_PAGE_SIZE} and `max_page_size` "
        f"{servicer.MAX_PAGE_SIZE} (ListTables), `max_captures` {CAPTURE_LIMIT:,}, "
        f"`heartbeat_millis` {round(servicer.HEARTBEAT_S * 1000)}"
    ) in docs
    assert f"| {MAX_SEAT_NAME} / {MAX_TABLE_NAME} / {MAX_CLIENT_MOVE_ID} characters |" in docs
