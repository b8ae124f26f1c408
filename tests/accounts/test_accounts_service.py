"""The Accounts service and the authenticator on a real server and a real Redis."""

from __future__ import annotations

import grpc
import pytest
from kafana.service.auth import OPEN, AuthPolicy
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import accounts_pb2, rules_pb2, service_pb2
from kit import reason_of, redis_cli, retry_delay_ms, running, seat_md

from .accounts_support import Guarded, bearer, code_of, guarded_server

TABLIC = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)
U = grpc.StatusCode.UNAUTHENTICATED


def create_request(*seat_accounts: str) -> service_pb2.CreateTableRequest:
    return service_pb2.CreateTableRequest(
        config=rules_pb2.TableConfig(rules=TABLIC, seed=5, seat_accounts=seat_accounts)
    )


async def new_account(g: Guarded, name: str, role: int) -> tuple[str, tuple[tuple[str, str]]]:
    made = await g.stub.CreateAccount(
        accounts_pb2.CreateAccountRequest(name=name, role=role), metadata=g.operator
    )
    assert made.key.startswith("kfk_") and made.account.name == name
    return made.key, bearer(made.key)  # type: ignore[return-value]


async def test_create_list_revoke_rotate(guarded: Guarded) -> None:
    stub, op = guarded.stub, guarded.operator
    names = [f"bot{i:02d}" for i in range(7)]
    for name in names:
        await new_account(guarded, name, accounts_pb2.ROLE_BOT)
    assert (
        await code_of(
            stub.CreateAccount(accounts_pb2.CreateAccountRequest(name="bot00", role=2), metadata=op)
        )
        == grpc.StatusCode.ALREADY_EXISTS
    )
    seen, token = [], ""
    while True:
        page = await stub.ListAccounts(
            accounts_pb2.ListAccountsRequest(page_size=3, page_token=token), metadata=op
        )
        seen += [a.name for a in page.accounts]
        assert all(not a.HasField("key") if hasattr(a, "key") else True for a in page.accounts)
        token = page.next_page_token
        if not token:
            break
    assert seen == sorted([*names, "root"])
    made_up = accounts_pb2.ListAccountsRequest(page_token="bot03")  # a name is not a token
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.ListAccounts(made_up, metadata=op)
    assert reason_of(error.value) == "INVALID_PAGE_TOKEN"
    key, meta = await new_account(guarded, "ana", accounts_pb2.ROLE_PLAYER)
    me = await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=meta)
    assert me.name == "ana" and me.role == accounts_pb2.ROLE_PLAYER
    rotated = await stub.RotateKey(accounts_pb2.RotateKeyRequest(name="ana"), metadata=op)
    assert rotated.key != key
    assert await code_of(stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=meta)) == U
    fresh = bearer(rotated.key)
    assert (await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=fresh)).name == "ana"
    gone = await stub.RevokeAccount(accounts_pb2.RevokeAccountRequest(name="ana"), metadata=op)
    assert gone.revoked_ms > 0
    refused = stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=fresh)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await refused
    assert error.value.code() == U and "revoked" in (error.value.details() or "")
    assert (
        await code_of(stub.RotateKey(accounts_pb2.RotateKeyRequest(name="ana"), metadata=op))
        == grpc.StatusCode.FAILED_PRECONDITION
    )
    assert (
        await code_of(
            stub.RevokeAccount(accounts_pb2.RevokeAccountRequest(name="nobody"), metadata=op)
        )
        == grpc.StatusCode.NOT_FOUND
    )


async def test_roles_and_anonymous_callers(guarded: Guarded) -> None:
    stub = guarded.stub
    _, player = await new_account(guarded, "ana", accounts_pb2.ROLE_PLAYER)
    request = accounts_pb2.CreateAccountRequest(name="eve", role=accounts_pb2.ROLE_OPERATOR)
    assert await code_of(stub.CreateAccount(request, metadata=player)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.CreateAccount(request)
    assert error.value.code() == U and "API key" in (error.value.details() or "")
    bad = (("authorization", "Bearer kfk_made_up"),)
    assert await code_of(stub.ListAccounts(accounts_pb2.ListAccountsRequest(), metadata=bad)) == U
    malformed = (("authorization", "Basic abc"),)
    assert await code_of(stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=malformed)) == U


async def test_required_mode_refuses_anonymous_play_but_allows_captures_and_spectating(
    guarded: Guarded,
) -> None:
    kafana = guarded.svc.stub
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await kafana.CreateTable(create_request())
    assert error.value.code() == U and "CreateTable needs an API key" in str(error.value.details())
    captures = await kafana.Captures(
        service_pb2.CapturesRequest(card="KC", table=["KD", "KH"], rules=TABLIC)
    )
    assert len(captures.captures) == 3
    _, ana = await new_account(guarded, "ana", accounts_pb2.ROLE_PLAYER)
    _, bora = await new_account(guarded, "bora", accounts_pb2.ROLE_BOT)
    created = await kafana.CreateTable(create_request(), metadata=ana)
    table_id = created.table_id
    assert await code_of(kafana.JoinTable(service_pb2.JoinTableRequest(table_id=table_id))) == U
    seats = {}
    for meta in (ana, bora):
        joined = await kafana.JoinTable(
            service_pb2.JoinTableRequest(table_id=table_id, name="x"), metadata=meta
        )
        seats[joined.seat] = joined.seat_token
    seat0 = seat_md(seats[0])
    moves = await kafana.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=ana + seat0
    )
    play = service_pb2.PlayMoveRequest(
        table_id=table_id, move=moves.moves[0], client_move_id="m1", last_seq=moves.seq
    )
    assert await code_of(kafana.PlayMove(play, metadata=seat0)) == U  # the token is not enough
    assert (await kafana.PlayMove(play, metadata=ana + seat0)).event.seq == moves.seq + 1
    # Spectating needs no key; a seat's view does.
    state = await kafana.GetState(service_pb2.GetStateRequest(table_id=table_id))
    assert state.seq == moves.seq + 1
    seated = service_pb2.GetStateRequest(table_id=table_id)
    assert await code_of(kafana.GetState(seated, metadata=seat0)) == U
    assert (await kafana.GetTable(service_pb2.GetTableRequest(table_id=table_id))).table_id
    watch = kafana.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id))
    first = await watch.read()
    assert first is not grpc.aio.EOF
    watch.cancel()
    # The table keeps its creator's account.
    session = await guarded.svc.server.tables.session(table_id)
    assert session.stored.creator_account == "ana"


async def test_a_seat_bound_to_an_account_refuses_others(guarded: Guarded) -> None:
    kafana = guarded.svc.stub
    _, ana = await new_account(guarded, "ana", accounts_pb2.ROLE_PLAYER)
    _, bora = await new_account(guarded, "bora", accounts_pb2.ROLE_PLAYER)
    _, cvijeta = await new_account(guarded, "cvijeta", accounts_pb2.ROLE_PLAYER)
    created = await kafana.CreateTable(create_request("ana", "bora"), metadata=cvijeta)
    table_id = created.table_id
    for meta in (cvijeta, bora):
        taking = kafana.JoinTable(
            service_pb2.JoinTableRequest(table_id=table_id, seat=0, name="x"), metadata=meta
        )
        assert await code_of(taking) == grpc.StatusCode.PERMISSION_DENIED
    # Without a seat number, the caller gets the seat bound to it, or none: the open seats
    # are another's (PERMISSION_DENIED naming whose), not "every seat is taken" (TABLE_FULL).
    any_seat = service_pb2.JoinTableRequest(table_id=table_id, name="x")
    assert await code_of(kafana.JoinTable(any_seat, metadata=cvijeta)) == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert (await kafana.JoinTable(any_seat, metadata=bora)).seat == 1
    assert (await kafana.JoinTable(any_seat, metadata=ana)).seat == 0
    too_many = create_request("ana", "bora", "cvijeta")
    assert await code_of(kafana.CreateTable(too_many, metadata=ana)) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )


async def test_self_registration_off(guarded: Guarded) -> None:
    request = accounts_pb2.RegisterRequest(name="stranger")
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await guarded.stub.Register(request)
    assert error.value.code() == U and "self-registration is off" in str(error.value.details())


async def test_self_registration_on(registering: Guarded) -> None:
    stub = registering.stub
    made = await stub.Register(accounts_pb2.RegisterRequest(name="stranger"))
    assert made.account.role == accounts_pb2.ROLE_PLAYER and made.key.startswith("kfk_")
    me = await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(made.key))
    assert me.name == "stranger"
    bot = await stub.Register(accounts_pb2.RegisterRequest(name="b1", role=accounts_pb2.ROLE_BOT))
    assert bot.account.role == accounts_pb2.ROLE_BOT
    boss = accounts_pb2.RegisterRequest(name="boss", role=accounts_pb2.ROLE_OPERATOR)
    assert await code_of(stub.Register(boss)) == grpc.StatusCode.INVALID_ARGUMENT
    again = accounts_pb2.RegisterRequest(name="stranger")
    assert await code_of(stub.Register(again)) == grpc.StatusCode.ALREADY_EXISTS


async def test_keys_are_never_kept_in_clear(guarded: Guarded, redis_url: str) -> None:
    key, _ = await new_account(guarded, "ana", accounts_pb2.ROLE_PLAYER)
    rotated = await guarded.stub.RotateKey(
        accounts_pb2.RotateKeyRequest(name="ana"), metadata=guarded.operator
    )
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    dump = ""
    for name in redis_cli(port, "--scan").split():
        kind = redis_cli(port, "type", name).strip()
        command = {"hash": "hgetall", "zset": "zrange", "string": "get"}.get(kind)
        if command:
            args = [command, name, *(["0", "-1"] if kind == "zset" else [])]
            dump += name + " " + redis_cli(port, *args)
    assert "{kafana:accounts}:bykey" in dump
    for secret in (key, rotated.key, key.removeprefix("kfk_"), rotated.key.removeprefix("kfk_")):
        assert secret not in dump


async def test_open_mode_needs_no_key_but_checks_one_sent(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, auth=AuthPolicy(mode=OPEN)) as svc:
            created = await svc.stub.CreateTable(create_request())
            assert created.table_id
            bad = (("authorization", "Bearer kfk_nothing"),)
            assert await code_of(svc.stub.CreateTable(create_request(), metadata=bad)) == U
    finally:
        await store.close()


async def test_made_up_keys_cost_their_address(redis_url: str) -> None:
    """Each unknown key is a store lookup: an address that sends many must wait."""
    # The default burst, refilled slowly: at the default 5 a second, a slow run of the 11
    # refused calls refilled the token the last one must find missing (a failed CI run).
    slow = RateLimit(rate=0.01, burst=AuthPolicy().bad_keys.burst)
    async for guarded in guarded_server(redis_url, cache_s=60.0, bad_keys=slow):
        await made_up_keys_wait(guarded)


async def made_up_keys_wait(guarded: Guarded) -> None:
    stub = guarded.stub
    assert (await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=guarded.operator)).name
    codes = []
    for i in range(30):
        made_up = bearer(f"kfk_made_up_{i}")
        codes.append(await code_of(stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=made_up)))
    assert codes[:20] == [U] * 20  # the burst
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes[20:]
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer("kfk_one_more"))
    assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(error.value) == "RATE_LIMITED" and (retry_delay_ms(error.value) or 0) > 0
    # A key the server knows already (from its lookup cache) goes on working.
    assert (await stub.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=guarded.operator)).name
