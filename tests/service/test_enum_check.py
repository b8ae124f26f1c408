"""The guard's enum check (`inputs.bad_enum`) looks only where an enum can be, and finds what
a walk of every set field finds."""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from kafana.service.inputs import bad_enum
from kafana.v1 import competitions_pb2, rules_pb2, service_pb2, state_pb2


def walk_every_field(message: Message, prefix: str = "") -> str | None:
    """The check as it was: every set field of every message, looked at."""
    for field, value in message.ListFields():
        path = prefix + field.name
        if field.type == FieldDescriptor.TYPE_ENUM:
            known = field.enum_type.values_by_number if field.enum_type else {}
            for item in value if field.is_repeated else [value]:
                if item not in known:
                    return f"{path} = {item}"
        elif field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                items = list(value.values())
            else:
                items = list(value) if field.is_repeated else [value]
            for item in items:
                if isinstance(item, Message):
                    found = walk_every_field(item, path + ".")
                    if found is not None:
                        return found
    return None


def tac_move(kind: int) -> service_pb2.PlayMoveRequest:
    request = service_pb2.PlayMoveRequest(table_id="t", client_move_id="m", last_seq=3)
    request.move.tac.play.source.kind = kind  # type: ignore[assignment]
    return request


def test_a_move_request_is_checked_where_its_enums_are() -> None:
    tablic = service_pb2.PlayMoveRequest(
        table_id="t", move=state_pb2.Move(text="7c"), client_move_id="m", last_seq=3
    )
    cases: list[Message] = [
        tablic,
        tac_move(1),
        tac_move(99),
        service_pb2.CreateTableRequest(),
        service_pb2.CreateTableRequest(
            config=rules_pb2.TableConfig(clock=rules_pb2.ClockSpec(policy=99))  # type: ignore[arg-type]
        ),
        service_pb2.CreateTableRequest(
            config=rules_pb2.TableConfig(clock=rules_pb2.ClockSpec(policy=1))  # type: ignore[arg-type]
        ),
    ]
    found = [bad_enum(case) for case in cases]
    assert found == [walk_every_field(case) for case in cases]
    assert found[0] is None and found[1] is None
    assert found[2] == "move.tac.play.source.kind = 99"
    assert found[4] == "config.clock.policy = 99"


def test_repeated_messages_are_looked_into() -> None:
    round_info = competitions_pb2.RoundInfo()
    fault = round_info.games.add().faults.add()
    assert bad_enum(round_info) == walk_every_field(round_info) is None
    kinds = [f.name for f in fault.DESCRIPTOR.fields if f.type == FieldDescriptor.TYPE_ENUM]
    assert kinds, "GameInfo.faults holds an enum"
    setattr(fault, kinds[0], 99)
    assert bad_enum(round_info) == f"games.faults.{kinds[0]} = 99"
    assert bad_enum(round_info) == walk_every_field(round_info)
