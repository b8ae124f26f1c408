"""The blocking SDK against a real server: the same calls, seats, events and errors."""

from __future__ import annotations

import threading

import pytest
from kafana.games import tablic
from kafana.v1 import events_pb2, state_pb2
from kafana_client import (
    Client,
    NotYourTurnRpcError,
    RefusedMoveError,
    Seat,
    current_seat,
    table_config,
)

from .kafana_client_live import LiveServer


def greediest(seat: Seat) -> str:
    """The legal move taking the most cards."""
    return max(seat.legal_moves().moves, key=lambda m: len(m.tablic.captured)).text


def test_a_whole_match_through_the_blocking_client(server: LiveServer) -> None:
    with Client.connect(server.target) as client:
        client.wait_ready()
        table = client.create_table(table_config(seed=11, target=1, name="blocking"))
        seats = [client.join(table.table_id, name=n) for n in ("ana", "ben")]
        assert [s.seat for s in seats] == [0, 1]
        assert client.get_table(table.table_id).status == state_pb2.TABLE_STATUS_PLAYING
        assert table.table_id in [t.table_id for t in client.list_tables()]
        assert table.table_id in [t.table_id for t in client.tables(page_size=1)]

        assert seats[1].legal_moves().moves == []  # not ben's turn
        with pytest.raises(NotYourTurnRpcError):
            seats[1].play(seats[1].state().tablic.hand[0])
        assert seats[0].legal_moves().seq == seats[0].last_seq == 2
        with pytest.raises(RefusedMoveError, match="unknown card"):
            seats[0].play("11X")

        seen: list[int] = []
        watching = threading.Thread(
            target=lambda: seen.extend(e.seq for e in client.watch(table.table_id))
        )
        watching.start()
        while (mover := current_seat(seats[0].state())) is not None:
            answer = seats[mover].play(greediest(seats[mover]))
            assert answer.event.kind == events_pb2.EVENT_KIND_MOVE
        watching.join(timeout=20)

        record = client.record(table.table_id)
        assert seen == [e.seq for e in record.events] == list(range(1, len(seen) + 1))
        assert tablic.MatchRecord.from_text(record.record).replay().is_over
        spectator = client.get_state(table.table_id)
        assert spectator.result.reason == state_pb2.RESULT_REASON_SCORE
        mine = [e.seq for e in seats[1].events(after_seq=len(seen) - 2)]
        assert mine == [len(seen) - 1, len(seen)]
        assert client.captures("QD", ["QS", "7H", "6C"]) == [
            ["QS"],
            ["6C", "7H"],
            ["6C", "7H", "QS"],
        ]


def test_blocking_leave_and_close(server: LiveServer) -> None:
    with Client.connect(server.target) as client:
        table = client.create_table(table_config(seed=2))
        seat = client.join(table.table_id, name="x")
        assert seat.leave() == 2
        assert client.close_table(table.table_id, table.admin_token) == 3
        assert client.record(table.table_id).result.reason == state_pb2.RESULT_REASON_CLOSED
