"""Random seeded matches of every preset and table shape, checked at every step.

Hand scores are recomputed independently from the moves and the tables of RULES.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from kafana.games import tablic
from kafana.games.tablic import Card, MatchRecord, MatchState, Move, Rules

from .helpers import PRESET_POINTS, SERBIAN_POINTS, WILD_JACK_POINTS, rules_variants

VARIANTS = rules_variants()
SWITCHED = [
    ("serbian+must_capture", Rules.preset("serbian", must_capture=True)),
    ("serbian+rank_priority-3", Rules.preset("serbian", players=3, rank_priority=True)),
    (
        "serbian+tie_to_last-2v2",
        Rules.preset("serbian", players=4, partnerships=True, most_cards_tie_to_last=True),
    ),
    ("tablanette+wild_jack+must", Rules.preset("tablanette", wild_jack=True, must_capture=True)),
]
MAX_MOVES = 50_000


def points_table(rules: Rules) -> dict[Card, int]:
    """The card points of these rules, from the presets' tables in RULES.md."""
    for table in (SERBIAN_POINTS, WILD_JACK_POINTS):
        if (
            rules.card_points
            == Rules.preset("serbian" if table is SERBIAN_POINTS else "wild_jack").card_points
        ):
            return table
    raise AssertionError("unexpected card points")


@dataclass
class Tracker:
    """Independent bookkeeping of one hand, from the moves alone."""

    rules: Rules
    last_capturer: int | None = None
    tablas: list[int] = field(default_factory=list)

    def reset(self) -> None:
        self.last_capturer = None
        self.tablas = [0] * self.rules.sides


def check_cards(state: MatchState) -> None:
    """All 52 cards accounted for, each exactly once."""
    rules = state.rules
    parts: list[Card] = list(state.table)
    for seat in range(rules.players):
        parts += state.hand(seat)
    for side in range(rules.sides):
        parts += state.captured(side)
    assert len(parts) == len(set(parts))
    assert len(parts) + state.deck_remaining == 52


def check_views(state: MatchState) -> None:
    """A seat sees its own hand, the public cards and other hands' sizes; nothing else."""
    rules = state.rules
    public_cards = set(state.table).union(*(state.captured(s) for s in range(rules.sides)))
    for seat in range(rules.players):
        view = state.view(seat)
        assert view.seat == seat and view.hand == state.hand(seat)
        assert view.hand_sizes == tuple(len(state.hand(s)) for s in range(rules.players))
        assert view.deck_remaining == state.deck_remaining
        assert view.current_seat == state.current_seat and view.scores == state.scores
        data = view.to_dict()
        shown = (
            set(data["hand"]) | set(data["table"]) | {t for side in data["captured"] for t in side}
        )
        allowed = {card.text for card in public_cards | set(state.hand(seat))}
        assert shown <= allowed
        text = repr(data)
        for other in range(rules.players):
            if other != seat:
                assert not any(f"'{card.text}'" in text for card in state.hand(other))
    spectator = state.public_view()
    assert spectator.hand is None and spectator.seat is None
    assert spectator.to_dict()["hand"] is None


def expected_result(
    before: MatchState, seat: int, move: Move, tracker: Tracker
) -> tuple[tuple[int, ...], ...]:
    """(cards, card_points, most_cards, tablas, points) of the hand `move` ends."""
    rules = before.rules
    points = points_table(rules)
    side = rules.side_of(seat)
    piles = [set(before.captured(s)) for s in range(rules.sides)]
    table = set(before.table)
    tablas = list(tracker.tablas)
    last = tracker.last_capturer
    if move.captured:
        piles[side] |= {move.card, *move.captured}
        table -= move.captured
        last = side
        if not table and rules.last_card_tabla:
            tablas[side] += 1
    else:
        table.add(move.card)
    if last is not None:
        piles[last] |= table
    counts = tuple(len(p) for p in piles)
    card_points = tuple(sum(points[c] for c in p) for p in piles)
    leaders = [s for s in range(rules.sides) if counts[s] == max(counts)]
    most = [0] * rules.sides
    if len(leaders) == 1:
        most[leaders[0]] = rules.most_cards_points
    elif rules.most_cards_tie_to_last and last in leaders:
        most[last] = rules.most_cards_points
    total = tuple(
        card_points[s] + most[s] + tablas[s] * rules.tabla_points for s in range(rules.sides)
    )
    return counts, card_points, tuple(most), tuple(tablas), total


def play_checked(rules: Rules, seed: int, views_every: int = 7) -> MatchState:
    """Play a random match, checking every invariant after every move."""
    rng = random.Random(seed)
    state = tablic.new_match(rules, seed=seed)
    tracker = Tracker(rules)
    tracker.reset()
    check_cards(state)
    for step in range(MAX_MOVES):
        if state.is_over:
            break
        seat = state.current_seat
        assert seat is not None
        moves = state.legal_moves()
        assert len(set(moves)) == len(moves)
        move = rng.choice(moves)
        assert state.is_legal(move)
        nxt = state.apply(move)
        assert nxt.move_count == state.move_count + 1
        side = rules.side_of(seat)
        if nxt.hand_no == state.hand_no and not nxt.is_over:
            # Still the same hand: the move's effect is visible directly.
            if move.captured:
                assert nxt.captured(side) == state.captured(side) | {move.card} | move.captured
                tracker.last_capturer = side
                if not nxt.table:
                    tracker.tablas[side] += 1
            else:
                assert set(nxt.table) == set(state.table) | {move.card}
            assert [nxt.tablas(s) for s in range(rules.sides)] == tracker.tablas
        else:
            counts, card_points, most, tablas, total = expected_result(state, seat, move, tracker)
            result = nxt.hand_results[-1]
            assert result.hand == state.hand_no
            assert result.cards == counts
            assert result.card_points == card_points
            assert result.most_cards == most
            assert result.tablas == tablas
            assert result.points == total
            assert nxt.scores == tuple(a + b for a, b in zip(state.scores, total, strict=True))
            if tracker.last_capturer is not None or move.captured:
                assert sum(counts) == 52
                full = sum(points_table(rules).values())
                most_total = rules.most_cards_points if sum(most) else 0
                assert sum(total) == full + most_total + sum(tablas) * rules.tabla_points
            top = max(nxt.scores)
            done = top >= rules.target and nxt.scores.count(top) == 1
            assert nxt.is_over == done
            if not done:
                assert nxt.hand_no == state.hand_no + 1
                assert nxt.dealer == state.hand_no % rules.players
            tracker.reset()
        state = nxt
        check_cards(state)
        if step % views_every == 0:
            check_views(state)
    assert state.is_over, "the match did not end"
    assert state.legal_moves() == []
    assert state.winner == state.scores.index(max(state.scores))
    return state


@pytest.mark.parametrize(("name", "rules"), VARIANTS, ids=[name for name, _ in VARIANTS])
def test_random_match(name: str, rules: Rules) -> None:
    seed = sum(map(ord, name))
    state = play_checked(rules, seed)
    assert len(state.scores) == rules.sides
    assert max(state.scores) >= rules.target


@pytest.mark.parametrize(("name", "rules"), SWITCHED, ids=[name for name, _ in SWITCHED])
def test_random_match_with_switches(name: str, rules: Rules) -> None:
    state = play_checked(rules.with_switches(target=40), seed=len(name))
    assert max(state.scores) >= 40


def test_serbian_hands_give_25_plus_tablas_or_22_when_tied() -> None:
    seen_tie = seen_bonus = 0
    for players, partnerships in ((2, False), (3, False), (4, False), (4, True)):
        rules = Rules.preset("serbian", players=players, partnerships=partnerships)
        for seed in range(6):
            rng = random.Random(seed)
            state = tablic.new_match(rules, seed=seed)
            while not state.is_over:
                state = state.apply(rng.choice(state.legal_moves()))
            for result in state.hand_results:
                if result.last_capturer is None:
                    continue
                tied = result.cards.count(max(result.cards)) > 1
                assert sum(result.points) == (22 if tied else 25) + sum(result.tablas)
                seen_tie += tied
                seen_bonus += not tied
    assert seen_tie and seen_bonus


def test_wild_jack_hands_give_12_plus_tablas_or_9_when_tied() -> None:
    for preset in ("wild_jack", "tabinet"):
        rules = Rules.preset(preset)
        assert sum(PRESET_POINTS[preset].values()) == 9
        for seed in range(4):
            rng = random.Random(seed)
            state = tablic.new_match(rules, seed=seed)
            while not state.is_over:
                state = state.apply(rng.choice(state.legal_moves()))
            for result in state.hand_results:
                if result.last_capturer is None:
                    continue
                tied = result.cards.count(max(result.cards)) > 1
                assert sum(result.points) == (9 if tied else 12) + sum(result.tablas)


def random_match(rules: Rules, seed: int) -> MatchState:
    rng = random.Random(seed)
    state = tablic.new_match(rules, seed=seed)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("name", "rules"), VARIANTS[::3], ids=[name for name, _ in VARIANTS[::3]])
def test_same_seed_same_match(name: str, rules: Rules) -> None:
    first, second = random_match(rules, 12), random_match(rules, 12)
    assert first.moves() == second.moves()
    assert first.scores == second.scores
    assert first.hand_results == second.hand_results
    assert first.record().to_text() == second.record().to_text()
    other = random_match(rules, 13)
    assert other.moves() != first.moves()


@pytest.mark.parametrize(("name", "rules"), VARIANTS, ids=[name for name, _ in VARIANTS])
def test_record_replays_to_the_same_match(name: str, rules: Rules) -> None:
    state = random_match(rules, 3)
    text = state.record().to_text()
    record = MatchRecord.from_text(text)
    assert record.rules == rules and record.seed == 3
    assert list(record.moves) == [move for _, move in state.moves()]
    replayed = record.replay()
    assert replayed.is_over
    assert replayed.scores == state.scores
    assert replayed.moves() == state.moves()
    assert replayed.hand_results == state.hand_results
    assert replayed.record().to_text() == text


def test_record_of_an_unfinished_match_with_explicit_decks() -> None:
    rules = Rules.preset("tablanette", players=3)
    decks = [tablic.shuffled_deck(40, 0), tablic.shuffled_deck(41, 0)]
    rng = random.Random(1)
    state = tablic.new_match(rules, decks=decks)
    for _ in range(70):
        state = state.apply(rng.choice(state.legal_moves()))
    replayed = MatchRecord.from_text(state.record().to_text()).replay()
    assert replayed.moves() == state.moves()
    assert replayed.table == state.table
    assert [replayed.hand(s) for s in range(3)] == [state.hand(s) for s in range(3)]
    assert replayed.scores == state.scores and not replayed.is_over


def test_a_record_with_wrong_scores_is_refused() -> None:
    state = random_match(Rules.preset("serbian", target=30), 2)
    text = state.record().to_text()
    wrong = " ".join(str(s + 1) for s in state.scores)
    lines = [
        line if not line.startswith("scores ") else "scores " + wrong for line in text.splitlines()
    ]
    with pytest.raises(tablic.KafanaError, match="scores"):
        MatchRecord.from_text("\n".join(lines)).replay()
