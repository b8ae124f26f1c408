"""Both games' records: comments and blank lines are skipped, and errors name the real line."""

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac


def test_tablic_record_error_names_the_line_past_comments() -> None:
    text = "kafana-tablic-record 1\n# a comment\n\nrules {}\nseed many\n"
    with pytest.raises(InvalidInputError, match="record line 5"):
        tablic.MatchRecord.from_text(text)


def test_tac_record_error_names_the_line_past_comments() -> None:
    text = "kafana-tac-record 1\n# a comment\nrules {}\nmove jump\n"
    with pytest.raises(InvalidInputError, match="record line 4"):
        tac.GameRecord.from_text(text)


def test_records_with_comments_still_replay() -> None:
    state = tablic.new_match(tablic.Rules(), seed=4)
    for _ in range(10):
        state = state.apply(state.legal_moves()[0])
    lines = state.record().to_text().splitlines()
    text = "\n".join([lines[0], "# kept by a league", *lines[1:]]) + "\n"
    assert tablic.MatchRecord.from_text(text).replay().move_count == 10
