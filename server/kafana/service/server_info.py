"""What this server offers (GetServerInfo): its version, its games with their seats, defaults,
presets and switches, and the limits a client must respect.

The games part is made from the games themselves: the defaults and presets are the rules in
force (`TableGame.spec_of`), the switches the fields of each game's `Rules` dataclass, so a new
switch shows here once it has a one-line description (`DESCRIPTIONS`; a test checks each has).
"""

from __future__ import annotations

import dataclasses
import functools

from kafana_bots import registry

from kafana.games import tablic, tac
from kafana.games.tac.rules import PLAYERS_FOR_DECKS
from kafana.service.games import GAMES, Game
from kafana.service.games.tablic import PRESETS, spec_of
from kafana.v1 import rules_pb2, service_pb2

API = service_pb2.DESCRIPTOR.package
"""The API version, "kafana.v1"."""

SEATS: dict[str, tuple[int, ...]] = {
    "tablic": (2, 3, 4),
    "tac": tuple(sorted({n for counts in PLAYERS_FOR_DECKS.values() for n in counts})),
}
"""The seat counts each game can be played with."""

RULES: dict[str, type[tablic.Rules] | type[tac.Rules]] = {"tablic": tablic.Rules, "tac": tac.Rules}
"""Each game's Rules dataclass: its fields are the switches (but the seats)."""

SEAT_FIELDS = frozenset({"players", "partnerships"})
"""Rules fields set by `RulesSpec` itself, not by the game's branch."""

DESCRIPTIONS: dict[str, dict[str, str]] = {
    "tablic": {
        "ace_high": "An ace captures and is captured as 1 or 11 (else 1 only).",
        "wild_jack": "A played J takes the whole table; a J on the table is taken only by a J.",
        "jack_value": "Capture value of J.",
        "queen_value": "Capture value of Q.",
        "king_value": "Capture value of K.",
        "royals_by_rank_only": "Q and K capture, and are captured, by rank only.",
        "multi_group": "One capture may take several disjoint groups (else one group).",
        "card_points": "Points per card or rank of the captured cards (pattern, points).",
        "most_cards_points": "Points for the side with the most captured cards.",
        "tabla_points": "Points for each tabla (a capture that clears the table).",
        "last_card_tabla": "A tabla made by the last card of a hand counts.",
        "jack_off_opening_table": "A J among the opening table cards goes under the deck.",
        "target": "Points to win the match.",
        "must_capture": "A seat that can capture must capture.",
        "rank_priority": "A card that can take a card of its own rank must take one.",
        "most_cards_tie_to_last": "A most-cards tie goes to the side that captured last.",
        "building": "Builds and raises (Cassino's house rule): a card played onto table cards.",
    },
    "tac": {
        "decks": "Decks dealt: 1 (2, 3 or 4 players) or 2 (2, 4 or 8 players).",
        "tac_calls": 'Out-of-order moves are accepted and others may call "Tač!" on them.',
        "play_on": "After the first player goes out, play on for every place.",
        "centre_first": "A card that fits the central pile must go there first.",
        "stall_rounds": "Rounds without a card onto the central pile before a draw.",
    },
}
"""One line per switch of each game."""

TYPES = {"bool": "bool", "int": "uint32"}
"""A Rules field's annotation as `SwitchInfo.type` (any other: card_points)."""


def switches(game: str) -> list[service_pb2.SwitchInfo]:
    """The game's switches, in the Rules dataclass's order, with type and description."""
    out = []
    for field in dataclasses.fields(RULES[game]):
        if field.name in SEAT_FIELDS:
            continue
        kind = TYPES.get(str(field.type), "card_points")
        out.append(
            service_pb2.SwitchInfo(
                name=field.name, type=kind, description=DESCRIPTIONS[game][field.name]
            )
        )
    return out


def offer(game: Game) -> service_pb2.GameOffer:
    """One game: its seats, its rules in force when only `game` is given, its presets (each
    resolved for two players) and its switches."""
    spec = rules_pb2.RulesSpec(game=game.game)
    out = service_pb2.GameOffer(
        game=game.game,
        players=SEATS[game.name],
        defaults=game.spec_of(game.build_rules(spec), spec),
        switches=switches(game.name),
    )
    if game.name == "tablic":
        for value, name in PRESETS.items():
            if value:
                out.presets.append(spec_of(tablic.Rules.preset(name), value))
    return out


def bots(game: Game) -> list[service_pb2.BotInfo]:
    """The built-in bots of a game, as the registry lists them (weakest first)."""
    return [
        service_pb2.BotInfo(
            game=game.game,
            name=name,
            summary=registry.entry(name, game.name).summary,
            options=sorted(registry.entry(name, game.name).options),
        )
        for name in registry.names(game.name)
    ]


@functools.cache
def _games() -> bytes:
    """Every game's offer and bots, serialized as a ServerInfo's (they never change)."""
    games = list(GAMES.values())
    info = service_pb2.ServerInfo(
        games=[offer(g) for g in games], bots=[b for g in games for b in bots(g)]
    )
    return info.SerializeToString()


def server_info(
    version: str,
    *,
    default_page_size: int,
    max_page_size: int,
    max_captures: int,
    heartbeat_millis: int,
    rate_per_second: float,
    rate_burst: int,
    max_streams: int,
    max_request_bytes: int,
    auth_required: bool = False,
    self_register: bool = False,
    max_analysis_millis: int = 0,
    default_analysis_millis: int = 0,
) -> service_pb2.ServerInfo:
    """The GetServerInfo answer of a server of `version` with these limits."""
    out = service_pb2.ServerInfo.FromString(_games())
    out.version = version
    out.api = API
    out.auth_required = auth_required
    out.self_register = self_register
    out.limits.CopyFrom(
        service_pb2.ServerLimits(
            default_page_size=default_page_size,
            max_page_size=max_page_size,
            max_captures=max_captures,
            heartbeat_millis=heartbeat_millis,
            rate_per_second=rate_per_second,
            rate_burst=rate_burst,
            max_streams=max_streams,
            max_request_bytes=max_request_bytes,
            max_analysis_millis=max_analysis_millis,
            default_analysis_millis=default_analysis_millis,
        )
    )
    return out
