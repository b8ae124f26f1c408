"""The Tač bots: only legal moves, exact replays, and the loader's purpose."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from kafana.games import tac
from kafana.games.tac import Move, Rules, View
from kafana_bots.play import play as play_bots
from kafana_bots.tac_bots import (
    TAC_BOTS,
    LoaderTacBot,
    TacBot,
    create_tac_bot,
    in_order,
)

from .helpers import CONFIGS, play, position


class Checked(TacBot):
    """Wraps a bot and checks every answer against the moves it was offered."""

    def __init__(self, inner: TacBot) -> None:
        super().__init__(inner.seat, inner.rules, inner.rng)
        self.inner = inner

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        assert view.seat == self.seat and view.current_seat == self.seat
        move = self.inner.choose(view, legal_moves)
        assert move in legal_moves, f"{self.inner!r} chose {move}, not offered"
        return move

    def wants_call(self, view: View) -> bool:
        assert view.seat == self.seat and view.pending_offender not in (None, self.seat)
        return self.inner.wants_call(view)


def bots_for(rules: Rules, names: Sequence[str], seed: int) -> list[TacBot]:
    return [
        Checked(create_tac_bot(name, seat, rules, random.Random(seed * 100 + seat)))
        for seat, name in enumerate(names)
    ]


def play_game(rules: Rules, bots: Sequence[TacBot], seed: int) -> tac.GameState:
    """A whole game from `seed` on the one match runner, capped as a runaway guard."""
    return play_bots(tac.new_game(rules, seed=seed), bots, max_moves=100_000)


@pytest.mark.parametrize("calls", [False, True], ids=["strict", "tac_calls"])
@pytest.mark.parametrize(("players", "decks"), CONFIGS)
def test_every_bot_plays_legal_moves_to_the_end(players: int, decks: int, calls: bool) -> None:
    rules = Rules(players=players, decks=decks, tac_calls=calls, play_on=True)
    names = [list(TAC_BOTS)[s % 2] for s in range(players)]
    state = play_game(rules, bots_for(rules, names, seed=players), seed=players + decks)
    assert state.is_over and state.move_count < 100_000


def test_a_bot_game_replays_exactly_from_its_seeds() -> None:
    rules = Rules(players=4, tac_calls=True)
    names = ["random", "loader", "random", "loader"]
    one = play_game(rules, bots_for(rules, names, seed=3), seed=9)
    two = play_game(rules, bots_for(rules, names, seed=3), seed=9)
    assert one.record().to_text() == two.record().to_text()
    assert tac.GameRecord.from_text(one.record().to_text()).replay().places() == one.places()


def test_the_loader_never_breaks_the_order_and_calls_every_offence() -> None:
    rules = Rules(players=3, tac_calls=True)
    state = play_game(rules, bots_for(rules, ["loader", "random", "random"], seed=1), seed=4)
    steps = state.steps()
    assert not any(s.offence for s in steps if s.seat == 0)
    assert any(s.move.kind == "call" and s.seat == 0 for s in steps)


def test_the_loader_loads_the_pile_of_the_player_holding_fewest_cards() -> None:
    rules = Rules(players=3)
    state = position(rules, ["3H KD", "QS JS 9S", "QC"], ["", "2D", "2S"], central="AC 2C")
    state = play(state, "flip")
    bot = LoaderTacBot(0, rules, random.Random(0))
    assert str(bot.choose(state.view(0), state.legal_moves())) == "play X->P2"
    bot = LoaderTacBot(0, rules, random.Random(0))
    only_centre = play(position(rules, ["3H", "QS", "QC"], central="AC 2C"), "flip")
    assert str(bot.choose(only_centre.view(0), only_centre.legal_moves())) == "play X->C"


def test_in_order_drops_the_out_of_order_moves() -> None:
    offered = [Move.parse(t) for t in ("play D->C", "play D->P1", "flip")]
    assert [str(m) for m in in_order(offered)] == ["play D->C", "play D->P1"]
    offered = [Move.parse(t) for t in ("play X->P2", "play X->D")]
    assert [str(m) for m in in_order(offered)] == ["play X->P2"]


def test_in_order_with_centre_first_keeps_a_card_that_fits_the_centre_for_it() -> None:
    offered = [Move.parse(t) for t in ("play X->C", "play X->P1", "play X->P2", "play X->D")]
    assert [str(m) for m in in_order(offered, centre_first=True)] == ["play X->C"]
    assert [str(m) for m in in_order(offered)] == ["play X->C", "play X->P1", "play X->P2"]
    offered = [Move.parse(t) for t in ("play D->P1", "flip")]
    assert [str(m) for m in in_order(offered, centre_first=True)] == ["play D->P1"]


def test_the_loader_commits_no_offence_at_a_centre_first_table_with_calls() -> None:
    rules = Rules(players=3, centre_first=True, tac_calls=True)
    state = play_game(rules, bots_for(rules, ["loader"] * 3, seed=4), seed=4)
    assert state.is_over and not any(step.offence for step in state.steps())


def test_the_loader_beats_random_players_at_a_tac_calls_table() -> None:
    rules = Rules(players=2, tac_calls=True)
    wins = 0
    for game in range(20):
        names = ["loader", "random"] if game % 2 == 0 else ["random", "loader"]
        state = play_game(rules, bots_for(rules, names, seed=game), seed=game)
        places = state.places()
        assert places is not None
        wins += places[names.index("loader")] == 1
    assert wins >= 16


def test_an_unknown_bot_name_is_refused() -> None:
    with pytest.raises(tac.InvalidInputError, match="unknown Tač bot 'ismcts'"):
        create_tac_bot("ismcts", 0, Rules(), random.Random(0))
