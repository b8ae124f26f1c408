"""`kafana watch TABLE`: follow a table live as a spectator (no hands are ever shown)."""

from __future__ import annotations

from pathlib import Path

import click
from kafana.v1 import events_pb2, state_pb2
from rich.console import Console

from kafana_client.aio import AsyncClient
from kafana_client.cli import interrupt, render, tac_render
from kafana_client.cli.paths import OUTPUT_FILE
from kafana_client.cli.reach import TARGET, reached, server_options
from kafana_client.cli.replay import names_comment
from kafana_client.convert import current_seat


async def follow(client: AsyncClient, table_id: str, console: Console, after_seq: int = 0) -> None:
    """Draw every event of the table from `after_seq` on, and the table after each move.

    Tač turns have many moves: its table is drawn when the turn passes (or on a call).
    """
    before: state_pb2.TableState | None = None
    async for event in client.watch(table_id, after_seq=after_seq, with_state=True):
        tac = event.state.WhichOneof("game") == "tac"
        draw = tac_render if tac else render
        for line in draw.event_lines(event, before, None):
            console.print(line)
        moved = event.kind == events_pb2.EVENT_KIND_MOVE and not event.match_over
        if moved and (not tac or _turn_passed(before, event.state)):
            console.print(draw.table_panel(event.state))
        before = event.state
        if event.match_over:
            console.print(draw.result_panel(event.state, None))
    if before is None:
        console.print("Nothing more will happen at this table: the match is over.")


def _turn_passed(before: state_pb2.TableState | None, after: state_pb2.TableState) -> bool:
    """Whether a Tač move handed the turn on (or was a call)."""
    if before is None or after.tac.last_step.move.text.startswith("call"):
        return True
    return current_seat(before) != current_seat(after)


@click.command()
@click.argument("table_id")
@click.option("--server", type=TARGET, required=True, help="HOST:PORT of the Kafana server.")
@server_options
@click.option("--from-seq", type=click.IntRange(0), default=0, help="Start after this event.")
@click.option(
    "--save",
    type=OUTPUT_FILE,
    default=None,
    help="Write the match record here when it ends (for `kafana replay`).",
)
def watch(table_id: str, server: str, from_seq: int, save: Path | None) -> None:
    """Watch TABLE_ID live as a spectator until the match ends (Ctrl-C stops: exit 130)."""
    console = Console(highlight=False)

    async def main() -> None:
        async with reached(server) as client:
            info = await client.get_table(table_id)
            console.print(f"Watching table {info.table_id} {info.name!r}: Ctrl-C to stop.")
            console.print(render.rules_text(info.rules), style="dim")
            notice = render.deal_notice(info)
            if notice is not None:
                console.print(notice)
            await follow(client, table_id, console, from_seq)
            if save is not None:
                names = render.seat_names(await client.get_table(table_id))
                save.write_text((await client.record(table_id)).record + names_comment(names))
                console.print(f"Record saved to {save}.")

    interrupt.run(main())  # Ctrl-C: the error boundary's `interrupted`, exit status 130
