"""A remote entrant: its bot runs as a separate process, `python -m kafana.cli bot run`.

The process joins its seat itself, plays, and exits when the match is over. If it exits
with an error before that, the seat is disconnected: the table's policy forfeits it or plays
its turns by default after the grace (`seats.gone`); a seat it never took has its table closed.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from kafana_client.aio import AsyncClient

from kafana.cli.runner.seats import gone
from kafana.competitions.policy import Fault, FaultPolicy

TOKEN = re.compile(r"seat (\d+) token (\S+)")


def command(
    spec: str, target: str, table_id: str, seat: int, name: str, seed: int, tls_ca: str = ""
) -> list[str]:
    """The remote bot runner's command line for one seat (`tls_ca`: the runner's PEM file)."""
    return [
        *(sys.executable, "-m", "kafana.cli", "bot", "run", spec),
        *("--server", target, "--table", table_id, "--seat", str(seat)),
        *("--name", name, "--seed", str(seed)),
        *(("--tls-ca", tls_ca) if tls_ca else ()),
    ]


async def remote_seat(
    client: AsyncClient,
    table_id: str,
    admin_token: str,
    seat: int,
    name: str,
    spec: str,
    seed: int,
    policy: FaultPolicy,
    notes: list[Fault],
) -> None:
    """Run the remote bot process for `seat` until it exits; if it failed, note it and leave
    the seat to the table's policy."""
    tls = client.options.tls
    ca = tls.root_certificates if tls is not None else None
    ca_file = str(ca) if isinstance(ca, str | Path) else ""  # the same PEM the runner trusts
    argv = command(spec, client.options.target, table_id, seat, name, seed, ca_file)
    env = None
    if client.options.key:  # the runner's API key, in the environment (never on argv)
        env = {**os.environ, "KAFANA_KEY": client.options.key}
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    _out, err = await process.communicate()
    if process.returncode == 0:
        return
    text = err.decode(errors="replace")
    seated = TOKEN.search(text) is not None  # it printed its seat's token once it took it
    detail = f"remote bot exited with {process.returncode}: {text.strip().splitlines()[-1:]}"
    await gone(client, table_id, seat, seated, detail, policy, notes, admin_token=admin_token)
