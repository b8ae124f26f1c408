"""The fast capture generator against the brute-force oracle, on thousands of random tables."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana.games.tablic import Card, Rules

from .helpers import capture_texts, cs, fs
from .oracle import oracle_captures

# How many random tables of each size every rule set gets: big tables are slow to brute-force.
SAMPLES_BY_SIZE = {**dict.fromkeys(range(9), 150), 9: 80, 10: 50, 11: 25, 12: 15}
LOW_CARDS = [card for card in tablic.CARDS if card.rank <= 6]

SWITCH_COMBOS = {
    "serbian+one_group": Rules.preset("serbian", multi_group=False),
    "serbian+royals_by_rank": Rules.preset("serbian", royals_by_rank_only=True),
    "serbian+wild_jack": Rules.preset("serbian", wild_jack=True),
    "wild_jack+ace_high+several_groups": Rules.preset("wild_jack", ace_high=True, multi_group=True),
    "tablanette+several_groups+wild_jack": Rules.preset(
        "tablanette", multi_group=True, wild_jack=True
    ),
    "serbian+rank_priority": Rules.preset("serbian", rank_priority=True),
    "wild_jack+rank_priority": Rules.preset("wild_jack", rank_priority=True),
    "serbian+odd_values": Rules.preset("serbian", jack_value=5, queen_value=2, king_value=20),
}


def random_case(rng: random.Random, size: int) -> tuple[Card, list[Card]]:
    """A played card and a table: half from the whole deck, half rich in low cards (many sums)."""
    pool = LOW_CARDS if rng.random() < 0.5 and size <= len(LOW_CARDS) - 1 else list(tablic.CARDS)
    table = rng.sample(pool, size)
    played = rng.choice([card for card in tablic.CARDS if card not in table])
    return played, table


def compare(rules: Rules, seed: int, scale: float = 1.0) -> int:
    """Compare captures() with the oracle on random tables; return the number of cases."""
    rng = random.Random(seed)
    cases = 0
    for size, samples in SAMPLES_BY_SIZE.items():
        for _ in range(max(2, int(samples * scale))):
            played, table = random_case(rng, size)
            expected = oracle_captures(played, table, rules)
            got = tablic.captures(played, table, rules)
            assert got == expected, (
                f"{played} on {' '.join(map(str, table))}: engine {capture_texts(got)} "
                f"oracle {capture_texts(expected)}"
            )
            cases += 1
    return cases


@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_captures_match_the_oracle_for_every_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    assert compare(rules, seed=sum(map(ord, preset))) >= 1500


@pytest.mark.parametrize("name", sorted(SWITCH_COMBOS))
def test_captures_match_the_oracle_for_switch_combinations(name: str) -> None:
    assert compare(SWITCH_COMBOS[name], seed=len(name), scale=0.3) >= 450


@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_every_rank_on_one_crowded_low_table(preset: str) -> None:
    # Four aces, three twos...: the most groups and the most ace choices at once.
    table = cs("AC AD AH AS 2C 2D 2H 3C 3D 4C 5C")
    rules = Rules.preset(preset)
    for rank in ("2S", "3H", "4D", "5D", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"):
        played = Card.parse(rank)
        assert tablic.captures(played, table, rules) == oracle_captures(played, table, rules)


def test_captures_do_not_depend_on_the_order_of_the_table() -> None:
    rng = random.Random(4)
    rules = Rules.preset("serbian")
    for _ in range(200):
        played, table = random_case(rng, rng.randint(0, 10))
        shuffled = list(table)
        rng.shuffle(shuffled)
        assert tablic.captures(played, table, rules) == tablic.captures(played, shuffled, rules)


def test_captures_are_non_empty_subsets_of_the_table() -> None:
    rng = random.Random(5)
    for preset in tablic.PRESETS:
        rules = Rules.preset(preset)
        for _ in range(200):
            played, table = random_case(rng, rng.randint(0, 10))
            for capture in tablic.captures(played, table, rules):
                assert capture and capture <= set(table)


# -- the oracle itself, on the examples of RULES.md (so a broken oracle cannot agree) --------


@pytest.mark.parametrize(
    ("played", "table", "expected"),
    [
        ("KC", "7S 6H KD", [["KD"]]),
        ("9H", "5S 4D 8C", [["4D", "5S"]]),
        ("AD", "4C 7S", [["4C", "7S"]]),
        ("8C", "AS 7D", [["7D", "AS"]]),
        ("KC", "KD KH", [["KD"], ["KD", "KH"], ["KH"]]),
        ("JC", "JS 8H 4D 2C", [["4D", "8H"], ["4D", "8H", "JS"], ["JS"]]),
        ("QD", "QS 7H 6C", [["6C", "7H"], ["6C", "7H", "QS"], ["QS"]]),
        ("JC", "AC AD 9H", [["AC", "AD"]]),  # one ace as 1, the other as 11
        ("5C", "", []),
    ],
)
def test_oracle_on_the_rules_examples(played: str, table: str, expected: list[list[str]]) -> None:
    found = oracle_captures(Card.parse(played), cs(table), Rules.preset("serbian"))
    assert capture_texts(found) == expected


def test_oracle_wild_jack_and_one_group() -> None:
    rules = Rules.preset("wild_jack")
    assert oracle_captures(Card.parse("JC"), cs("2C QS KD"), rules) == {fs("2C QS KD")}
    assert oracle_captures(Card.parse("JC"), [], rules) == set()
    assert capture_texts(oracle_captures(Card.parse("KC"), cs("KD KH"), rules)) == [["KD"], ["KH"]]
    assert oracle_captures(Card.parse("AD"), cs("4C 7S"), rules) == set()
