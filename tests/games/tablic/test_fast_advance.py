"""The C transition of `MatchState` (`_ccore.advance`) against the Python one it stands in for
(`MatchState._advance`): the same next state, field by field, on every preset and switch
combination, for every move of random matches (hands scored and dealt, matches ended) but
those of listings too long to keep; where the move is not one of the state's own listed moves
it declines and the Python path checks it, and where a card's points do not fit its
parameters Python scores the hand. On the pure build there is no C transition."""

from __future__ import annotations

import ast
import dataclasses
import gc
import random
import sys
from itertools import repeat
from operator import attrgetter
from pathlib import Path

import pytest
from kafana.errors import IllegalMoveError
from kafana.games import tablic
from kafana.games.tablic import Card, Move
from kafana.games.tablic import state as state_module
from kafana.games.tablic.move import TRAILS
from kafana.games.tablic.state import MatchState

from .test_fast_captures import RULE_SETS

compiled = pytest.mark.skipif(
    state_module._FAST_ADVANCE is None, reason="the pure build has no C transition"
)


def slots_of(module: str, name: str) -> tuple[str, ...]:
    """The `__slots__` a class of a module of the package declares, read from its source (the
    compiled class has none to read: its fields are descriptors)."""
    tree = ast.parse((Path(tablic.__file__).parent / module).read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    for node in cls.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__slots__":
            names = ast.literal_eval(node.value)
            assert isinstance(names, tuple) and names
            return names
    raise AssertionError(f"{name} declares no __slots__")


def declared_fields() -> tuple[str, ...]:
    """MatchState's fields as state.py and fields.py declare them: its own `__slots__` but the
    position (`_f`), and the position's fields (`PyFields`), read as `_f.<field>`."""
    position = [f"_f.{name}" for name in slots_of("fields.py", "PyFields")]
    own = [name for name in slots_of("state.py", "MatchState") if name != "_f"]
    assert len(own) + 1 == len(slots_of("state.py", "MatchState"))
    return (*own, *position)


FIELDS = tuple(name for name in declared_fields() if name not in ("_legal", "_builds"))
"""Every field the C transition writes: not the listing (a cache), nor the builds (a match with
`building` takes the Python paths only; test_building.py)."""
READ = attrgetter(*FIELDS)


def fields(state: MatchState) -> dict[str, object]:
    """Every field of a state but its listing (a cache: None on a new state)."""
    return dict(zip(FIELDS, READ(state), strict=True))


def rule_set(name: str, players: int, partnerships: bool) -> tablic.Rules:
    """`RULE_SETS[name]` for `players` seats; tablanette's with its jacks under the deck, the
    one switch no preset sets."""
    rules = dataclasses.replace(RULE_SETS[name], players=players, partnerships=partnerships)
    if name == "tablanette":
        rules = dataclasses.replace(rules, jack_off_opening_table=True)
    return rules


def advance(state: MatchState, move: Move) -> MatchState | None:
    assert state_module._FAST_ADVANCE is not None
    return state_module._FAST_ADVANCE(state, move)


def test_the_c_transition_is_loaded_exactly_in_the_compiled_build() -> None:
    assert (state_module._FAST_ADVANCE is not None) == (tablic.BUILD == "compiled")


def test_fields_compared_are_every_field_of_a_state() -> None:
    state = tablic.new_match(tablic.Rules(), seed=1)
    assert len(FIELDS) == 16 and len(READ(state)) == 16
    assert set(declared_fields()) - set(FIELDS) == {"_legal", "_builds"}


@compiled
@pytest.mark.parametrize(("players", "partnerships"), [(2, False), (3, False), (4, True)])
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_c_transition_equals_the_python_one(
    name: str, players: int, partnerships: bool
) -> None:
    rules = rule_set(name, players, partnerships)
    rng = random.Random(f"{name} {players}")
    fast = hands = 0
    for seed in range(2):
        state = tablic.new_match(rules, seed=seed)
        while not state.is_over and state.move_count < 1000:
            legal = state.legal_moves()
            move = rng.choice(legal)
            expected = state._advance(move, 1 if move.captured else 0)
            got = advance(state, move)
            if state._legal is None:  # a listing too long to keep: the move is checked
                assert got is None
            else:
                assert got is not None and type(got) is MatchState
                assert fields(got) == fields(expected), f"{state!r} {move}"
                assert got._legal is None and got.legal_moves() == expected.legal_moves()
                fast += 1
                hands += got.hand_no != state.hand_no or got.is_over
            assert fields(state.apply(move)) == fields(expected)
            state = expected
    assert fast >= 200 and hands >= 2


@compiled
def test_the_c_transition_declines_what_is_not_a_listed_move() -> None:
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=5)
    assert advance(state, TRAILS[state.hand(0)[0].index]) is None  # nothing listed yet
    legal = state.legal_moves()
    assert advance(state, "7S") is None  # type: ignore[arg-type]
    assert advance(object(), legal[0]) is None  # type: ignore[arg-type]
    stranger = next(c for c in tablic.CARDS if c not in state.hand(0) and c not in state.table)
    assert advance(state, Move(stranger)) is None  # not listed: Python refuses it
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        state.apply(Move(stranger))
    capture = next(move for move in legal if move.captured)
    wrong = Move(capture.card, (*capture.captured, stranger))  # listed card, other cards
    assert advance(state, wrong) is None
    assert state.move_count == 0 and state.legal_moves() == legal  # nothing changed


@compiled
def test_an_equal_move_takes_the_c_transition_and_is_the_one_logged() -> None:
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=5)
    legal = state.legal_moves()
    for listed in (next(m for m in legal if m.is_trail), next(m for m in legal if m.captured)):
        copy = Move.parse(str(listed))  # equal, not the listed object: found by its cards
        assert copy == listed and copy is not listed
        made = advance(state, copy)
        assert made is not None
        assert fields(made) == fields(state._advance(listed, 1 if listed.captured else 0))
        assert made.moves()[-1][1] is copy  # as Python's path logs it: the caller's move


@compiled
def test_card_points_past_a_byte_leave_the_hands_end_to_python() -> None:
    points = (("10D", 100), ("10", 100), ("10D", 100))  # 10D: 300 points
    rules = tablic.Rules.preset("serbian", card_points=points, target=1000)
    state = tablic.new_match(rules, seed=2)
    rng = random.Random(2)
    while sum(map(len, state._f.hands)) != 1 or state._f.deck:
        state = state.apply(rng.choice(state.legal_moves()))
    last = state.legal_moves()[0]
    assert advance(state, last) is None
    assert (
        state.apply(last).hand_results[0]
        == state._advance(last, 1 if last[1] else 0).hand_results[0]
    )


@compiled
def test_the_c_transition_keeps_no_reference_it_does_not_own() -> None:
    rules = tablic.Rules.preset("serbian", target=30)
    rng = random.Random(9)
    start = state = tablic.new_match(rules, seed=9)
    ends = []  # a first move, the last of a hand, the last of the match
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        if state is start or (sum(map(len, state._f.hands)) == 1 and not state._f.deck):
            ends.append((state, move))
        state = state.apply(move)
    assert len(ends) >= 3 and ends[-1][0].apply(ends[-1][1]).is_over
    for state, move in ends:
        f = state._f
        fields = (f.hands, f.table, f.deck, state._setup, f.results, f.scores, f.piles, f.tablas)
        watched = (state, move, move.card, *fields)

        def counts(watched: tuple[object, ...] = watched) -> tuple[int, ...]:
            return tuple(map(sys.getrefcount, watched))

        before = counts()
        for _ in repeat(None, 300):
            assert advance(state, move) is not None
        assert counts() == before


@compiled
def test_states_the_c_transition_makes_play_on_to_the_python_result() -> None:
    rules = tablic.Rules.preset("serbian", players=2)
    for seed in range(3):
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        a = b = tablic.new_match(rules, seed=seed)
        while not a.is_over:
            a = a.apply(rng_a.choice(a.legal_moves()))  # the C transition where it may
            legal = b.legal_moves()
            move = rng_b.choice(legal)
            b = b._advance(move, 1 if move.captured else 0)  # the Python one, always
        assert b.is_over and a.scores == b.scores and a.hand_results == b.hand_results
        assert a.record() == b.record() and a.record().replay().scores == a.scores
        assert all(isinstance(card, Card) for card in a.captured(0))


@compiled
def test_a_listing_that_no_longer_fits_the_position_is_left_to_python() -> None:
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=5)
    state.legal_moves()
    stranger = next(c for c in tablic.CARDS if c not in state.hand(0) and c not in state.table)
    held = state.hand(0)[0]
    for stale in [TRAILS[stranger.index], Move(held, [stranger])]:
        state._legal = (stale,)  # as if a copy kept a listing of another position
        assert advance(state, stale) is None


@compiled
def test_the_c_transition_reads_only_the_position_it_is_given() -> None:
    """`_ccore.advance` plays on a position's StateCore and answers the next one: it reads and
    writes no field of MatchState (no layout, no descriptor of the compiled class); the state
    around the new position is made by state.py."""
    from kafana.games.tablic.capture import NATIVE

    assert NATIVE is not None
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=3)
    move = state.legal_moves()[0]
    assert type(state._f) is NATIVE.StateCore and not hasattr(NATIVE, "set_state")
    core = NATIVE.advance(state._f, state._legal, move, state._setup)
    assert type(core) is NATIVE.StateCore and core is not state._f
    assert NATIVE.advance(state, state._legal, move, state._setup) is None  # not a StateCore
    assert NATIVE.advance(state._f, list(state._legal or ()), move, state._setup) is None
    with pytest.raises(TypeError, match="four arguments"):
        NATIVE.advance(state._f, state._legal, move)
    made = advance(state, move)
    assert made is not None and type(made) is MatchState
    assert fields(made) == fields(state._advance(move, 1 if move.captured else 0))
    assert made._f.hands == core.hands and made.move_count == core.move_count == 1


@compiled
def test_an_int_too_big_to_tag_passes_through_its_descriptor() -> None:
    # An int past 2**62 (mypyc keeps it as a PyLong, a smaller one in the word itself) reads
    # and writes through the descriptor as any other (a count no match reaches, set by hand).
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=4)
    for count in (2**62 - 2, 2**62 - 1, 2**63):
        state._f.move_count = count
        move = state.legal_moves()[0]
        made = advance(state, move)
        assert made is not None and made.move_count == count + 1
        assert fields(made) == fields(state._advance(move, 1 if move.captured else 0))
        assert sys.getrefcount(made.move_count) >= 2


@compiled
@pytest.mark.parametrize(("players", "partnerships"), [(2, False), (3, False), (4, True)])
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_first_hand_dealt_in_c_equals_the_python_deal(
    name: str, players: int, partnerships: bool
) -> None:
    rules = rule_set(name, players, partnerships)
    jacks_first = sorted(tablic.CARDS, key=lambda card: (card.rank != 11, -card.index))
    deck = " ".join(map(str, jacks_first))  # the opening cards are jacks: under the deck
    for made in (
        *(tablic.new_match(rules, seed=seed) for seed in range(3)),
        tablic.new_match(rules, decks=[deck]),
    ):
        dealt = made._copy()
        dealt._start_hand(0)  # Python's deal over the same match
        assert fields(made) == fields(dealt)
        assert made.hand_no == 0 and len(made.table) == 4 and made._legal is None
        assert not gc.is_tracked(made._f.hands) and gc.is_tracked(dealt._f.hands)  # C's; Python's
