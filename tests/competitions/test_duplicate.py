"""Duplicate events: every board is played by every pairing in both seatings, same decks."""

from __future__ import annotations

from client.kafana_client_live import LiveServer
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment, deal_seed
from kafana.competitions.local_runner import registry_bots, run_local
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify import verify
from kafana.games.tablic import MatchRecord, shuffled_deck
from kafana_client import AsyncClient

BOTS = {"ana": "greedy", "bob": "heuristic", "cid": "random"}


def _decks(result_record: str) -> tuple[tuple[str, ...], ...]:
    record = MatchRecord.from_text(FairRecord.from_text(result_record).record)
    return tuple(tuple(c.text for c in deck) for deck in record.decks)


async def test_duplicate_games_on_a_server_use_identical_decks(server: LiveServer) -> None:
    config = EventConfig("dup", Kind.DUPLICATE, ("ana", "bob"), boards=2, chosen_seed=4, target=31)
    event = Tournament(config)
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, registry_bots(BOTS), parallel=4)
    (games,) = event.rounds
    assert len(games) == 4  # 2 boards x 2 seatings
    boards: dict[int, list[tuple[str, ...]]] = {}
    for spec in games:
        result = event.results[spec.game_id]
        assert result.table_id and verify(FairRecord.from_text(result.record)).finished
        decks = _decks(result.record)
        secret = event.secret_of(spec.game_id)
        assert secret == event.secret_of(f"board-{spec.board}")  # one secret per board
        seed = deal_seed(secret)
        assert decks == tuple(
            tuple(c.text for c in shuffled_deck(seed, k)) for k in range(config.hands_per_board)
        )
        assert spec.commitment == commitment(secret)
        boards.setdefault(spec.board or 0, []).append(spec.seats)
        boards.setdefault(-(spec.board or 0), []).append(decks)  # type: ignore[arg-type]
    for board in (1, 2):
        first, second = boards[board]
        assert second == first[::-1]  # the seats swapped
        deck_a, deck_b = boards[-board]
        assert deck_a == deck_b  # the same cards, as the server dealt them
    assert boards[-1][0] != boards[-2][0]  # boards differ from each other
    first_board = event.placings()[:2]
    assert {p.entrant for p in first_board} == {"ana", "bob"}
    assert sum(p.points for p in first_board) == 1


def test_every_pairing_plays_the_same_boards_in_process() -> None:
    config = EventConfig("dup3", Kind.DUPLICATE, tuple(BOTS), boards=1, chosen_seed=8, target=31)
    event = run_local(Tournament(config), registry_bots(BOTS))
    assert event.finished and len(event.rounds) == 3  # round robin of 3: one bye a round
    decks = {_decks(r.record) for r in event.results.values()}
    assert len(decks) == 1  # one board, the same decks in every game of every pairing
    seatings = [spec.seats for games in event.rounds for spec in games]
    assert len(seatings) == 6 and len(set(seatings)) == 6  # each pairing in both seatings
    # board placings add up: each pairing decided once, points sum to one per board
    placings = event.placings()
    assert len(placings) == 6  # 3 pairings, one placing per entrant
    assert sum(row.points for row in event.standings()) == 3
    assert all(row.byes == 1 for row in event.standings())  # counted, not scored
    for p in placings:
        (opponent,) = p.opponents
        one, two = (
            event.results[s.game_id]
            for games in event.rounds
            for s in games
            if set(s.seats) == {p.entrant, opponent}
        )
        first = 0 if event.game(one.game_id).seats[0] == p.entrant else 1
        mine = one.scores[first] + two.scores[1 - first]
        theirs = one.scores[1 - first] + two.scores[first]
        assert p.diff == mine - theirs


def test_fresh_secrets_still_give_every_pairing_the_same_boards() -> None:
    config = EventConfig("dup4", Kind.DUPLICATE, ("a", "b", "c", "d"), boards=2)
    event = Tournament(config)
    decks: dict[int, set[object]] = {}
    while len(event.rounds) < event.total_rounds:
        for spec in event.next_round():
            decks.setdefault(spec.board or 0, set()).add((spec.decks, spec.commitment))
            event.adjudicate(spec.game_id, winner=None)
    assert len(event.rounds) == 3 and sorted(decks) == [1, 2]
    assert all(len(found) == 1 for found in decks.values())  # one deal set per board
