"""The SDK with `building`: views carry the builds, moves read and draw as builds."""

from __future__ import annotations

import random

from kafana.games import tablic
from kafana.service.games.tablic import move_message, spec_of, tablic_view
from kafana.v1 import state_pb2
from kafana_client import table_config
from kafana_client.cli.render import move_text, order_moves
from kafana_client.convert import move_of, view_of


def a_state_with_builds() -> tablic.MatchState:
    """A match with building on, played at random until two builds lie on the table."""
    rng = random.Random(4)
    state = tablic.new_match(tablic.Rules(building=True), seed=4)
    while len(state.builds) < 2:
        moves = state.legal_moves()
        builds = [m for m in moves if m.is_build]
        state = state.apply(rng.choice(builds or moves))
    return state


def test_a_view_carries_the_builds() -> None:
    state = a_state_with_builds()
    seat = state.current_seat
    assert seat is not None
    wire = state_pb2.TableState(tablic=tablic_view(state.view(seat)))
    wire.info.rules.CopyFrom(spec_of(state.rules))
    wire.info.status = state_pb2.TABLE_STATUS_PLAYING
    wire.current_seat = seat
    view = view_of(wire)
    assert view.builds == state.builds and view.table == state.table
    assert view.rules.building and view == state.view(seat)


def test_a_build_move_reads_and_draws_as_a_build() -> None:
    build = tablic.Move.parse("2C>5D=7")
    message = move_message(build)
    assert move_of(message) == build
    assert move_text(message).plain == "2♣ builds 7 on 5♦"
    assert move_text(state_pb2.Move(text="2C>5D=7")).plain == "2♣ builds 7 on 5♦"
    trail, capture = state_pb2.Move(text="9S"), state_pb2.Move(text="KC:KD")
    assert [m.text for m in order_moves([trail, message, capture])] == ["KC:KD", "2C>5D=7", "9S"]


def test_a_table_config_may_ask_for_building() -> None:
    config = table_config(building=True)
    assert config.rules.tablic.HasField("building") and config.rules.tablic.building
