"""RulesSpec to a game's Rules and back: presets, set switches, the rules in force, refusals."""

from __future__ import annotations

import dataclasses

import pytest
from kafana.errors import InvalidInputError, InvalidRulesError
from kafana.games import tablic, tac
from kafana.service import convert
from kafana.service.games import build_rules, game_enum, game_name, rules_in_force
from kafana.service.games.tablic import PRESETS, captures
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2
from wire_support import seated

R = rules_pb2


@pytest.mark.parametrize("preset", list(PRESETS))
def test_each_preset_is_the_games_preset(preset: int) -> None:
    spec = R.RulesSpec(game=R.GAME_TABLIC, players=3, tablic=R.TablicRules(preset=preset))
    assert build_rules(spec) == tablic.Rules.preset(PRESETS[preset], players=3)


def test_no_game_and_no_branch_is_serbian_for_two() -> None:
    assert build_rules(R.RulesSpec()) == tablic.Rules()
    assert game_name(R.RulesSpec()) == "tablic" and game_enum(R.RulesSpec()) == R.GAME_TABLIC


def test_only_the_set_switches_change_the_preset() -> None:
    branch = R.TablicRules(
        preset=R.TABLIC_PRESET_WILD_JACK, must_capture=True, target=77, ace_high=True
    )
    spec = R.RulesSpec(players=4, partnerships=True, tablic=branch)
    expected = tablic.Rules.preset(
        "wild_jack", players=4, partnerships=True, must_capture=True, target=77, ace_high=True
    )
    assert build_rules(spec) == expected
    # An explicit false is set too (it is not "keep the preset's value").
    off = R.RulesSpec(tablic=R.TablicRules(preset=R.TABLIC_PRESET_SERBIAN, multi_group=False))
    assert build_rules(off).multi_group is False and tablic.Rules().multi_group is True


def test_card_points_replace_the_table_and_card_points_set_empties_it() -> None:
    points = [R.CardPoints(pattern="10D", points=5), R.CardPoints(pattern="A", points=2)]
    given = build_rules(R.RulesSpec(tablic=R.TablicRules(card_points=points)))
    assert given.card_points == (("10D", 5), ("A", 2))
    kept = build_rules(R.RulesSpec(tablic=R.TablicRules()))
    assert kept.card_points == tablic.Rules().card_points
    emptied = build_rules(R.RulesSpec(tablic=R.TablicRules(card_points_set=True)))
    assert emptied.card_points == ()


def test_tac_switches() -> None:
    spec = R.RulesSpec(game=R.GAME_TAC, players=8, tac=R.TacRules(decks=2, play_on=True))
    assert build_rules(spec) == tac.Rules(players=8, decks=2, play_on=True)
    assert build_rules(R.RulesSpec(game=R.GAME_TAC)) == tac.Rules()


@pytest.mark.parametrize(
    ("spec", "field", "words"),
    [
        (R.RulesSpec(game=R.GAME_TAC, tablic=R.TablicRules()), "rules.tablic", "GAME_TAC"),
        (R.RulesSpec(tac=R.TacRules()), "rules.tac", "GAME_TABLIC"),
        (R.RulesSpec(game=R.GAME_TABLIC, tac=R.TacRules()), "rules.tac", "rules.tablic"),
        (R.RulesSpec(game=9), "rules.game", "9"),
        (R.RulesSpec(tablic=R.TablicRules(preset=9)), "rules.tablic.preset", "preset 9"),
        (R.RulesSpec(tablic=R.TablicRules(jack_value=1)), "rules.tablic.jack_value", "2 and 20"),
        (R.RulesSpec(tablic=R.TablicRules(target=0)), "rules.tablic.target", "not 0"),
        (R.RulesSpec(players=5), "rules.players", "not 5"),
        (R.RulesSpec(players=3, partnerships=True), "rules.partnerships", "4 players"),
        (R.RulesSpec(game=R.GAME_TAC, partnerships=True), "rules.partnerships", "Tač"),
        (R.RulesSpec(game=R.GAME_TAC, players=3, tac=R.TacRules(decks=2)), "rules.players", "3"),
        (R.RulesSpec(game=R.GAME_TAC, tac=R.TacRules(decks=3)), "rules.tac.decks", "not 3"),
        (
            R.RulesSpec(tablic=R.TablicRules(card_points=[R.CardPoints(pattern="ZZ")])),
            "rules.tablic.card_points",
            "ZZ",
        ),
    ],
)
def test_refusals_name_the_field(spec: rules_pb2.RulesSpec, field: str, words: str) -> None:
    with pytest.raises(InvalidRulesError) as refused:
        build_rules(spec)
    assert refused.value.metadata["field"] == field
    assert words in str(refused.value)
    assert refused.value.reason == "INVALID_RULES"


def every_switch_set(spec: rules_pb2.RulesSpec) -> None:
    """The game's branch is present and every field of it is set."""
    branch = getattr(spec, spec.WhichOneof("variant") or "")
    unset = {f.name for f in branch.DESCRIPTOR.fields} - {f.name for f, _ in branch.ListFields()}
    if spec.HasField("tablic"):
        assert unset <= {"card_points"} and branch.card_points_set
    else:
        assert not unset


@pytest.mark.parametrize(
    "spec",
    [
        R.RulesSpec(),
        R.RulesSpec(players=4),  # serbian for four singles: target 51
        R.RulesSpec(tablic=R.TablicRules(preset=R.TABLIC_PRESET_TABINET, must_capture=True)),
        R.RulesSpec(tablic=R.TablicRules(card_points_set=True)),
        R.RulesSpec(game=R.GAME_TAC, players=3, tac=R.TacRules(tac_calls=True)),
    ],
)
def test_the_rules_in_force_set_every_switch_and_build_the_same_rules(
    spec: rules_pb2.RulesSpec,
) -> None:
    rules = build_rules(spec)
    in_force = rules_in_force(spec, rules.to_json())
    assert in_force.game == game_enum(spec) != R.GAME_UNSPECIFIED
    assert in_force.WhichOneof("variant") == game_name(spec)
    every_switch_set(in_force)
    assert build_rules(in_force) == rules
    switches = dataclasses.asdict(rules)
    branch = getattr(in_force, game_name(spec))
    for name, value in switches.items():
        if name in ("players", "partnerships"):
            assert getattr(in_force, name) == value
        elif name == "card_points":
            assert [(p.pattern, p.points) for p in branch.card_points] == list(value)
        else:
            assert getattr(branch, name) == value, name


def test_the_preset_in_force_is_the_one_asked_for() -> None:
    spec = R.RulesSpec(tablic=R.TablicRules(preset=R.TABLIC_PRESET_TABLANETTE))
    assert rules_in_force(spec, build_rules(spec).to_json()).tablic.preset == (
        R.TABLIC_PRESET_TABLANETTE
    )
    plain = R.RulesSpec()
    assert rules_in_force(plain, build_rules(plain).to_json()).tablic.preset == (
        R.TABLIC_PRESET_SERBIAN
    )


async def test_table_info_shows_the_rules_in_force(redis_store: RedisStore) -> None:
    spec = R.RulesSpec(tablic=R.TablicRules(must_capture=True))
    tables, table_id, _tokens = await seated(redis_store, spec)
    info = convert.info(await tables.session(table_id))
    assert info.rules.game == R.GAME_TABLIC and info.rules.tablic.must_capture
    assert info.rules.tablic.HasField("target") and info.rules.tablic.target == 101
    every_switch_set(info.rules)


def test_captures_take_typed_rules_and_refuse_tac() -> None:
    wild = R.RulesSpec(tablic=R.TablicRules(preset=R.TABLIC_PRESET_WILD_JACK))
    request = service_pb2.CapturesRequest(card="JC", table=["5S", "8H"], rules=wild)
    assert [list(c.cards) for c in captures(request).captures] == [["5S", "8H"]]
    request.rules.CopyFrom(R.RulesSpec(game=R.GAME_TAC))
    with pytest.raises(InvalidRulesError, match="Tablić"):
        captures(request)


async def test_a_stored_table_loads_back_with_the_same_rules(redis_store: RedisStore) -> None:
    """The store keeps the spec and a digest of the rules' JSON; another process (nothing
    cached) makes the same rules again from the typed spec."""
    spec = R.RulesSpec(
        game=R.GAME_TAC, players=4, tac=R.TacRules(decks=2, tac_calls=True, stall_rounds=9)
    )
    tables, table_id, _tokens = await seated(redis_store, spec)
    mine = await tables.session(table_id)
    other = await Tables(tables.store).session(table_id)
    assert other.stored.rules_json == mine.stored.rules_json == build_rules(spec).to_json()
    assert convert.info(other).rules == convert.info(mine).rules
    assert convert.info(other).rules.tac.stall_rounds == 9


def test_captures_refuse_a_table_or_card_points_past_any_game_before_reading_them() -> None:
    # A review: 170,000 copies of "3C" cost 68 ms over gRPC (272 ms as Connect JSON) to parse
    # before "3C appears twice"; 60,000 card_points, 52 ms to build (once per distinct spec).
    request = service_pb2.CapturesRequest(card="7S", table=["3C"] * 170_000)
    with pytest.raises(InvalidInputError, match="table: 170000 cards, more than the 52") as e:
        captures(request)
    assert e.value.metadata.get("field") == "table"
    points = [R.CardPoints(pattern="A", points=1)] * 60_000
    request = service_pb2.CapturesRequest(
        card="7S", table=["3C"], rules=R.RulesSpec(tablic=R.TablicRules(card_points=points))
    )
    with pytest.raises(InvalidRulesError, match="card_points: 60000 patterns, more than 128"):
        captures(request)
