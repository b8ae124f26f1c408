"""ListTables (AIP-158): pages of tables, newest first, filtered, with opaque page tokens."""

from __future__ import annotations

import asyncio
import time

import grpc
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_play import config
from kit import Service, reason_of, refusal

TAC = rules_pb2.TableConfig(
    rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=2), seed=3, name="tac"
)


async def create_many(svc: Service, count: int, cfg: rules_pb2.TableConfig) -> list[str]:
    """`count` tables made in-process (no RPC each: the fast path), in the listing's order
    reversed: by creation time, those of one millisecond by id."""
    made = []
    for _ in range(count):
        table_id, _admin, session = await svc.server.tables.create(cfg)
        made.append((session.stored.created_ms, table_id))
    return [table_id for _, table_id in sorted(made)]


async def page(
    svc: Service, size: int = 0, token: str = "", **filters: int
) -> service_pb2.ListTablesResponse:
    return await svc.stub.ListTables(
        service_pb2.ListTablesRequest(page_size=size, page_token=token, **filters)  # type: ignore[arg-type]
    )


async def test_pages_through_over_500_tables_while_more_are_made(service: Service) -> None:
    old = await create_many(service, 530, config(seed=1))
    first = await page(service)
    assert len(first.tables) == 50 and first.next_page_token  # 0: the default page size
    assert [t.table_id for t in first.tables] == old[::-1][:50]  # newest first
    biggest = await page(service, size=100_000)
    assert len(biggest.tables) == 500 and biggest.next_page_token  # coerced down to 500

    listed: list[str] = []
    token = ""
    made_meanwhile: list[str] = []
    started = time.monotonic()
    while True:
        answer = await page(service, 120, token)
        listed += [t.table_id for t in answer.tables]
        made_meanwhile += await create_many(service, 7, config(seed=2))  # newer: not listed
        token = answer.next_page_token
        if not token:
            break
    assert len(listed) == len(set(listed)) == len(old)  # no duplicates, no gaps
    assert listed == old[::-1]
    assert not set(made_meanwhile) & set(listed)
    assert time.monotonic() - started < 60

    newest = await page(service, 7)
    assert len(newest.tables) == 7 and {t.table_id for t in newest.tables} <= set(made_meanwhile)


async def test_filters_by_game_and_status(service: Service) -> None:
    tablic_ids = await create_many(service, 5, config(seed=4))
    tac_ids = await create_many(service, 3, TAC)
    playing = tablic_ids[1]
    for seat in (0, 1):
        await service.server.tables.join(playing, seat, f"p{seat}")
    tac = await page(service, 2, game=rules_pb2.GAME_TAC)
    assert [t.table_id for t in tac.tables] == tac_ids[::-1][:2] and tac.next_page_token
    rest = await page(service, 2, tac.next_page_token, game=rules_pb2.GAME_TAC)
    assert [t.table_id for t in rest.tables] == tac_ids[:1] and not rest.next_page_token
    assert all(t.rules.game == rules_pb2.GAME_TAC for t in tac.tables)
    tablic = await page(service, 50, game=rules_pb2.GAME_TABLIC)
    assert [t.table_id for t in tablic.tables] == tablic_ids[::-1]
    open_tablic = await page(
        service, 50, game=rules_pb2.GAME_TABLIC, status=state_pb2.TABLE_STATUS_OPEN
    )
    assert [t.table_id for t in open_tablic.tables] == [t for t in tablic_ids[::-1] if t != playing]
    running = await page(service, status=state_pb2.TABLE_STATUS_PLAYING)
    assert [t.table_id for t in running.tables] == [playing]
    assert running.tables[0].status == state_pb2.TABLE_STATUS_PLAYING
    everything = await page(service)
    assert len(everything.tables) == 8 and not everything.next_page_token


async def test_a_rare_filter_pages_without_scanning_everything(service: Service) -> None:
    """Each call looks at a bounded number of tables: a filter matching one table in 300
    gives short (even empty) pages with a token to go on, and still finds it."""
    (tac_id,) = await create_many(service, 1, TAC)
    await create_many(service, 300, config(seed=5))
    found: list[str] = []
    token = ""
    calls = 0
    while True:
        answer = await page(service, 10, token, game=rules_pb2.GAME_TAC)
        calls += 1
        found += [t.table_id for t in answer.tables]
        token = answer.next_page_token
        if not token:
            break
    assert found == [tac_id] and calls >= 3


async def test_page_tokens_are_checked(service: Service) -> None:
    await create_many(service, 3, config(seed=6))
    first = await page(service, 1, status=state_pb2.TABLE_STATUS_OPEN)
    assert first.next_page_token
    for token, other in [
        ("garbage!", {"status": state_pb2.TABLE_STATUS_OPEN}),
        ("eyJub3QiOiAiYSBjdXJzb3IifQ", {"status": state_pb2.TABLE_STATUS_OPEN}),
        (first.next_page_token, {}),  # the token of another filter
        (first.next_page_token, {"game": rules_pb2.GAME_TAC, "status": 1}),
    ]:
        error = await refusal(page(service, 1, token, **other))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, token
        assert reason_of(error) == "INVALID_PAGE_TOKEN"
    second = await page(service, 1, first.next_page_token, status=state_pb2.TABLE_STATUS_OPEN)
    assert second.tables[0].table_id != first.tables[0].table_id


async def test_listing_while_tables_are_made_concurrently(service: Service) -> None:
    """Tables made during the paging (by other callers, at once) never shift the pages."""
    old = await create_many(service, 150, config(seed=7))
    maker = asyncio.create_task(create_many(service, 100, config(seed=8)))
    listed: list[str] = []
    answer = await page(service, 20)
    start = [t.table_id for t in answer.tables]
    listed += start
    while answer.next_page_token:
        answer = await page(service, 20, answer.next_page_token)
        listed += [t.table_id for t in answer.tables]
    newer = await maker
    assert len(listed) == len(set(listed))
    assert set(old) <= set(listed) and set(listed) <= set(old) | set(newer)
