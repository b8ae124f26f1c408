"""The `building` switch on the wire: the rules switch, build moves as text and structure,
and the builds in the Tablić view."""

from __future__ import annotations

import random
import uuid

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.service import convert
from kafana.service.games import GAMES, build_rules
from kafana.service.games.tablic import move_message, spec_of
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, state_pb2
from wire_support import seated

TABLIC = GAMES["tablic"]
R = rules_pb2
S = state_pb2
BUILDING = R.RulesSpec(tablic=R.TablicRules(building=True))


def test_the_switch_is_sent_and_read_back() -> None:
    rules = build_rules(BUILDING)
    assert rules == tablic.Rules(building=True)
    assert build_rules(R.RulesSpec()).building is False
    back = spec_of(rules)
    assert back.tablic.HasField("building") and back.tablic.building is True
    assert build_rules(back) == rules


def test_a_build_is_text_and_structure() -> None:
    message = move_message(tablic.Move.parse("7c>5d+ah=13"))
    assert message.text == "7C>AH+5D=13"
    assert message.tablic.card == "7C" and list(message.tablic.joined) == ["AH", "5D"]
    assert message.tablic.build_value == 13 and not message.tablic.captured
    only = S.Move(tablic=S.TablicMove(card="7C", joined=["5D", "AH"], build_value=13))
    assert TABLIC.move_text(only, 0) == "7C>AH+5D=13"
    assert TABLIC.move_text(message, 0) == "7C>AH+5D=13"  # sent back as is
    capture = move_message(tablic.Move.parse("KC:KD"))
    assert not capture.tablic.joined and capture.tablic.build_value == 0


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (S.TablicMove(card="7C", captured=["5D"], build_value=7), "captures nothing"),
        (S.TablicMove(card="7C", build_value=7), "needs both joined"),
        (S.TablicMove(card="7C", joined=["5D"]), "needs both joined"),
        (S.TablicMove(card="7C", joined=["5X"], build_value=7), "move.tablic.joined"),
        (S.TablicMove(card="7C", joined=["5D"], build_value=15), "between 2 and 14"),
    ],
)
def test_a_malformed_build_is_refused_naming_the_field(move: S.TablicMove, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words):
        TABLIC.move_text(S.Move(tablic=move), 0)


async def test_a_table_with_building_plays_builds_and_shows_them(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated(redis_store, BUILDING, seed=5)
    rng = random.Random(5)
    shown = structured = 0
    for _ in range(60):
        session = await tables.session(table_id)
        seat = session.match.current_seat
        if seat is None:
            break
        view = convert.table_state(session, seat).tablic
        builds = session.match.builds
        assert [(list(b.cards), b.value, b.owner) for b in view.builds] == [
            ([c.text for c in build.cards], build.value, build.owner) for build in builds
        ]
        shown += bool(builds)
        legal = tables.legal(session, seat)
        wire = convert.moves(session, legal)
        made = [(m, w) for m, w in zip(legal, wire, strict=True) if m.is_build]
        move, message = (
            rng.choice(made) if made else rng.choice(list(zip(legal, wire, strict=True)))
        )
        if move.is_build:  # sent as structure only: the table reads it as the same move
            only = S.Move(tablic=message.tablic)
            assert convert.move_text(session, only, seat) == str(move)
            structured += 1
        await tables.play(table_id, tokens[seat], str(move), uuid.uuid4().hex, session.seq)
    assert shown and structured
