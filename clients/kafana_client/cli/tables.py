"""`kafana tables --server HOST:PORT`: the server's tables, newest first, one line each.

The listing pages through ListTables (`AsyncClient.tables`) until `--limit` tables are shown.
"""

from __future__ import annotations

import click
from kafana.v1 import state_pb2
from rich.console import Console

from kafana_client.aio import AsyncClient
from kafana_client.cli import interrupt
from kafana_client.cli.reach import TARGET, reached, server_options
from kafana_client.cli.render import rules_text
from kafana_client.cli.words import plural
from kafana_client.convert import word

STATUSES = {
    "open": state_pb2.TABLE_STATUS_OPEN,
    "playing": state_pb2.TABLE_STATUS_PLAYING,
    "finished": state_pb2.TABLE_STATUS_FINISHED,
}


def table_line(info: state_pb2.TableInfo) -> str:
    """`9f1c…  open     1/2 seats  Tablić serbian, 2 players, to 101  'worked example'`."""
    taken = sum(1 for seat in info.seats if seat.taken)
    status = word(state_pb2.TableStatus, info.status) or "?"
    name = f"  {info.name!r}" if info.name else ""
    seats = f"{taken}/{len(info.seats)} seats"
    return f"{info.table_id}  {status:<8} {seats:<10} {rules_text(info.rules)}{name}"


async def listed(
    client: AsyncClient, *, game: str, status: str, limit: int
) -> list[state_pb2.TableInfo]:
    """Up to `limit` tables, newest first (`status`: a key of STATUSES or "" for any)."""
    wanted = STATUSES.get(status, state_pb2.TABLE_STATUS_UNSPECIFIED)
    return await client.list_tables(game=game, status=wanted, limit=limit)


@click.command()
@click.option("--server", type=TARGET, required=True, help="HOST:PORT of the Kafana server.")
@server_options
@click.option("--game", type=click.Choice(["tablic", "tac"]), default=None, help="Only this game.")
@click.option(
    "--status", type=click.Choice(list(STATUSES)), default=None, help="Only tables in this state."
)
@click.option(
    "--limit", type=click.IntRange(1), default=50, show_default=True, help="Tables to show."
)
def tables(server: str, game: str | None, status: str | None, limit: int) -> None:
    """List the server's tables, newest first: id, status, seats taken, rules, name."""
    console = Console(highlight=False, soft_wrap=True)  # one line a table, even in a pipe

    async def main() -> None:
        async with reached(server) as client:
            found = await listed(client, game=game or "", status=status or "", limit=limit)
        for info in found:
            console.print(table_line(info), markup=False)
        console.print(f"{plural(len(found), 'table')} shown", style="dim")

    interrupt.run(main())
