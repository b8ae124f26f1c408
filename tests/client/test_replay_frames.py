"""`kafana replay` draws a frame when it is shown, not every frame first: a record of 37,000
moves took 12 s and 280 MB before the first prompt (the longest legitimate records have about
twenty times as many moves). Each frame is still the position after its moves."""

from __future__ import annotations

from typing import Any

import pytest
from kafana.cli.demo import play_random_match
from kafana.games import tablic
from kafana_client.cli import replay
from kafana_client.cli.navigate import Frames
from kafana_client.cli.words import plural
from rich.console import Console


@pytest.fixture(scope="module")
def long_match() -> tablic.MatchState:
    """A four-player match to 301: ~2,200 moves, many hands."""
    return play_random_match(tablic.Rules.preset("serbian", players=4, target=301), 5)


def test_only_the_frames_shown_are_drawn(
    long_match: tablic.MatchState, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[str] = []
    real = replay.position

    def counted(state: tablic.MatchState, title: str, names: Any = ()) -> Any:
        drawn.append(title)
        return real(state, title, names)

    monkeypatch.setattr(replay, "position", counted)
    answers = iter(["e", "b", "h 3", "q"])
    console = Console(record=True, width=120)
    record = long_match.record()
    last = replay.step_through(record, console, lambda _prompt: next(answers))
    total = len(record.moves)
    third = next(n for n, hand in enumerate(replay.frames(record, ["a"] * 4)[0].hands) if hand == 3)
    assert last == third
    assert drawn == [
        f"Start · {plural(total, 'move')}",
        f"After move {total}",
        f"After move {total - 1}",
        f"After move {third}",
    ]
    assert "Final score" in console.export_text()


def seen(state: tablic.MatchState) -> tuple[Any, ...]:
    """Everything a frame shows of a position."""
    hands = tuple(tuple(state.hand(s)) for s in range(state.rules.players))
    tablas = tuple(state.tablas(side) for side in range(state.rules.sides))
    return (
        tuple(state.table), hands, state.scores, tablas, state.current_seat, state.hand_no,
        state.deck_remaining, len(state.hand_results),
    )  # fmt: skip


def test_every_frame_is_the_position_after_its_moves(long_match: tablic.MatchState) -> None:
    record = long_match.record()
    shown, _ending = replay.frames(record, ["a", "b", "c", "d"])
    assert len(shown) == len(record.moves) + 1
    every = Frames.EVERY
    state = tablic.new_match(record.rules, seed=record.seed)
    wanted = {0, 1, every - 1, every, every + 1, 2 * every, len(record.moves)}
    for number in range(len(record.moves) + 1):
        if number:
            state = state.apply(record.moves[number - 1])
        assert shown.hands[number] == state.hand_no + 1
        if number in wanted:
            assert seen(shown.state(number)) == seen(state), number
            assert shown[number].number == number and shown[number].hand == state.hand_no + 1
    assert seen(shown.last_state) == seen(state)
    with pytest.raises(IndexError):
        shown[len(shown)]
