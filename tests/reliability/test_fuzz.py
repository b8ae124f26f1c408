"""Hostile input to every RPC (hypothesis): each call is answered or refused with a clear code
(never UNKNOWN or INTERNAL) and an ErrorInfo reason, and a refusal changes nothing: the
reference tables keep their Redis contents, their seq and every seat's view.

The server runs in a background thread over a private Redis (with deploy/redis.conf); the
tests call it with grpc's blocking client, so hypothesis drives plain functions. Examples are
random each run (no database); `KAFANA_FUZZ_EXAMPLES=500` runs a longer hunt.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis as redis_py
from client.kafana_client_live import LiveServer
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from kafana.games import tablic
from kafana.service.games.tac import parse_move
from kafana.store.keys import table_keys
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import admin_md, reason_of, require_redis, seat_md

from .reliability_support import Redis

CLEAR = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.OUT_OF_RANGE,
}
FUZZ = settings(
    max_examples=int(os.environ.get("KAFANA_FUZZ_EXAMPLES", "40")),  # more for a long hunt
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
READS_AND_MOVES = {"GetState", "GetLegalMoves", "WatchEvents", "PlayMove", "GetRecord"}
SERVICE = service_pb2.DESCRIPTOR.services_by_name["KafanaService"]
METHODS = [m.name for m in SERVICE.methods]
STREAMS = {m.name for m in SERVICE.methods if m.server_streaming}


def md(token: str) -> tuple[tuple[str, str], ...]:
    """The seat token as call metadata (none for "")."""
    return seat_md(token) if token else ()


@dataclass
class Ref:
    """A reference table the fuzzing must not change."""

    table_id: str
    admin_token: str
    tokens: list[str]


@dataclass
class World:
    """The server, a blocking stub, Redis and the reference tables."""

    stub: KafanaServiceStub
    channel: grpc.Channel
    redis: redis_py.Redis
    live: Ref  # a Tablić match in progress
    finished: Ref  # a closed one
    tac: Ref  # a Tač match in progress
    decoy: Ref  # another table, whose tokens are wrong everywhere else

    @property
    def refs(self) -> list[Ref]:
        """Every reference table."""
        return [self.live, self.finished, self.tac, self.decoy]

    def snapshot(self) -> list[Any]:
        """Everything a refused call must leave as it was."""
        out: list[Any] = [self.redis.dbsize()]
        for ref in self.refs:
            keys = table_keys(ref.table_id)
            out += [
                self.redis.get(keys.table),
                self.redis.hgetall(keys.state),
                self.redis.hgetall(keys.seats),
                self.redis.get(keys.log),
            ]
            for token in ["", *ref.tokens]:
                request = service_pb2.GetStateRequest(table_id=ref.table_id)
                out.append(self._read(request, token).SerializeToString())
        return out

    def _read(self, request: service_pb2.GetStateRequest, token: str) -> state_pb2.TableState:
        """GetState, waited out when the server's rate limit refuses it: a snapshot is 24
        calls, twice an example, and a loaded machine bunches them past 1,000 a second."""
        for _ in range(50):
            try:
                state: state_pb2.TableState = self.stub.GetState(
                    request, timeout=10, metadata=md(token)
                )
                return state
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                time.sleep(0.1)
        raise AssertionError("the rate limit refused the snapshot's reads for 5 s")


def _open(stub: KafanaServiceStub, spec: rules_pb2.RulesSpec, seats: int) -> Ref:
    created = stub.CreateTable(
        service_pb2.CreateTableRequest(config=rules_pb2.TableConfig(rules=spec, seed=99)),
        timeout=10,
    )
    tokens = [
        stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=created.table_id, seat=seat, name=f"p{seat}"),
            timeout=10,
        ).seat_token
        for seat in range(seats)
    ]
    return Ref(created.table_id, created.admin_token, tokens)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A server over a private Redis, with reference tables mid-match, finished and Tač."""
    require_redis()
    redis = Redis(Path(tmp_path_factory.mktemp("fuzz-redis")))
    server = LiveServer(redis.url)
    channel = grpc.insecure_channel(server.target)
    stub = KafanaServiceStub(channel)
    try:
        tablic_spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC, players=2)
        live = _open(stub, tablic_spec, 2)
        rng = random.Random(5)
        for _ in range(7):  # a few moves in: table cards, captures, piles
            state = stub.GetState(service_pb2.GetStateRequest(table_id=live.table_id))
            token = live.tokens[state.current_seat]
            legal = stub.GetLegalMoves(
                service_pb2.GetLegalMovesRequest(table_id=live.table_id), metadata=md(token)
            )
            stub.PlayMove(
                service_pb2.PlayMoveRequest(
                    table_id=live.table_id,
                    move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
                    client_move_id=f"ref-{legal.seq}",
                    last_seq=legal.seq,
                ),
                metadata=md(token),
            )
        finished = _open(stub, tablic_spec, 2)
        stub.CloseTable(
            service_pb2.CloseTableRequest(table_id=finished.table_id),
            metadata=admin_md(finished.admin_token),
        )
        tac = _open(stub, rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=2), 2)
        decoy = _open(stub, tablic_spec, 2)
        yield World(stub, channel, redis_py.Redis(port=redis.port), live, finished, tac, decoy)
    finally:
        channel.close()
        server.close()
        redis.close()


def refused_cleanly(call: Callable[[], Any]) -> grpc.StatusCode | None:
    """Run `call`: None if answered, else its code, which must be a clear one with a reason."""
    try:
        result = call()
        if isinstance(result, Iterator):
            for _ in result:
                pass
        return None
    except grpc.RpcError as error:
        code = error.code()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return None  # an event stream still open at the deadline: it was answered
        assert code in CLEAR, (code, error.details())
        assert error.details(), code
        assert reason_of(error), (code, error.details())
        return code


# -- strategies ---------------------------------------------------------------------------

CARDISH = st.one_of(
    st.sampled_from([c.text for c in map(tablic.Card.parse, ["AS", "10D", "KC", "2C", "7H"])]),
    st.sampled_from(["1S", "11H", "0D", "ZZ", "AX", "10", "", " ", "AS ", "as", "🂡", "\x00"]),
    st.text(max_size=6),
)
JUNK = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "AS", "KC:KD+KH", "KC:KD+KD", "AS:AS", "2C:", ":", "+", "AS:+", "7S7S"]),
    st.builds(
        lambda c, n: c * n,
        st.sampled_from(["A", "AS:", "é", "\u202e", "KD+"]),
        st.integers(1000, 20_000),
    ),
)
MOVES = st.one_of(
    JUNK,
    st.builds(
        lambda card, taken: card + (":" + "+".join(taken) if taken else ""),
        CARDISH,
        st.lists(CARDISH, max_size=8),
    ),
)
U32 = st.one_of(st.integers(0, 10), st.sampled_from([2**31 - 1, 2**31, 2**32 - 1]))
U64 = st.one_of(st.integers(0, 100), st.sampled_from([2**31, 2**63 - 1, 2**63, 2**64 - 1]))
ENUMS = st.one_of(st.integers(0, 5), st.sampled_from([99, 2**31 - 1]))
"""Enum numbers: defined ones and others (proto3 keeps any number it decodes)."""
MAYBE_U32 = st.one_of(st.none(), U32)
MAYBE_BOOL = st.one_of(st.none(), st.booleans())


def _set(message: Any, **values: Any) -> Any:
    """`message` with each value that is not None set (optional fields stay unset)."""
    for name, value in values.items():
        if value is not None:
            setattr(message, name, value)
    return message


@st.composite
def rules_specs(draw: st.DrawFn) -> rules_pb2.RulesSpec:
    """Rules of any game number, seats, and either game's switches (or none)."""
    spec = rules_pb2.RulesSpec(
        game=draw(ENUMS), players=draw(U32), partnerships=draw(st.booleans())
    )
    branch = draw(st.sampled_from(["none", "tablic", "tac"]))
    if branch == "tablic":
        tablic_rules = _set(
            rules_pb2.TablicRules(preset=draw(ENUMS)),
            target=draw(MAYBE_U32),
            ace_high=draw(MAYBE_BOOL),
            wild_jack=draw(MAYBE_BOOL),
            jack_value=draw(MAYBE_U32),
            multi_group=draw(MAYBE_BOOL),
            most_cards_points=draw(MAYBE_U32),
            must_capture=draw(MAYBE_BOOL),
        )
        for pattern, points in draw(st.lists(st.tuples(CARDISH, U32), max_size=3)):
            tablic_rules.card_points.add(pattern=pattern, points=points)
        tablic_rules.card_points_set = draw(st.booleans())
        spec.tablic.CopyFrom(tablic_rules)
    elif branch == "tac":
        tac_rules = _set(
            rules_pb2.TacRules(),
            decks=draw(MAYBE_U32),
            tac_calls=draw(MAYBE_BOOL),
            play_on=draw(MAYBE_BOOL),
            stall_rounds=draw(MAYBE_U32),
        )
        spec.tac.CopyFrom(tac_rules)
    return spec


@st.composite
def configs(draw: st.DrawFn) -> rules_pb2.TableConfig:
    """Table configurations, mostly broken."""
    config = rules_pb2.TableConfig(
        rules=draw(rules_specs()),
        clock=rules_pb2.ClockSpec(move_millis=draw(U32), policy=draw(st.integers(0, 7))),
        name=draw(JUNK),
    )
    if draw(st.booleans()):
        config.seed = draw(U64)
    for cards in draw(st.lists(st.lists(CARDISH, max_size=60), max_size=3)):
        config.decks.add(cards=cards)
    return config


TOKEN_JUNK = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=40),
    st.sampled_from(["a b", "A" * 129, "A" * 2000, "-", "_" * 32, "tok\u00e9n"]),
)
"""Wrong tokens a client library lets through as metadata (printable ASCII)."""


def tokens_of(world: World) -> st.SearchStrategy[str]:
    """Tokens that are wrong for the table they are used on (or right, for reads)."""
    return st.one_of(
        st.sampled_from(["", world.decoy.admin_token, *world.decoy.tokens]),
        TOKEN_JUNK.filter(lambda t: t.isascii()),
    )


def table_ids(world: World) -> st.SearchStrategy[str]:
    """Ids of the reference tables and junk ones."""
    return st.one_of(
        st.sampled_from([r.table_id for r in (world.live, world.finished, world.tac)]),
        JUNK,
        st.just("{t:x}:state"),
    )


# -- the tests ------------------------------------------------------------------------------


def test_fuzz_create_table(world: World) -> None:
    @FUZZ
    @given(config=configs())
    def check(config: rules_pb2.TableConfig) -> None:
        before = world.snapshot()
        request = service_pb2.CreateTableRequest(config=config)
        if refused_cleanly(lambda: world.stub.CreateTable(request, timeout=10)) is not None:
            assert world.snapshot() == before

    check()


def test_fuzz_join_leave_close(world: World) -> None:
    @FUZZ
    @given(
        data=st.data(),
        seat=st.one_of(st.none(), U32),
        name=JUNK,
        which=st.sampled_from(["join", "leave", "close"]),
    )
    def check(data: st.DataObject, seat: int | None, name: str, which: str) -> None:
        table_id = data.draw(table_ids(world))
        token = data.draw(tokens_of(world))
        before = world.snapshot()
        stub = world.stub
        if which == "join":
            request = service_pb2.JoinTableRequest(table_id=table_id, name=name)
            if seat is not None:
                request.seat = seat
            code = refused_cleanly(lambda: stub.JoinTable(request, timeout=10))
        elif which == "leave":
            leave = service_pb2.LeaveTableRequest(table_id=table_id)
            code = refused_cleanly(lambda: stub.LeaveTable(leave, timeout=10, metadata=md(token)))
        else:
            close = service_pb2.CloseTableRequest(table_id=table_id)
            admin = admin_md(token) if token else ()
            code = refused_cleanly(lambda: stub.CloseTable(close, timeout=10, metadata=admin))
        assert code is not None  # every reference table is full or over; every token wrong
        assert world.snapshot() == before

    check()


def test_fuzz_reads(world: World) -> None:
    @FUZZ
    @given(
        data=st.data(),
        seq=U64,
        which=st.sampled_from(["state", "legal", "table", "record", "watch", "list"]),
        game=st.integers(0, 2**31 - 1),
        status=st.integers(0, 2**31 - 1),
        limit=U32,
        page_token=st.one_of(st.just(""), JUNK),
    )
    def check(
        data: st.DataObject,
        seq: int,
        which: str,
        game: int,
        status: int,
        limit: int,
        page_token: str,
    ) -> None:
        table_id = data.draw(table_ids(world))
        token = data.draw(st.one_of(tokens_of(world), st.sampled_from(world.live.tokens)))
        stub = world.stub
        before = world.snapshot()
        calls: dict[str, Callable[[], Any]] = {
            "state": lambda: stub.GetState(
                service_pb2.GetStateRequest(table_id=table_id), timeout=10, metadata=md(token)
            ),
            "legal": lambda: stub.GetLegalMoves(
                service_pb2.GetLegalMovesRequest(table_id=table_id),
                timeout=10,
                metadata=md(token),
            ),
            "table": lambda: stub.GetTable(
                service_pb2.GetTableRequest(table_id=table_id), timeout=10
            ),
            "record": lambda: stub.GetRecord(
                service_pb2.GetRecordRequest(table_id=table_id), timeout=10
            ),
            "watch": lambda: stub.WatchEvents(
                service_pb2.WatchEventsRequest(table_id=table_id, after_seq=seq),
                timeout=0.5,
                metadata=md(token),
            ),
            "list": lambda: stub.ListTables(
                service_pb2.ListTablesRequest(
                    game=game,  # type: ignore[arg-type]
                    status=status,  # type: ignore[arg-type]
                    page_size=limit,
                    page_token=page_token,
                ),
                timeout=10,
            ),
        }
        refused_cleanly(calls[which])
        assert world.snapshot() == before

    check()


def test_fuzz_play_move(world: World) -> None:
    live = world.live
    stub = world.stub

    @FUZZ
    @given(
        data=st.data(),
        move=MOVES,
        move_id=st.one_of(st.just(""), st.text(max_size=20), st.just("x" * 65)),
        structured=st.one_of(st.none(), st.tuples(CARDISH, st.lists(CARDISH, max_size=4))),
        seq_choice=st.one_of(st.just(None), U64),
    )
    def check(
        data: st.DataObject,
        move: str,
        move_id: str,
        structured: tuple[str, list[str]] | None,
        seq_choice: int | None,
    ) -> None:
        table_id = data.draw(st.one_of(st.just(live.table_id), table_ids(world)))
        token = data.draw(st.one_of(st.sampled_from(live.tokens), tokens_of(world)))
        state = stub.GetState(service_pb2.GetStateRequest(table_id=live.table_id))
        seq = state.seq if seq_choice is None else seq_choice
        mover = live.tokens[state.current_seat]
        legal = stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=live.table_id), metadata=md(mover)
        )
        try:
            parsed = tablic.Move.parse(move)
        except tablic.InvalidInputError:
            parsed = None
        legal_moves = {tablic.Move.parse(m.text) for m in legal.moves}
        # A legal move by the seat to move at the current seq would rightly be played.
        wire = state_pb2.Move(text=move)
        if structured is not None:  # a structured branch too (rarely naming the same move)
            wire.tablic.card, taken = structured
            wire.tablic.captured.extend(taken)
        # A legal move by the seat to move at the current seq would rightly be played.
        assume(
            not (
                table_id == live.table_id
                and token == mover
                and seq == state.seq
                and (parsed in legal_moves or structured is not None)
            )
        )
        before = world.snapshot()
        request = service_pb2.PlayMoveRequest(
            table_id=table_id, move=wire, client_move_id=move_id, last_seq=seq
        )
        try:
            answer = stub.PlayMove(request, timeout=10, metadata=md(token))
            assert answer.duplicate  # only a retry of a move made earlier is answered
        except grpc.RpcError:
            refused_cleanly(lambda: stub.PlayMove(request, timeout=10, metadata=md(token)))
        assert world.snapshot() == before

    check()


TAC_MOVES = st.one_of(
    MOVES,
    st.sampled_from(
        [
            *("flip", "FLIP  ", "call", "call P0", "call P1", "call P5", "call P99", "call P-1"),
            *("play D->C", "play X->P0", "play X->P1", "play X->P9", "play X->P100", "play D->D"),
            *("play X->D", "play  x -> p1", "play X->P00", "play Y->C", "play X->", "flip flip"),
        ]
    ),
)


def test_fuzz_play_move_at_a_tac_table(world: World) -> None:
    tac = world.tac
    stub = world.stub

    @FUZZ
    @given(
        seat=st.sampled_from([0, 1]),
        move=TAC_MOVES,
        move_id=st.one_of(st.just(""), st.text(max_size=20)),
        seq_choice=st.one_of(st.just(None), U64),
    )
    def check(seat: int, move: str, move_id: str, seq_choice: int | None) -> None:
        state = stub.GetState(service_pb2.GetStateRequest(table_id=tac.table_id))
        seq = state.seq if seq_choice is None else seq_choice
        token = tac.tokens[seat]
        legal = stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=tac.table_id), metadata=md(token)
        )
        allowed = {str(parse_move(m.text, seat)) for m in legal.moves}
        before = world.snapshot()
        request = service_pb2.PlayMoveRequest(
            table_id=tac.table_id,
            move=state_pb2.Move(text=move),
            client_move_id=move_id,
            last_seq=seq,
        )
        try:
            answer = stub.PlayMove(request, timeout=10, metadata=md(token))
        except grpc.RpcError:
            refused_cleanly(lambda: stub.PlayMove(request, timeout=10, metadata=md(token)))
            assert world.snapshot() == before
            return
        if not answer.duplicate:  # played: it must have been one of the seat's legal moves
            assert seq == state.seq and str(parse_move(move, seat)) in allowed, move

    check()


def test_fuzz_captures(world: World) -> None:
    @FUZZ
    @given(
        card=CARDISH,
        table=st.one_of(
            st.lists(CARDISH, max_size=60),
            st.builds(lambda n: ["AS"] * n, st.integers(2, 50_000)),
        ),
        spec=rules_specs(),
    )
    def check(card: str, table: list[str], spec: rules_pb2.RulesSpec) -> None:
        before = world.snapshot()
        request = service_pb2.CapturesRequest(card=card, table=table, rules=spec)
        refused_cleanly(lambda: world.stub.Captures(request, timeout=20))
        assert world.snapshot() == before

    check()


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1  # negative numbers as protobuf sends them: ten bytes
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def test_fuzz_raw_bytes_and_overflowing_numbers(world: World) -> None:
    """Bytes no client library would send: random ones, bad UTF-8, numbers out of range."""
    stubs = {
        name: world.channel.unary_unary(f"/kafana.v1.KafanaService/{name}")
        if name not in STREAMS
        else world.channel.unary_stream(f"/kafana.v1.KafanaService/{name}")
        for name in METHODS
    }
    live = world.live

    def token_of(name: str) -> str:
        # Reads and moves get a real seat token (a move at an absurd seq is refused); calls
        # that change a table with a valid token (LeaveTable forfeits) get a wrong one.
        return live.tokens[0] if name in READS_AND_MOVES else world.decoy.tokens[0]

    def base() -> bytes:
        return service_pb2.PlayMoveRequest(
            table_id=live.table_id, move=state_pb2.Move(text="KC"), client_move_id="raw"
        ).SerializeToString()

    hostile_fields = st.builds(
        lambda number, value: _varint(number << 3) + _varint(value),
        st.integers(1, 12),
        st.sampled_from([-1, -(2**31), -(2**63), 2**32, 2**64 - 1, 2**63]),
    )
    bad_utf8 = st.builds(
        lambda number, blob: _varint(number << 3 | 2) + _varint(len(blob)) + blob,
        st.integers(1, 5),
        st.sampled_from([b"\xff\xfe", b"\xc3", b"AS\x80", b"\xed\xa0\x80"]),
    )

    @FUZZ
    @given(
        name=st.sampled_from(METHODS),
        body=st.one_of(
            st.binary(max_size=300),
            st.lists(hostile_fields, max_size=3),
            bad_utf8,
        ),
    )
    def check(name: str, body: bytes | list[bytes]) -> None:
        if isinstance(body, list):  # a message of the live table with hostile numbers after
            body = base() + b"".join(body)
        before = world.snapshot()
        timeout = 0.5 if name in STREAMS else 10
        seated = md(token_of(name))
        code = refused_cleanly(lambda: stubs[name](body, timeout=timeout, metadata=seated))
        after = world.snapshot()
        if code is None and name == "CreateTable":
            assert after[1:] == before[1:]  # a valid config may create a table: not dbsize
        else:
            assert after == before

    check()


def test_undecodable_request_is_invalid_argument(world: World) -> None:
    call = world.channel.unary_unary("/kafana.v1.KafanaService/PlayMove")
    with pytest.raises(grpc.RpcError) as caught:
        call(b"\x1a\x02\xff\xfe", timeout=10)  # field 3 (client_move_id), not UTF-8
    error: Any = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid PlayMove request" in error.details()
    assert reason_of(error) == "INVALID_ARGUMENT"


def test_redis_cli_sees_the_reference_tables(world: World) -> None:
    """The snapshot really looks at the tables (a guard against comparing empty things)."""
    snapshot = world.snapshot()
    assert snapshot[0] >= 4 * 4
    port = str(world.redis.connection_pool.connection_kwargs["port"])
    keys = subprocess.run(
        ["redis-cli", "-p", port, "keys", "*"], capture_output=True, text=True, check=True
    ).stdout
    assert world.live.table_id in keys
    state = world.stub.GetState(service_pb2.GetStateRequest(table_id=world.live.table_id))
    assert state.info.status == state_pb2.TABLE_STATUS_PLAYING
    assert state.seq > 2
