"""JSON nested past Python's stack in a record (its rules, a Tač position) is the record's usual
parse error naming the line, not a RecursionError (which is no ValueError: it escaped every
caller's `except` as "unexpected RecursionError")."""

from __future__ import annotations

import pytest
from kafana.errors import InvalidInputError
from kafana.games import records, tablic, tac

DEEP = "[" * 100_000


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f"kafana-tablic-record 1\nrules {DEEP}\nseed 1\n", 2),
        (f"kafana-tac-record 1\n# a comment\nrules {DEEP}\nseed 1\n", 3),
        ('kafana-tac-record 1\nrules {}\nposition {"closed": ' + DEEP + "\n", 3),
        ('kafana-tablic-record 1\nrules {"target": ' + "[" * 990 + "]" * 990 + "}\n", 2),
    ],
    ids=["tablic-rules", "tac-rules", "tac-position", "in-a-rule-switch"],
)
def test_json_nested_too_deeply_is_a_parse_error_naming_the_line(text: str, line: int) -> None:
    game = tac.GameRecord if text.startswith("kafana-tac") else tablic.MatchRecord
    key = "position" if "position" in text else "rules"
    with pytest.raises(InvalidInputError) as raised:
        game.from_text(text)
    assert (
        str(raised.value) == f"record line {line}: the {key} line is not valid (nested too deeply)"
    )


def test_json_value_refuses_json_deeper_than_max_depth() -> None:
    depth = records.MAX_DEPTH
    assert records.json_value("[" * depth + "]" * depth) is not None
    assert records.json_value('{"a": 1, "b": "[[["}') == {"a": 1, "b": "[[["}
    assert records.json_value("7") == 7
    for text in (
        "[" * (depth + 1) + "]" * (depth + 1),
        '{"a": ' * (depth + 1) + "1" + "}" * (depth + 1),
        DEEP,
    ):
        with pytest.raises(InvalidInputError) as raised:
            records.json_value(text)
        assert str(raised.value) == "nested too deeply"
    with pytest.raises(ValueError):  # no JSON: the decoder's own error
        records.json_value("{")


@pytest.mark.parametrize(
    "text",
    [
        DEEP,
        DEEP.encode(),
        '{"a": "]]]", "b": ' * 65 + "1" + "}" * 65,
        "[" * 65 + '"\\"]"' + "]" * 65,
    ],
    ids=["str", "bytes", "objects-with-brackets-in-strings", "an-escaped-quote"],
)
def test_json_value_refuses_deep_json(text: str | bytes) -> None:
    with pytest.raises(InvalidInputError, match=r"^nested too deeply$"):
        records.json_value(text)


def test_text_that_is_no_json_is_refused_without_a_depth_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The scan before parsing cost 36-47 ms for 1 MiB of brackets the parser refuses in 0.1
    # ms: a stranger's body on the HTTP port, charged as one call. Parsed first, it is not read.
    def scan(_: str) -> int:
        raise AssertionError("scanned text that is no JSON")

    monkeypatch.setattr(records, "json_depth", scan)
    for text in ("[]" * (1 << 19), "[" * (1 << 20) + "x"):
        with pytest.raises((ValueError, InvalidInputError)):
            records.json_value(text)


def test_brackets_in_strings_are_no_nesting() -> None:
    depth = records.MAX_DEPTH
    text = '{"a": "[[[[", "b": "\\"[\\\\", "c": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    assert records.json_value(text)["b"] == '"[\\'
    assert records.json_value(text.encode("utf-16")) == records.json_value(text)
