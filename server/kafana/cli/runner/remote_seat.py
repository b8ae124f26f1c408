"""A remote entrant: its bot runs as a separate process, `python -m kafana.cli bot run`.

The process joins its seat itself, plays, and exits when the match is over. If it exits
with an error before that, the seat is disconnected: after the policy's grace period the
runner (which learnt the seat's token from the process) forfeits or plays default moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys

from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.errors import RpcError

from kafana.cli.runner.seats import Fallback, table_over
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.games.tablic import Rules

TOKEN = re.compile(r"seat (\d+) token (\S+)")


def command(spec: str, target: str, table_id: str, seat: int, name: str, seed: int) -> list[str]:
    """The remote bot runner's command line for one seat."""
    return [
        *(sys.executable, "-m", "kafana.cli", "bot", "run", spec),
        *("--server", target, "--table", table_id, "--seat", str(seat)),
        *("--name", name, "--seed", str(seed)),
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
    rules: Rules,
    notes: list[Fault],
) -> None:
    """Run the remote bot process for `seat` until it exits; apply the policy if it failed."""
    argv = command(spec, client.options.target, table_id, seat, name, seed)
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _out, err = await process.communicate()
    if process.returncode == 0:
        return
    text = err.decode(errors="replace")
    found = TOKEN.search(text)
    if await table_over(client, table_id):
        return  # the table ended first (the other seat, the organiser): not this bot's fault
    detail = f"remote bot exited with {process.returncode}: {text.strip().splitlines()[-1:]}"
    await asyncio.sleep(policy.disconnect_grace_ms / 1000)
    action = policy.action(Reason.DISCONNECT)
    notes.append(Fault(seat, Reason.DISCONNECT, action, -1, detail))
    if found is None:  # it never held the seat: end the table, nobody can play it
        with contextlib.suppress(RpcError):
            await client.close_table(table_id, admin_token)
        return
    held = AsyncSeat(client, table_id, int(found.group(1)), found.group(2), name)
    with contextlib.suppress(RpcError):
        if action is Action.FORFEIT_MATCH:
            await held.leave()
        else:
            await run_bot(held, Fallback(seat, rules, random.Random(0)))
