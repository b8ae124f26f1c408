"""GetServerInfo's answer: version and limits as given, every game with its seats, defaults,
presets and switches, made from the games themselves."""

from __future__ import annotations

import dataclasses

from kafana.games import tablic, tac
from kafana.service.games import build_rules
from kafana.service.games.tablic import PRESETS
from kafana.service.server_info import DESCRIPTIONS, server_info
from kafana.v1 import rules_pb2, service_pb2

LIMITS = {
    "default_page_size": 50,
    "max_page_size": 500,
    "max_captures": 10_000,
    "heartbeat_millis": 5000,
    "rate_per_second": 20.0,
    "rate_burst": 40,
    "max_streams": 8,
    "max_request_bytes": 65536,
}


def info() -> service_pb2.ServerInfo:
    return server_info("9.9.9", **LIMITS, auth_required=True)  # type: ignore[arg-type]


def test_version_api_and_limits_are_as_given() -> None:
    got = info()
    assert got.version == "9.9.9" and got.api == "kafana.v1"
    assert got.auth_required and not got.self_register
    for name, value in LIMITS.items():
        assert getattr(got.limits, name) == value, name
    other = server_info("1", **{**LIMITS, "max_streams": 2})  # type: ignore[arg-type]
    assert other.limits.max_streams == 2 and not other.auth_required


def test_games_seats_and_defaults() -> None:
    games = {g.game: g for g in info().games}
    assert set(games) == {rules_pb2.GAME_TABLIC, rules_pb2.GAME_TAC}
    assert list(games[rules_pb2.GAME_TABLIC].players) == [2, 3, 4]
    assert list(games[rules_pb2.GAME_TAC].players) == [2, 3, 4, 8]
    assert build_rules(games[rules_pb2.GAME_TABLIC].defaults) == tablic.Rules()
    assert build_rules(games[rules_pb2.GAME_TAC].defaults) == tac.Rules()
    defaults = games[rules_pb2.GAME_TAC].defaults.tac
    assert [f.name for f, _ in defaults.ListFields()] == [
        f.name for f in rules_pb2.TacRules.DESCRIPTOR.fields
    ]


def test_each_preset_is_listed_resolved() -> None:
    offer = next(g for g in info().games if g.game == rules_pb2.GAME_TABLIC)
    assert [p.tablic.preset for p in offer.presets] == [v for v in PRESETS if v]
    for spec in offer.presets:
        assert build_rules(spec) == tablic.Rules.preset(PRESETS[spec.tablic.preset])
        assert spec.tablic.HasField("target") and spec.tablic.card_points_set
    targets = [p.tablic.target for p in offer.presets]
    assert targets == [101, 101, 151, 251]
    assert not next(g for g in info().games if g.game == rules_pb2.GAME_TAC).presets


def test_switches_are_the_rules_fields_with_types_and_descriptions() -> None:
    for offer, rules, branch in (
        (0, tablic.Rules, rules_pb2.TablicRules),
        (1, tac.Rules, rules_pb2.TacRules),
    ):
        switches = info().games[offer].switches
        fields = [f for f in dataclasses.fields(rules) if f.name not in ("players", "partnerships")]
        assert [s.name for s in switches] == [f.name for f in fields]
        wire = {f.name for f in branch.DESCRIPTOR.fields} - {"preset", "card_points_set"}
        assert {s.name for s in switches} == wire  # every switch is in the proto, and back
        for switch in switches:
            assert switch.description and "\n" not in switch.description
            kind = {"bool": "bool", "int": "uint32"}.get(
                str(rules.__dataclass_fields__[switch.name].type)
            )
            assert switch.type == (kind or "card_points")
    assert {s.type for s in info().games[0].switches} == {"bool", "uint32", "card_points"}
    assert set(DESCRIPTIONS) == {"tablic", "tac"}
