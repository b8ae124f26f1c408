"""The worked example of docs/clients.md: each grpcurl request, sent as written, does as told."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from kafana.v1 import service_pb2, service_pb2_grpc, state_pb2

from .kafana_client_live import LiveServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
CALL = re.compile(
    r"grpcurl -plaintext (?:-max-time (\d+) )?((?:-H \"[^\"]+\" )*)-d @ \$S "
    r"kafana\.v1\.KafanaService/(\w+) <<EOF[^\n]*\n(.*?)\nEOF",
    re.DOTALL,
)
HEADER = re.compile(r'-H "([\w-]+): ([^"]+)"')
METHODS = service_pb2.DESCRIPTOR.services_by_name["KafanaService"].methods_by_name


def test_the_worked_example_runs_as_written(server: LiveServer) -> None:
    calls = CALL.findall(DOC.read_text())
    assert [m for _, _, m, _ in calls] == [
        "CreateTable", "JoinTable", "JoinTable", "GetState", "GetLegalMoves", "PlayMove",
        "PlayMove", "WatchEvents", "CloseTable", "GetRecord", "Captures",
    ]  # fmt: skip
    names: dict[str, str] = {}
    answers: list[Any] = []
    with grpc.insecure_channel(server.target) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        for max_time, headers, method, body in calls:
            for name, value in names.items():
                body = body.replace(f"${name}", value)
                headers = headers.replace(f"${name}", value)
            metadata = HEADER.findall(headers)
            request = getattr(service_pb2, METHODS[method].input_type.name)()
            json_format.Parse(body, request)
            rpc = getattr(stub, method)
            try:
                if method == "WatchEvents":
                    stream = rpc(request, timeout=min(float(max_time), 0.5), metadata=metadata)
                    answer: Any = [
                        item.event
                        for item in _until_deadline(stream)
                        if item.WhichOneof("item") == "event"
                    ]
                else:
                    answer = rpc(request, timeout=5, metadata=metadata)
            except grpc.RpcError as error:
                answer = error
            answers.append(answer)
            if method == "CreateTable":
                names |= {"TABLE": answer.table_id, "ADMIN": answer.admin_token}
            if method == "JoinTable":
                names[json.loads(body)["name"].upper()] = answer.seat_token

    created, alice, bob, state, legal, played, stale, events, _closed, record, captures = answers
    assert (alice.seat, bob.seat) == (0, 1)
    assert list(state.tablic.hand) == ["AH", "2H", "4C", "JD", "JH", "KS"]
    assert list(state.tablic.table) == ["AS", "3D", "5C", "QC"]
    texts = [m.text for m in legal.moves]
    assert texts[:2] == ["AH", "AH:AS"] and "4C:AS+3D" in texts
    assert list(legal.moves[1].tablic.captured) == ["AS"] and legal.current_seat == 0
    assert state.current_seat == 0
    assert played.event.seq == 3 and played.event.move.text == "4C:AS+3D"
    assert isinstance(stale, grpc.RpcError)
    assert stale.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert str(stale.details()).startswith("stale sequence number 2")
    assert [e.seq for e in events] == [1, 2, 3]
    assert events[1].match_started
    assert record.result.reason == state_pb2.RESULT_REASON_CLOSED
    assert "seed 7\nmove 4C:AS+3D\n" in record.record
    assert [list(c.cards) for c in captures.captures] == [["KD"], ["KH"], ["KD", "KH"]]
    assert created.info.status == state_pb2.TABLE_STATUS_OPEN
    rules = created.info.rules  # the rules in force: every switch set
    assert rules.tablic.target == 51 and rules.tablic.HasField("must_capture")


def _until_deadline(stream: Any) -> list[Any]:
    out: list[Any] = []
    try:
        for event in stream:
            out.append(event)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    return out


def test_the_python_example_runs(server: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)[-1]
    exec(code.replace("localhost:50051", server.target), {})
    out = capsys.readouterr().out
    assert "['AH', '2H', '4C', 'JD', 'JH', 'KS']" in out
    assert "3 3 4C:AS+3D" in out and "move 4C:AS+3D\n# ended: closed" in out
