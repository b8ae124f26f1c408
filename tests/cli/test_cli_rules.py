"""`kafana rules`: the rules in words, made from the rules core's values (a switch changes the
text), for every preset and Tač; bad input is one line, exit 2."""

from __future__ import annotations

import pytest
from kafana.games import tablic

from .test_cli_contract import _many, run


@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_every_preset_in_words_from_its_values(preset: str) -> None:
    rules = tablic.Rules.preset(preset)
    ran = run("rules", "--preset", preset)
    assert ran.status == 0, ran
    assert f"the match is played to {rules.target} points" in ran.out
    assert ("A = 1 or 11" in ran.out) == rules.ace_high
    assert ("The J is wild" in ran.out) == rules.wild_jack
    assert f"Q = {rules.queen_value}, K = {rules.king_value}" in ran.out
    assert f"Most cards taken in a hand: {rules.most_cards_points}" in ran.out
    total = sum(rules.points_by_index) + rules.most_cards_points
    assert f"A hand gives {total} points plus the tablas" in ran.out


def test_the_rule_book_figures_and_switches_change_the_text() -> None:
    serbian = run("rules")
    assert "Points of the cards taken: A, 10, J, Q, K 1 each; 2C 1; 10D 2." in serbian.out
    assert "A hand gives 25 points plus the tablas" in serbian.out  # docs/rules.md's figure
    changed = run(
        "rules", "--rule", "target=61", "--rule", "tabla_points=2", "--rule", "must_capture=true",
        "--rule", "card_points=A=2", "--players", "4", "--partnerships", "--keys",
    )  # fmt: skip
    assert changed.status == 0, changed
    assert "2 partnerships" in changed.out and "played to 61 points" in changed.out
    assert "Each tabla (a capture that empties the table): 2." in changed.out
    assert "a player who can capture must" in changed.out
    assert "Points of the cards taken: A 2 each." in changed.out
    assert "KC:KD+KH" in changed.out  # --keys: how to write a capture
    tac = run("rules", "--game", "tac", "--players", "3", "--rule", "tac_calls=true")
    assert tac.status == 0 and "Tač, 3 players, one deck" in tac.out, tac
    assert 'anyone may call "Tač!"' in tac.out and "104 rounds" in tac.out


def test_bad_rules_are_one_line() -> None:
    lines = _many(
        [
            (2, ("rules", "--preset", "nope")),
            (2, ("rules", "--rule", "nope=1")),
            (2, ("rules", "--game", "tac", "--players", "5")),
            (2, ("rules", "--game", "tac", "--preset", "tabinet")),
            (2, ("rules", "--players", "3", "--partnerships")),
        ]
    )
    assert "unknown tablic rule switch(es): nope" in lines[1]
    assert "players must be 2, 3 or 4 with 1 deck, not 5" in lines[2]
