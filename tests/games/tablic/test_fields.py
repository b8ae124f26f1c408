"""A `MatchState`'s moving fields behind one object (`fields.py`): `PyFields`, and in the
compiled build `_ccore.StateCore`, read and written as the same attributes."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana.games.tablic import Card
from kafana.games.tablic.capture import NATIVE
from kafana.games.tablic.fields import PyFields
from kafana.games.tablic.state import MatchState, state_params

NAMES = PyFields.__slots__

compiled = pytest.mark.skipif(NATIVE is None, reason="the pure build has no StateCore")


def values(fields: object) -> dict[str, object]:
    return {name: getattr(fields, name) for name in NAMES}


def played(seed: int, moves: int) -> MatchState:
    rng = random.Random(seed)
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=seed)
    for _ in range(moves):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def test_a_copy_holds_the_same_values_and_changes_alone() -> None:
    state = played(1, 30)
    copy = state._f.copy()
    assert copy is not state._f and values(copy) == values(state._f)
    copy.move_count = 99
    copy.log = None
    assert state.move_count == 30 and state._f.log is not None


def test_cutting_a_states_log_keeps_its_last_move_only() -> None:
    # What the service's session cache does (`session.without_history`): a settable `_log`.
    state = played(2, 12)
    seat, move, _ = state._log or (None, None, None)
    state._log = (seat, move, None)  # type: ignore[assignment]
    assert state.moves() == [(seat, move)] and state.move_count == 12


@compiled
def test_the_c_fields_read_as_the_python_ones_move_by_move() -> None:
    assert NATIVE is not None
    rng = random.Random(3)
    rules = tablic.Rules.preset("serbian", players=3)
    state = tablic.new_match(rules, seed=3)
    while not state.is_over:
        core = state._f
        assert type(core) is NATIVE.StateCore
        mirror = PyFields()
        for name in NAMES:
            setattr(mirror, name, getattr(core, name))
        assert values(mirror) == values(core)
        assert core.hands is core.hands  # made once, then kept
        state = state.apply(rng.choice(state.legal_moves()))
    assert state._f.current is None and state.hand_results == state._f.results


@compiled
def test_a_c_field_set_reads_back_as_given_and_refuses_what_it_cannot_hold() -> None:
    assert NATIVE is not None
    rules = tablic.Rules.preset("serbian")
    core = NATIVE.StateCore(state_params(rules))
    hands = ((Card.parse("AS"), Card.parse("5D")), ())
    core.hands = hands
    assert core.hands is hands
    core.current, core.last_capturer, core.hand_no = 1, None, 2**63
    assert (core.current, core.last_capturer, core.hand_no) == (1, None, 2**63)
    with pytest.raises(TypeError):
        core.table = ("AS",)  # text, not a card
    with pytest.raises(TypeError):
        core.hands = ((),)  # one hand a seat
    with pytest.raises(ValueError):
        core.current = 2  # no seat 2 at a 2-player table
    with pytest.raises(AttributeError):
        del core.deck
    with pytest.raises(ValueError):
        NATIVE.StateCore(b"")  # the parameters of a match the C paths read
