"""Events carry what changed (seat to move, deals, hand scores, Tač steps, the result), never a
hidden card; reasons and results are enums; the clock shows as remaining milliseconds."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from google.protobuf.message import Message
from kafana.games import tablic
from kafana.service import convert
from kafana.service.games import tablic as tablic_game
from kafana.service.session import Session
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, state_pb2
from wire_support import events_as, play_to_end, seated

S = state_pb2
MOVE = events_pb2.EVENT_KIND_MOVE
SEED = 31


def cards_named(message: Message) -> set[str]:
    """Every card text in any string of an event (moves, deals, steps...)."""
    found: set[str] = set()
    stack: list[object] = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for word in item.replace(":", " ").replace("+", " ").split():
                try:
                    found.add(tablic.Card.parse(word).text)
                except tablic.InvalidInputError:
                    continue
        elif isinstance(item, Message):
            for field, value in item.ListFields():
                stack.extend(value if field.is_repeated else [value])
    return found


def hidden(state: tablic.MatchState, viewer: int | None) -> set[str]:
    """What `viewer` must not see: other hands and the undealt deck."""
    out = {c.text for s in range(state.seats) if s != viewer for c in state.hand(s)}
    deck = tablic.shuffled_deck(SEED, state.hand_no)
    return out | {c.text for c in deck[len(deck) - state.deck_remaining :]}


@pytest.mark.parametrize("viewer", [None, 0, 1])
async def test_tablic_events_carry_what_changed_and_no_hidden_card(
    viewer: int | None, redis_store: RedisStore
) -> None:
    tables, table_id, tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=SEED)
    final = await play_to_end(tables, table_id, tokens, random.Random(2))
    events = events_as(final, viewer)
    local = tablic.new_match(tablic.Rules(), seed=SEED)
    deals = scores = 0
    for event in events:
        assert not event.HasField("state")
        before = local
        if event.kind == MOVE:
            assert event.reason == S.EVENT_REASON_PLAYED
            local = local.apply(event.move.text)
            assert event.move.tablic.card == event.move.text.split(":")[0]
        else:
            assert event.reason == S.EVENT_REASON_UNSPECIFIED  # seats taken
        played = cards_named(event.move)  # public once played (a new hand may reshuffle them)
        assert not (cards_named(event) - played) & hidden(local, viewer), event
        dealt = event.match_started or (
            event.kind == MOVE
            and not local.is_over
            and (local.hand_no, local.deck_remaining) != (before.hand_no, before.deck_remaining)
        )
        assert event.HasField("deal") == dealt
        if dealt:
            deals += 1
            own = [] if viewer is None else [c.text for c in sorted(local.hand(viewer))]
            assert list(event.deal.hand) == own
            assert event.deal.hand_no == local.hand_no
            assert list(event.deal.hand_sizes) == [len(local.hand(s)) for s in range(2)]
            assert event.deal.deck_remaining == local.deck_remaining
            new_hand = event.match_started or local.hand_no != before.hand_no
            assert list(event.deal.table) == ([c.text for c in local.table] if new_hand else [])
        finished = len(local.hand_results) > len(before.hand_results)
        assert event.HasField("hand_score") == finished
        if finished:
            scores += 1
            assert list(event.hand_score.points) == list(local.hand_results[-1].points)
        if event.match_started or (event.kind == MOVE and not local.is_over):
            assert event.current_seat == local.current_seat
        else:
            assert not event.HasField("current_seat")
        assert event.HasField("result") == event.match_over == (event is events[-1])
    assert local.is_over and scores == len(local.hand_results) >= 2
    assert deals == 4 * scores  # 52 cards: the opening table, then 4 deals of 6 + 6 a hand
    last = events[-1].result
    assert last.reason == S.RESULT_REASON_SCORE and list(last.scores) == list(local.scores)


@pytest.mark.parametrize("players", [2, 3])
async def test_tac_events_deal_at_the_start_and_step_every_move(
    players: int, redis_store: RedisStore
) -> None:
    spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=players)
    tables, table_id, tokens = await seated(redis_store, spec, seed=3)
    final = await play_to_end(tables, table_id, tokens, random.Random(0))
    replays = [Session.start(table_id, final.stored), *final.replays()]
    for viewer in (None, 1):
        events = events_as(final, viewer)
        start = next(e for e in events if e.match_started)
        assert [e for e in events if e.HasField("deal")] == [start]
        first = replays[start.seq].match
        assert not start.deal.hand and start.deal.deck_remaining == 0
        assert list(start.deal.table) == [c.text for c in first.central]
        assert list(start.deal.hand_sizes) == [first.held(s) for s in range(players)]
        moves = [e for e in events if e.kind == MOVE]
        assert moves and all(e.HasField("step") for e in moves)
        assert all(e.step.move == e.move for e in moves)
        assert not any(e.HasField("hand_score") for e in events)
        assert events[-1].result.reason == S.RESULT_REASON_OUT
        assert len(events[-1].result.places) == players
    assert sum(first.held(s) for s in range(players)) + len(first.central) == 52


async def test_a_leave_and_a_close_are_enums(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=4)
    session = await tables.session(table_id)
    await tables.leave(table_id, tokens[1])
    last = events_as(await tables.session(table_id), None)[-1]
    assert last.kind == events_pb2.EVENT_KIND_FORFEIT and last.reason == S.EVENT_REASON_LEFT
    assert not last.HasField("current_seat") and last.match_over
    assert last.result.reason == S.RESULT_REASON_FORFEIT and last.result.forfeit_seat == 1
    assert last.result.forfeit_reason == S.EVENT_REASON_LEFT
    assert session.seq == last.seq - 1

    tables, table_id, _tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=5)
    created = await tables.create(rules_pb2.TableConfig(rules=rules_pb2.RulesSpec(), seed=5))
    closed = await tables.close(created[0], created[1])
    last = events_as(closed, None)[-1]
    assert last.reason == S.EVENT_REASON_ADMIN and last.result.reason == S.RESULT_REASON_CLOSED
    assert last.result.forfeit_reason == S.EVENT_REASON_UNSPECIFIED


def test_every_logged_reason_word_has_its_enum() -> None:
    for word, value in convert.EVENT_REASONS.items():
        assert S.EventReason.Name(value) == "EVENT_REASON_" + word.upper()
    assert convert.event_reason("", MOVE) == S.EVENT_REASON_PLAYED
    assert convert.event_reason("", events_pb2.EVENT_KIND_SEAT_TAKEN) == 0
    assert convert.event_reason("no-such-word") == S.EVENT_REASON_UNSPECIFIED
    assert len(convert.EVENT_REASONS) == len(S.EventReason.values()) - 1
    assert len(convert.RESULT_REASONS) == len(S.ResultReason.values()) - 1


async def test_remaining_millis_count_down_for_the_seat_to_move(redis_store: RedisStore) -> None:
    clock = rules_pb2.ClockSpec(move_millis=5000)
    tables, table_id, tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=6, clock=clock)
    session = await tables.session(table_id)
    seat = session.match.current_seat
    assert session.deadline_ms
    state = convert.table_state(session, None, now_ms=session.deadline_ms - 1200)
    assert state.current_seat == seat
    expected = [5000, 5000]
    expected[seat] = 1200
    assert list(state.remaining_millis) == expected
    late = convert.table_state(session, None, now_ms=session.deadline_ms + 10)
    assert late.remaining_millis[seat] == 0
    no_clock, other_id, _ = await seated(redis_store, rules_pb2.RulesSpec(), seed=6)
    plain = convert.table_state(await no_clock.session(other_id), 0)
    assert not plain.remaining_millis and plain.HasField("current_seat")
    await tables.leave(table_id, tokens[0])
    over = convert.table_state(await tables.session(table_id), None)
    assert not over.remaining_millis and not over.HasField("current_seat")


async def test_get_record_is_small_its_events_have_no_state(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=11)
    session = await play_to_end(tables, table_id, tokens, random.Random(3))
    record = convert.record(await tables.record(table_id))
    assert record.events and not any(e.HasField("state") for e in record.events)
    replays = [Session.start(table_id, session.stored), *session.replays()]
    full = [convert.event(b, a, None, with_state=True) for b, a in pairwise(replays)]
    assert all(e.HasField("state") for e in full)
    with_states = sum(e.ByteSize() for e in full)
    assert record.ByteSize() * 5 < with_states
    assert record.ByteSize() < 8 * len(record.record)


@pytest.mark.parametrize("last_capturer", [None, 0, 1])
def test_a_hand_score_carries_every_figure_of_the_hand(last_capturer: int | None) -> None:
    result = tablic.HandResult(
        hand=3,
        cards=(30, 22),
        card_points=(14, 8),
        most_cards=(3, 0),
        tablas=(2, 0),
        points=(19, 8),
        last_capturer=last_capturer,
    )
    score = tablic_game.hand_score(result)
    assert score.hand == 3
    assert [list(score.cards), list(score.card_points), list(score.most_cards)] == [
        [30, 22],
        [14, 8],
        [3, 0],
    ]
    assert (list(score.tablas), list(score.points)) == ([2, 0], [19, 8])
    assert score.HasField("last_capturer") == (last_capturer is not None)
    assert score.last_capturer == (last_capturer or 0)
