"""Helpers of the hosted-event tests: entrants that play through the SDK."""

from __future__ import annotations

import asyncio
import io
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import state_pb2
from kafana_bots import registry
from kafana_client import AsyncClient, AsyncSeat
from kafana_client.aio import LegalMoves
from kafana_client.bots import run_bot
from kafana_client.cli.session import PersonAtTable
from kafana_client.convert import rules_of
from kafana_client.errors import ResourceExhaustedError
from kafana_client.seat_loop import Decision, Hooks, follow_seat
from kafana_client.tournaments import SeatPlayer, play_entry
from kit import free_port
from rich.console import Console


class FirstMove(Hooks):
    """Default moves: the first legal move (a trail when it has one)."""

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        """The first of the legal moves."""
        return legal.moves[0].text


async def follow(seat: AsyncSeat) -> None:
    """Play the seat's default moves to the end of the match."""
    await follow_seat(seat, FirstMove())


def bot_player(client: AsyncClient, bot: str = "greedy") -> SeatPlayer:
    """A remote bot: each assigned seat played by a registry bot through the SDK."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        rules = rules_of(await client.get_table(a.table_id))
        made = registry.create(bot, seat=a.seat, rules=rules, rng=random.Random(a.game_id))
        try:
            return await run_bot(seat, made)
        except ResourceExhaustedError:  # too many captures to list: trail from here on
            await follow(seat)
            return None

    return play


def person_player(screen: io.StringIO) -> SeatPlayer:
    """A person at the terminal session of `kafana play`, who always answers "1"."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        console = Console(file=screen, width=100)
        try:
            return await PersonAtTable(seat, console, ask=lambda prompt: "1").play()
        except ResourceExhaustedError:  # too many captures to list: trail from here on
            await follow(seat)
            return None

    return play


async def entry_task(
    client: AsyncClient, event_id: str, token: str, play: SeatPlayer
) -> asyncio.Task[pb.EntryUpdate]:
    """Play an entry in the background until the event is over."""
    return asyncio.create_task(play_entry(client, event_id, token, play))


KAFANA = str(Path(sys.executable).parent / "kafana")


@dataclass
class Served:
    """A `kafana serve` process (it hosts and directs the events) on a free loopback port."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def target(self) -> str:
        """host:port to connect to."""
        return f"127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM (graceful: leases released) or SIGKILL (a crash: leases expire)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)


@contextmanager
def served(redis_url: str, *options: str) -> Iterator[Served]:
    """Run `kafana serve --redis URL [options]` (one event loop, as in production) until the
    block ends.

    The hosted tests use a real process rather than a server on a thread of the test process:
    grpc.aio servers and clients on two event loops of one process lost wakeups under load.
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    log = Path(tempfile.mkstemp(prefix="kafana-serve-", suffix=".log")[1])
    with log.open("wb") as out:
        process = subprocess.Popen(
            [KAFANA, "serve", "--redis", redis_url, "--port", str(port), *options],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    running = Served(process, port, log)
    try:
        deadline = time.monotonic() + 30
        while b"serving on port" not in log.read_bytes():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "kafana serve did not start"
            time.sleep(0.05)
        yield running
    except BaseException:  # show what the server logged (the director's warnings) on failure
        print(log.read_text(errors="replace")[-20_000:], file=sys.stderr)
        raise
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.unlink(missing_ok=True)
