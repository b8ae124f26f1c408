"""Clients show a table whose creator chose the deal: the terminal table and `kafana watch`."""

from __future__ import annotations

import asyncio

from click.testing import CliRunner
from kafana.cli import main
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_client.cli import render, tac_render
from kit import Service, admin_md
from rich.console import Console

NOTICE = "chose its deal"


def shown(panel: object) -> str:
    """What a rich renderable prints."""
    console = Console(record=True, width=140, highlight=False)
    console.print(panel)
    return console.export_text()


def spec(game: str, seed: int | None) -> rules_pb2.TableConfig:
    """A two-seat table of `game` ("tablic" or "tac")."""
    rules = rules_pb2.RulesSpec(game=rules_pb2.Game.Value(f"GAME_{game.upper()}"), players=2)
    cfg = rules_pb2.TableConfig(rules=rules, name="t")
    if seed is not None:
        cfg.seed = seed
    return cfg


async def joined_state(service: Service, cfg: rules_pb2.TableConfig) -> state_pb2.TableState:
    """The state a joiner of a new table gets."""
    created = await service.stub.CreateTable(service_pb2.CreateTableRequest(config=cfg))
    joined = await service.stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=created.table_id, seat=0, name="ana")
    )
    return joined.state


async def test_the_table_header_warns_of_a_chosen_deal(service: Service) -> None:
    for game, panel in (("tablic", render.table_panel), ("tac", tac_render.table_panel)):
        seeded = await joined_state(service, spec(game, 5))
        drawn = await joined_state(service, spec(game, None))
        assert NOTICE in shown(panel(seeded)), game
        assert NOTICE not in shown(panel(drawn)), game


async def test_kafana_watch_warns_of_a_chosen_deal(service: Service) -> None:
    stub = service.stub
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=spec("tablic", 9)))
    runner = CliRunner()
    args = ["watch", created.table_id, "--server", service.target]
    watching = asyncio.create_task(asyncio.to_thread(runner.invoke, main, args))
    await asyncio.sleep(1.0)
    await stub.CloseTable(
        service_pb2.CloseTableRequest(table_id=created.table_id),
        metadata=admin_md(created.admin_token),
    )
    result = await asyncio.wait_for(watching, 30)
    assert f"Watching table {created.table_id}" in result.output
    assert NOTICE in result.output
