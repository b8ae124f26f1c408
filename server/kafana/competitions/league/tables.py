"""Table makers for the matchmaker: create a league match's table on a server via the SDK."""

from __future__ import annotations

from collections.abc import Sequence

from kafana_client import AsyncClient, table_config

from kafana.competitions.league.matchmaking import TableMaker


def sdk_tables(
    client: AsyncClient, *, league: str, preset: str = "serbian", target: int = 0, move_ms: int = 0
) -> TableMaker:
    """A `TableMaker` that creates each match's table on the server `client` talks to."""

    async def make(number: int, players: Sequence[str], seed: int) -> str:
        config = table_config(
            preset=preset,
            players=len(players),
            target=target,
            seed=seed,
            move_millis=move_ms,
            name=f"{league}/{number}: {' - '.join(players)}",
        )
        created = await client.create_table(config)
        return created.table_id

    return make
