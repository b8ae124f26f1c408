"""A bot never sees what its view does not contain."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest
from bots_support import TABLES, quick_options
from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move, View
from kafana_bots import Bot, BotError, registry
from kafana_bots.play import play

DATA = (tuple, list, frozenset, set, dict)


def reachable(root: object) -> list[object]:
    """Every object reachable from `root` through data: containers and dataclass fields."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, (str, int, float, bool, type(None))):
            continue
        seen[id(item)] = item
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, DATA):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, Card):
            continue
        else:
            slots = getattr(type(item), "__slots__", ())
            stack.extend(getattr(item, s) for s in slots if hasattr(item, s))
            stack.extend(vars(item).values() if hasattr(item, "__dict__") else ())
    return list(seen.values())


def positions(preset: str, players: int, partnerships: bool) -> list[MatchState]:
    """Positions along a seeded greedy hand (every fourth move)."""
    rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships)
    state = tablic.new_match(rules, seed=21)
    bots = [
        registry.create("greedy", seat=s, rules=rules, rng=random.Random(s)) for s in range(players)
    ]
    out = []
    while not state.hand_results:
        if state.move_count % 4 == 0:
            out.append(state)
        seat = state.current_seat
        assert seat is not None
        state = state.apply(bots[seat].choose(state.view(seat), state.legal_moves()))
    return out


@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_a_view_reaches_no_hidden_card_and_no_state(players: int, partnerships: bool) -> None:
    for state in positions("serbian", players, partnerships):
        seat = state.current_seat
        assert seat is not None
        view = state.view(seat)
        found = reachable(view)
        assert not any(isinstance(item, MatchState) for item in found)
        cards = {item for item in found if isinstance(item, Card)}
        allowed = set(state.hand(seat)) | set(state.table)
        for side in range(state.rules.sides):
            allowed |= state.captured(side)
        assert cards <= allowed
        others = {c for s in range(players) if s != seat for c in state.hand(s)}
        assert not cards & others


def test_a_bot_that_reads_another_hand_fails() -> None:
    class Peeker(Bot):
        name = "peeker"

        def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
            other = getattr(view, "hands")[1 - self.seat]  # noqa: B009 - the point of the test
            return Move(other[0])

    rules = tablic.Rules()
    bots = [Peeker(s, rules, random.Random(s)) for s in range(2)]
    with pytest.raises(BotError, match="raised AttributeError") as raised:
        play(tablic.new_match(rules, seed=1), bots)
    assert isinstance(raised.value.__cause__, AttributeError)
    view = tablic.new_match(rules, seed=1).view(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = ()  # type: ignore[misc]


def reshuffled(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """The same position for `seat`, with every card hidden from it dealt differently."""
    n = state.rules.players
    sizes = [len(state.hand(s)) for s in range(n)]
    hidden = [c for s in range(n) if s != seat for c in state.hand(s)]
    hidden += list(_deck_cards(state))
    rng.shuffle(hidden)
    hands: list[list[Card]] = []
    at = 0
    for s in range(n):
        if s == seat:
            hands.append(list(state.hand(s)))
        else:
            hands.append(hidden[at : at + sizes[s]])
            at += sizes[s]
    return state.determinize(hands, hidden[at:])


def _deck_cards(state: MatchState) -> list[Card]:
    shown = set(state.table)
    for s in range(state.rules.players):
        shown |= set(state.hand(s))
    for side in range(state.rules.sides):
        shown |= state.captured(side)
    return [c for c in tablic.CARDS if c not in shown]


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "ismcts"])
@pytest.mark.parametrize(("players", "partnerships"), [(2, False), (4, True)])
def test_a_bot_decides_the_same_whatever_is_hidden(
    name: str, players: int, partnerships: bool
) -> None:
    """Two worlds that look the same from a seat get the same move from the same generator."""
    rng = random.Random(4)
    for state in positions("wild_jack", players, partnerships):
        seat = state.current_seat
        assert seat is not None
        other = reshuffled(state, seat, rng)
        assert other.view(seat) == state.view(seat)
        picks = []
        for world in (state, other):
            bot = registry.create(
                name, seat=seat, rules=state.rules, rng=random.Random(9), **quick_options(name)
            )
            picks.append(bot.choose(world.view(seat), world.legal_moves()))
        assert picks[0] == picks[1]
