"""The move path's per-text and per-table shortcuts give what the long way gives."""

from __future__ import annotations

import hashlib
import random

import pytest
from kafana.errors import KafanaError
from kafana.games import tablic
from kafana.service.games import tablic as tablic_game
from kafana.service.games.base import TableGame
from kafana.store import framing, redis_store
from kafana.store.resp import bulks


def _reference_bulks(args: list[bytes]) -> bytes:
    return b"".join(b"$%d\r\n%b\r\n" % (len(arg), arg) for arg in args)


def test_a_parsed_move_and_its_canonical_text_are_the_long_ways() -> None:
    game = tablic_game.TablicGame()
    rules = tablic.Rules.preset("serbian", players=2)
    rng = random.Random(3)
    state = tablic.new_match(rules, seed=11)
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        for text in (str(move), " " + str(move).lower() + " "):
            try:
                expected = tablic.Move.parse(text)
            except KafanaError:
                with pytest.raises(KafanaError):
                    game.parse_canonical(text, 0)
                continue
            parsed, canonical = game.parse_canonical(text, 0)
            assert parsed == expected == game.parse_move(text, 0)
            assert canonical == str(expected)
            assert TableGame.parse_canonical(game, text, 0) == (expected, str(expected))
        state = state.apply(move)


def test_a_text_that_is_no_move_is_refused_every_time_and_not_kept() -> None:
    game = tablic_game.TablicGame()
    before = tablic_game._parsed.cache_info().currsize
    for _ in range(2):
        with pytest.raises(KafanaError):
            game.parse_canonical("no move", 0)
    assert tablic_game._parsed.cache_info().currsize == before


def test_the_log_digest_is_sha1_of_the_digest_and_the_frame() -> None:
    digest = framing.GENESIS
    for record in (b"", b"\x01\x02", bytes(range(200))):
        framed = framing.frame(record)
        expected = hashlib.sha1(digest.encode() + framed).hexdigest()[:16]
        digest = framing.chain(digest, framed)
        assert digest == expected


@pytest.mark.parametrize(
    "args",
    [[], [b""], [b"GET", b"k"], [b"x" * 1023, b"", b"y" * 1024], [b"z" * 5000, b"\r\n"]],
)
def test_bulks_packs_each_argument_as_a_bulk_string(args: list[bytes]) -> None:
    assert bulks(args) == _reference_bulks(args)


def test_the_told_head_is_the_command_packed_in_full() -> None:
    sha = b"a" * 40
    for riders in (1, 2, 3):
        count = 3 + redis_store.APPEND_KEYS + redis_store.APPEND_ARGS
        count += riders * (redis_store.RIDER_KEYS + redis_store.RIDER_ARGS)
        keys = redis_store.APPEND_KEYS + riders * redis_store.RIDER_KEYS
        expected = b"*%d\r\n" % count + _reference_bulks([b"EVALSHA", sha, b"%d" % keys])
        assert redis_store._told_head(sha, riders) == expected
