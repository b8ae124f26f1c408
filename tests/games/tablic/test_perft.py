"""Golden legal-move counts over seeded random playouts (`tests/data/tablic_perft.json`)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from kafana.games.tablic import MatchState, Move

from .oracle import oracle_legal_moves

DATA = Path(__file__).resolve().parents[2] / "data"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_tablic_perft", DATA / "make_tablic_perft.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = load_generator()
GOLDEN = json.loads((DATA / "tablic_perft.json").read_text())


def test_golden_file_describes_the_generator_setup() -> None:
    assert GOLDEN["hands"] == GEN.HANDS
    assert GOLDEN["seeds"] == list(GEN.SEEDS) and len(GOLDEN["seeds"]) >= 20
    assert GOLDEN["full_match_seeds"] == list(GEN.FULL_SEEDS)
    assert (
        sorted(GOLDEN["counts"]) == sorted(GEN.rule_sets()) == sorted(GOLDEN["full_match_counts"])
    )
    assert len(GOLDEN["counts"]) == 16
    for name, counts in GOLDEN["counts"].items():
        assert GOLDEN["totals"][name] == sum(counts)


@pytest.mark.parametrize("name", sorted(GEN.rule_sets()))
def test_perft_counts(name: str) -> None:
    rules = GEN.rule_sets()[name]
    got = [GEN.playout(rules, seed) for seed in GEN.SEEDS]
    assert got == GOLDEN["counts"][name]


@pytest.mark.parametrize("name", sorted(GEN.rule_sets()))
def test_perft_counts_of_whole_matches(name: str) -> None:
    rules = GEN.rule_sets()[name]
    got = [GEN.playout(rules, seed, hands=None) for seed in GEN.FULL_SEEDS]
    assert got == GOLDEN["full_match_counts"][name]


@pytest.mark.parametrize(
    ("name", "seed"),
    [("serbian-2", 5), ("wild_jack-3", 6), ("tabinet-4", 7), ("tablanette-2v2", 8)],
)
def test_perft_positions_agree_with_the_oracle(name: str, seed: int) -> None:
    # The golden numbers are only worth keeping if they are right: every legal move list of
    # a playout equals the brute-force one, so its count is independently confirmed.
    positions = 0

    def check(state: MatchState, moves: list[Move]) -> None:
        nonlocal positions
        seat = state.current_seat
        assert seat is not None
        expected = oracle_legal_moves(state.hand(seat), state.table, state.rules)
        assert len(moves) == len(expected)
        assert {(m.card, m.captured) for m in moves} == expected
        positions += 1

    rules = GEN.rule_sets()[name]
    assert GEN.playout(rules, seed, check) == GOLDEN["counts"][name][GEN.SEEDS.index(seed)]
    assert positions >= 2 * 40
