"""Both games' Rules are checked and serialised by one base (`kafana.games.switches`)."""

from __future__ import annotations

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.games.tablic.rules import PRESET_SWITCHES

RULES = [tablic.Rules(), tac.Rules()]


@pytest.mark.parametrize("rules", RULES, ids=["tablic", "tac"])
def test_the_same_checks_and_json_for_both_games(rules: tablic.Rules | tac.Rules) -> None:
    assert type(rules).from_json(rules.to_json()) == rules
    assert type(rules).from_dict(rules.to_dict()) == rules
    with pytest.raises(InvalidInputError, match=r"unknown rule switch\(es\): nope"):
        rules.with_switches(nope=1)
    with pytest.raises(InvalidInputError, match=r"unknown rule switch\(es\): nope"):
        type(rules).from_dict({"nope": 1})
    with pytest.raises(InvalidInputError, match="rule switch players must be a whole number"):
        rules.with_switches(players=True)
    with pytest.raises(InvalidInputError, match="rules are not valid JSON"):
        type(rules).from_json("{")
    with pytest.raises(InvalidInputError, match="rules must be a JSON object"):
        type(rules).from_dict([])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "switch", "low", "high"),
    [(tablic.Rules(), "target", 1, 100_000), (tac.Rules(), "stall_rounds", 1, 100_000)],
)
def test_bounds_are_data(rules: tablic.Rules | tac.Rules, switch: str, low: int, high: int) -> None:
    assert type(rules).BOUNDS[switch] == (low, high)
    assert getattr(rules.with_switches(**{switch: high}), switch) == high
    with pytest.raises(InvalidInputError, match=f"{switch} must be between {low} and {high}"):
        rules.with_switches(**{switch: high + 1})


def test_presets_are_data() -> None:
    for name, switches in PRESET_SWITCHES.items():
        rules = tablic.Rules.preset(name, players=3)
        assert {key: getattr(rules, key) for key in switches} == switches
    assert tablic.Rules.preset("serbian", players=4).target == 51
