"""An organiser-chosen event seed cannot be recovered from what the server publishes.

The argument. A chosen-seed game's secret is SHA-256("kafana-chosen-v3:<seed>:<salt>:<game>")
where `salt` is 256 bits from the server's CSPRNG (`secrets.token_hex(32)`), drawn when the
event starts. Until the event is over the only published functions of the salt are the
commitments: the salt's own (`SHA-256("kafana-commit-v2:" + salt)`) and each game's (a hash of
a hash of the salt). Finding a seed from a commitment therefore means finding the salt too: a
search over 2^64 seeds times 2^256 salts, not the 2^32 (or 2^64) seeds of the earlier scheme,
where a secret was SHA-256 of the seed and the game id alone and seed 4242 fell in 0.0 s.

The tests check the structure the argument rests on (each commitment changes with the salt,
and only a known salt reproduces them; the salt is fresh per event, committed at the start and
revealed at the end, on a real server), and run the attack that used to work: every seed of a
2^16 window around the chosen one, under the old derivation and under the new one with every
value an attacker could use for the salt, finds nothing.
"""

from __future__ import annotations

import hashlib

from kafana.competitions.fairness import chosen_secret, commitment
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, until

SEED = 4242
FOUR = ("ana", "bob", "cid", "dan")
WINDOW = range(2**16)  # 2^16 candidates, the true seed (and every small one) among them


def brute_force(
    published: str, game_id: str, guesses: list[str], window: range = WINDOW
) -> list[int]:
    """Every seed of `window` whose secret, as an attacker can compute it from what is public,
    has the `published` commitment: the old derivation (seed and game id), and the new one
    with each of `guesses` standing in for the unknown salt."""
    found = []
    for seed in window:
        old = hashlib.sha256(f"kafana-chosen-v2:{seed}:{game_id}".encode()).hexdigest()
        candidates = [old, *(chosen_secret(seed, game_id, salt) for salt in guesses)]
        if any(commitment(secret) == published for secret in candidates):
            found.append(seed)
    return found


def test_a_chosen_seed_is_not_found_from_its_published_commitments() -> None:
    t = Tournament(EventConfig("cup", Kind.ROUND_ROBIN, FOUR, chosen_seed=SEED))
    first = t.next_round()[0]
    # what is public: game ids, seats, commitments, the salt's commitment; guess the salt as
    # empty, zero, or the published salt commitment itself
    guesses = ["0" * 64, t.salt_commitment]
    assert brute_force(first.commitment, first.game_id, guesses) == []
    # the attack is sound: with the salt (revealed at the end) it finds the seed at once
    assert brute_force(first.commitment, first.game_id, [t.salt], range(4000, 4500)) == [SEED]


def test_every_commitment_depends_on_the_server_salt() -> None:
    config = EventConfig("cup", Kind.SWISS, FOUR, chosen_seed=SEED)
    one, two = Tournament(config), Tournament(config)
    assert len(one.salt) == 64 and one.salt != two.salt  # fresh server entropy per event
    assert one.salt_commitment == commitment(one.salt) and one.salt not in one.salt_commitment
    replay = Tournament(config, salt=one.salt)  # seed and revealed salt replay the event
    games, again, other = one.next_round(), replay.next_round(), two.next_round()
    assert [g.commitment for g in games] == [g.commitment for g in again]
    assert not {g.commitment for g in games} & {g.commitment for g in other}
    for g in games:
        assert one.secret_of(g.game_id) == chosen_secret(SEED, g.game_id, one.salt)
    unchosen = Tournament(EventConfig("x", Kind.SWISS, FOUR))
    assert unchosen.salt == unchosen.salt_commitment == ""


async def test_a_hosted_event_commits_to_its_salt_and_reveals_it_at_the_end(
    hosted: Served,
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("chosen", "round_robin", target=11, seed=SEED, chosen_seed=True)
        for name in ("ana", "bob"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        started = await until(lambda: events.get(made.event_id), lambda i: bool(i.rounds))
        finished = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
        )
    assert started.chosen_seed and len(started.salt_commitment) == 64
    assert bool(started.salt) == bool(started.report)  # not before the end
    game = started.rounds[0].games[0]
    guesses = ["0" * 64, started.salt_commitment]
    assert brute_force(game.commitment, game.game_id, guesses, range(2**13)) == []
    salt = finished.salt
    assert finished.salt_commitment == started.salt_commitment == commitment(salt)
    (done,) = (g for r in finished.rounds for g in r.games)
    assert done.secret == chosen_secret(SEED, done.game_id, salt)
    assert done.commitment == game.commitment == commitment(done.secret)
    assert f"server salt {salt}" in finished.report
