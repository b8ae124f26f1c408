"""Fair deals in hosted events: a chosen seed only by flag, duplicate boards sealed until done."""

from __future__ import annotations

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import CHOSEN, check_commitment
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient, FailedPreconditionError, InvalidArgumentError
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, games, until


async def test_a_chosen_seed_needs_the_flag_and_its_records_say_so(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        with pytest.raises(InvalidArgumentError, match="set chosen_seed"):
            await events.create("guessable", "round_robin", target=11, seed=1)
        assert await events.list() == []  # nothing was created
        made = await events.create("chosen", "round_robin", target=11, seed=1, chosen_seed=True)
        assert made.info.chosen_seed
        for name in ("ana", "bob"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    (game,) = games(info)
    assert len(game.commitment) == 64 and check_commitment(game.secret, game.commitment)
    fair = FairRecord.from_text(game.record)
    assert fair.revealed == game.secret and fair.get("deal") == CHOSEN


async def test_a_duplicate_board_stays_sealed_while_any_game_of_it_plays(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("sealed", "duplicate", boards=1, hands_per_board=2, target=11)
        event_id = made.event_id
        await events.enter(event_id, "ana", bot="greedy")  # round 1: ana - dan, bob - cid
        idle = [await events.enter(event_id, n) for n in ("bob", "cid")]  # they never play
        await events.enter(event_id, "dan", bot="greedy")
        assert all(e.token for e in idle)
        await events.start(event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(event_id, records=True)

        def bots_done(info: pb.EventInfo) -> bool:
            played = [g for g in games(info) if "ana" in g.seats]
            return len(played) == 1 and all(g.status == pb.GAME_STATUS_DONE for g in played)

        info = await until(get, bots_done)
        done = [g for g in games(info) if g.status == pb.GAME_STATUS_DONE]
        assert any(
            g.status == pb.GAME_STATUS_PLAYING for g in games(info)
        )  # bob - cid: the same board
        for g in done:  # the attack: the decks of a board still being dealt
            assert not g.secret and not g.record
            with pytest.raises(FailedPreconditionError):
                await client.record(g.table_id)
            with pytest.raises(FailedPreconditionError):  # nor a spectator's view of it
                await client.get_state(g.table_id)
        assert not info.records_jsonl and not info.exports

        await events.end(event_id, made.organiser_token, note="seen enough")
        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
        for g in done:  # every game of the board is over: revealed everywhere
            got = next(x for x in games(info) if x.game_id == g.game_id)
            assert got.secret and FairRecord.from_text(got.record).revealed == got.secret
            assert (await client.record(g.table_id)).record
