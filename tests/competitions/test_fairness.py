"""Fair records v2: the secret, its commitment and deal seed, and every line checked.

Each attack on a record (a changed secret, seat, ending, fault, meta key, deal) is refused with
a message naming the check; records of both games (Tablić and Tač) verify.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import (
    CHOSEN,
    chosen_secret,
    commitment,
    deal_seed,
    new_secret,
)
from kafana.competitions.verify import VerificationError, verify
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.games.records import score_detail

SECRET = "5e" * 32


def tablic_record(secret: str = SECRET, decks: int = 0, stop: int | None = None) -> str:
    """A Tablić game to 11 dealt from the secret's deal seed (its first `decks` given
    explicitly, as a duplicate board does), played to the end or for `stop` moves."""
    seed = deal_seed(secret)
    state = tablic.new_match(
        tablic.Rules(target=11),
        seed=seed,
        decks=[tablic.shuffled_deck(seed, k) for k in range(decks)] or None,
    )
    while not state.is_over and (stop is None or state.move_count < stop):
        state = state.apply(state.legal_moves()[-1])
    return state.record().to_text()


def fair(
    record: str | None = None, secret: str = SECRET, **meta: str
) -> FairRecord:  # fmt: skip
    """The fair record of `record` with meta lines (seats and ending by default)."""
    lines = {"seats": "ana bo", "ending": "score", **meta}
    items = tuple((k, v) for k, v in lines.items() if v)
    return FairRecord(commitment(secret), secret, record or tablic_record(secret), items)


def refused(record: FairRecord) -> str:
    """The message a record is refused with (the test fails if it verifies)."""
    with pytest.raises(VerificationError) as caught:
        verify(record)
    return str(caught.value)


# -- the protocol ----------------------------------------------------------------------------


def test_commitment_and_deal_seed_are_the_documented_hashes() -> None:
    secret = new_secret()
    assert len(secret) == 64 and secret != new_secret()
    digest = hashlib.sha256(f"kafana-commit-v2:{secret}".encode()).hexdigest()
    assert commitment(secret) == digest
    deal = hashlib.sha256(f"kafana-deal-v2:{secret}".encode()).digest()
    assert deal_seed(secret) == int.from_bytes(deal[:8], "big")
    salt = new_secret()
    assert chosen_secret(7, "r1-g1", salt) != chosen_secret(7, "r1-g2", salt)
    assert chosen_secret(7, "r1-g1", salt) != chosen_secret(7, "r1-g1", new_secret())


def test_a_record_round_trips_and_verifies() -> None:
    record = fair(event="cup", game="r1-g1")
    again = FairRecord.from_text(record.to_text())
    assert again == record
    done = verify(again)
    assert done.finished and done.game == "tablic" and done.seats == ("ana", "bo")
    assert done.seed == deal_seed(SECRET) and done.winner in (0, 1) and not done.chosen


def test_a_version_1_record_is_refused_by_name() -> None:
    old = fair().to_text().replace("kafana-fair-record 2", "kafana-fair-record 1", 1)
    with pytest.raises(InvalidInputError, match="line 1: a version 1 fair record"):
        FairRecord.from_text(old)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("revealed 5e5e", "revealed 7", "line 5: a secret is 64 lowercase hex"),
        ("commitment ", "commitment zz", "line 2: a commitment is 64 lowercase hex"),
        ("meta seats ana bo", "seed 7", "line 3: unknown item 'seed'"),
        ("meta seats ana bo", "meta", "line 3: a meta line names its key"),
    ],
)
def test_parse_errors_name_the_line(old: str, new: str, message: str) -> None:
    text = fair().to_text().replace(old, new, 1)
    with pytest.raises(InvalidInputError, match=message):
        FairRecord.from_text(text)


# -- attacks on the deal --------------------------------------------------------------------


def test_a_secret_that_does_not_match_is_refused() -> None:
    other = "11" * 32
    # another secret revealed, the record dealt from it too: the commitment gives it away
    forged = replace(fair(tablic_record(other)), revealed=other)
    assert "does not match the commitment" in refused(forged)
    # the right secret, a record dealt from another seed
    assert "was dealt from seed" in refused(fair(tablic_record(other)))
    assert "not been revealed" in refused(replace(fair(), revealed=None))


def test_duplicate_decks_must_be_the_deal_seeds_deals() -> None:
    record = tablic_record(decks=3)
    assert verify(fair(record)).finished
    seed = deal_seed(SECRET)
    deck = " ".join(c.text for c in tablic.shuffled_deck(seed, 1))
    first, second = deck.split()[:2]
    swapped = deck.replace(first, "@").replace(second, first).replace("@", second)
    assert "deck 1 of the record is not deal 1" in refused(fair(record.replace(deck, swapped)))


def test_changed_moves_and_scores_are_refused() -> None:
    record = tablic_record()
    lines = record.splitlines()
    scores = next(i for i, line in enumerate(lines) if line.startswith("scores"))
    lines[scores] = "scores 99 0"
    assert "says scores 99 0" in refused(fair("\n".join(lines) + "\n"))
    moves = [i for i, line in enumerate(lines) if line.startswith("move ")]
    lines[moves[3]], lines[moves[4]] = lines[moves[4]], lines[moves[3]]
    assert "do not replay: record move 4" in refused(fair("\n".join(lines) + "\n"))


def test_an_organiser_chosen_deal_is_noted() -> None:
    secret = chosen_secret(42, "r1-g1", new_secret())
    done = verify(fair(tablic_record(secret), secret, deal=CHOSEN))
    assert done.chosen
    assert "the only value is 'organiser-chosen'" in refused(fair(deal="random"))


# -- attacks on the meta lines ----------------------------------------------------------------


def test_a_tampered_seat_line_is_refused() -> None:
    assert "names 3 entrant(s) but the record has 2 seats" in refused(fair(seats="ana bo cy"))
    assert "one name per seat" in refused(fair(seats="ana  bo"))
    assert "no `meta seats` line" in refused(fair(seats=""))


def test_a_tampered_ending_is_refused() -> None:
    done = verify(fair())
    detail = score_detail(done.winner, [int(f) for f in done.figures])  # the winner's first
    assert verify(fair(ending=f"score {detail}")).winner == done.winner
    legacy = f"side {done.winner} won " + "-".join(map(str, done.figures))  # side order
    assert verify(fair(ending=f"score {legacy}")).winner == done.winner  # older records
    other = f"side {1 - done.winner} won " if done.winner is not None else "side 0 won "
    assert "the moves give" in refused(fair(ending="score " + other + "99-0"))
    assert "play the game to its end" in refused(fair(ending="forfeit seat 1 forfeited (left)"))
    assert "play the game to its end" in refused(fair(ending="not_played"))
    assert "is not an ending" in refused(fair(ending="won"))
    unfinished = tablic_record(stop=7)
    assert "stop before the end" in refused(fair(unfinished))
    assert "nothing says which seat" in refused(fair(unfinished, ending="forfeit"))


def test_a_forfeit_agrees_with_the_record_and_its_faults() -> None:
    record = tablic_record(stop=7) + "# ended: forfeit by seat 1 (timeout)\n"
    # the seat to move after move 7 is the one that timed out
    seat = tablic.MatchRecord.from_text(record).replay().current_seat
    record = record.replace("by seat 1", f"by seat {seat}")
    code = f"seat{seat}:timeout->forfeit_match@7"
    ok = fair(record, ending=f"forfeit seat {seat} forfeited (timeout)", fault=code)
    assert verify(ok).winner == 1 - seat
    lying = fair(record, ending=f"forfeit seat {1 - seat} forfeited (timeout)", fault=code)
    assert "forfeited" in refused(lying)
    early = fair(record, ending="forfeit", fault=f"seat{seat}:timeout->forfeit_match@5")
    assert "does not end on that seat's turn" in refused(early)


def test_faults_must_be_well_formed_and_fit_the_record() -> None:
    record = tablic_record()
    moves = len(tablic.MatchRecord.from_text(record).moves)
    assert "is not a code" in refused(fair(fault="seat1:timeout"))
    assert "unknown reason 'sleepy'" in refused(fair(fault="seat1:sleepy->default_move@3"))
    assert "seats 0..1" in refused(fair(fault="seat5:timeout->default_move@3"))
    assert f"only {moves} moves" in refused(fair(fault=f"seat0:timeout->default_move@{moves + 9}"))
    # move 1 is seat 0's (after the deal seat 0 leads): a timeout of seat 1 there is made up
    assert "was not seat's turn" in refused(fair(fault="seat1:timeout->default_move@0"))
    assert verify(fair(fault="seat0:timeout->default_move@0")).finished
    assert "meta ending is score" in refused(fair(fault="seat0:adjudicated->forfeit_match@0"))


def test_server_notes_must_match_the_moves_and_faults() -> None:
    record = tablic_record()
    first = tablic.MatchRecord.from_text(record).moves[0]
    noted = record + f"# event 3: seat 0 ran out of time, played {first}\n"
    table = "0123456789abcdef"
    code = "seat0:timeout->default_move@0"
    assert verify(fair(noted, event="cup", table=table, fault=code)).finished
    hidden = fair(noted, event="cup", table=table)  # a timeout the faults leave out
    assert "shows 1 timeout(s) but the meta lines list 0" in refused(hidden)
    wrong = noted.replace("seat 0 ran", "seat 1 ran")
    assert "none of its moves" in refused(fair(wrong))
    assert "cannot check" in refused(fair(record + "# I won really\n"))


def test_unknown_and_repeated_meta_keys_are_refused() -> None:
    assert "unknown meta key 'prize'" in refused(fair(prize="1000"))
    twice = fair()
    twice = replace(twice, meta=(*twice.meta, ("seats", "ana bo")))
    assert "a second `meta seats` line" in refused(twice)
    assert "not a table id" in refused(fair(table="T1"))
    assert "not a match number" in refused(fair(match="first"))
    assert "not a season number" in refused(fair(league="cup", season="0"))
    assert verify(fair(league="cup", season="2", match="7")).finished


# -- Tač --------------------------------------------------------------------------------------


def tac_record(secret: str = SECRET, explicit: bool = False) -> str:
    """A two-player Tač game dealt from the secret (its deck given explicitly or not)."""
    seed = deal_seed(secret)
    rules = tac.Rules(players=2)
    deck = tac.shuffled_deck(seed, rules.decks) if explicit else None
    state = tac.new_game(rules, seed=seed, deck=deck)
    while not state.is_over:
        state = state.apply(state.legal_moves()[0])
    return state.record().to_text()


def test_tac_records_verify_and_their_attacks_are_refused() -> None:
    done = verify(fair(tac_record()))
    assert done.game == "tac" and done.finished and sorted(done.figures) == [1, 2]
    assert verify(fair(tac_record(explicit=True))).deals == 1
    assert f"seat {done.winner} went out first" in refused(fair(tac_record(), ending="score x"))
    record = tac_record()
    places = " ".join(map(str, done.figures))
    swapped = " ".join(map(str, reversed(done.figures)))
    assert "says places" in refused(fair(record.replace(f"places {places}", f"places {swapped}")))
    other = tac_record("22" * 32, explicit=True).splitlines()
    deck = next(line for line in other if line.startswith("deck "))
    forged = record.replace(f"seed {deal_seed(SECRET)}\n", f"seed {deal_seed(SECRET)}\n{deck}\n")
    assert "deck is not the deal of seed" in refused(fair(forged))
