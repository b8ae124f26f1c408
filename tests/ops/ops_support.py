"""Helpers of the operations tests: bot matches through the SDK that remember what each client
was told (moves acknowledged, hands seen, tokens), and `/metrics` scrapes of `kafana serve`."""

from __future__ import annotations

import asyncio
import random
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafana.games import tablic
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kafana_bots import registry
from kafana_client import AsyncClient, AsyncSeat, ConnectOptions, Retry, rules_of, table_config
from kafana_client.bots import run_bot
from kit import Served, free_port, serve
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
"""A scrape: the value of each (series name, labels)."""
BOTS = ("greedy", "random")
PATIENT = Retry(attempts=8, backoff=0.1, max_backoff=1.0, stream_attempts=200)
"""Client retries that wait out a process restart or a Redis outage of a few seconds."""


def scrape(port: int) -> Samples:
    """Every sample at http://127.0.0.1:port/metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of `name`'s samples whose labels include `labels` (0 when none)."""
    wanted = set(labels.items())
    return sum(v for (n, found), v in samples.items() if n == name and wanted <= found)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    """How much `name` (with `labels`) moved between two scrapes."""
    return value(after, name, **labels) - value(before, name, **labels)


@dataclass
class Metered:
    """A `kafana serve` process with `--metrics` on a free port."""

    served: Served
    metrics_port: int

    def scrape(self) -> Samples:
        """Its metrics now."""
        return scrape(self.metrics_port)


def serve_metered(directory: Path, *args: str, port: int | None = None) -> Metered:
    """`kafana serve --metrics <free port> ARGS`; the caller ends it (`.served.end()`)."""
    metrics_port = free_port()
    served = serve(directory, "--grace", "2", "--metrics", str(metrics_port), *args, port=port)
    return Metered(served, metrics_port)


@dataclass
class TellingSeat(AsyncSeat):
    """A seat that remembers every PlayMove answer (seq -> move) and every hand it was shown."""

    told: dict[int, str] = field(default_factory=dict)
    hands: set[tuple[str, ...]] = field(default_factory=set)
    duplicates: int = 0

    @staticmethod
    def of(seat: AsyncSeat) -> TellingSeat:
        """The same seat, telling."""
        return TellingSeat(
            seat.client, seat.table_id, seat.seat, seat.token, seat.name, seat.last_seq,
            seat.last_state,
        )  # fmt: skip

    def _seen(self, state: state_pb2.TableState) -> state_pb2.TableState:
        if len(state.tablic.hand) > 1:
            self.hands.add(tuple(state.tablic.hand))
        return super()._seen(state)

    async def play(self, move: Any, **options: Any) -> service_pb2.PlayMoveResponse:
        answer = await super().play(move, **options)
        seq, text = int(answer.event.seq), answer.event.move.text
        assert self.told.setdefault(seq, text) == text, (seq, text, self.told[seq])
        self.duplicates += answer.duplicate
        return answer


@dataclass
class BotMatch:
    """A table two SDK bots played to its end: what they were told, and its record."""

    table_id: str
    admin_token: str
    seats: list[TellingSeat]
    record: service_pb2.GetRecordResponse | None = None

    @property
    def told(self) -> dict[int, str]:
        """Every move acknowledged to a client, by sequence number."""
        merged: dict[int, str] = {}
        for seat in self.seats:
            for seq, text in seat.told.items():
                assert merged.setdefault(seq, text) == text
        return merged

    @property
    def recorded(self) -> dict[int, str]:
        """Every move of the record's events, by sequence number."""
        assert self.record is not None
        return {
            e.seq: e.move.text for e in self.record.events if e.kind == events_pb2.EVENT_KIND_MOVE
        }

    def check(self) -> None:
        """Nothing acknowledged lost, nothing applied twice: the record's moves are exactly
        the moves the clients were told, its seqs run 1, 2, 3..., and it replays to its end."""
        assert self.record is not None
        seqs = [e.seq for e in self.record.events]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        assert self.told == self.recorded
        replayed = tablic.MatchRecord.from_text(self.record.record)
        assert [str(m) for m in replayed.moves] == [self.recorded[s] for s in sorted(self.recorded)]
        final = replayed.replay()
        assert final.is_over and list(final.scores) == list(self.record.result.scores)

    @property
    def secrets(self) -> list[str]:
        """The seat and admin tokens, and the seed (revealed in the record only at the end)."""
        assert self.record is not None
        seed = tablic.MatchRecord.from_text(self.record.record).seed
        return [self.admin_token, *(s.token for s in self.seats), str(seed), f"{seed:x}"]


async def open_match(client: AsyncClient, seed: int) -> BotMatch:
    """A one-hand Tablić table (server-chosen seed) with both seats taken."""
    table = await client.create_table(table_config(target=1, name=f"ops-{seed}"))
    seats = [TellingSeat.of(await client.join(table.table_id, name=n)) for n in BOTS]
    return BotMatch(table.table_id, table.admin_token, seats)


async def play_match(
    match: BotMatch, seed: int, *, reconnects: int = 0, delay: float = 0.0
) -> BotMatch:
    """The bots play `match` to its end (resuming after `reconnects` failures in a row)."""
    client = match.seats[0].client
    info = await client.get_table(match.table_id)
    rules = rules_of(info)
    bots = [
        registry.create(name, seat=s.seat, rules=rules, rng=random.Random(seed * 7 + s.seat))
        for name, s in zip(BOTS, match.seats, strict=True)
    ]
    await asyncio.gather(
        *(
            run_bot(s, b, poll=0.3 if reconnects else None, reconnects=reconnects, delay=delay)
            for s, b in zip(match.seats, bots, strict=True)
        )
    )
    match.record = await client.record(match.table_id)
    return match


async def bot_matches(target: str, seeds: Sequence[int], *, delay: float = 0.0) -> list[BotMatch]:
    """One bot match per seed on `target`, played at once."""
    async with AsyncClient.connect(target) as client:
        matches = [await open_match(client, seed) for seed in seeds]
        return list(
            await asyncio.gather(
                *(play_match(m, s, delay=delay) for m, s in zip(matches, seeds, strict=True))
            )
        )


def connect(target: str, *, round_robin: bool = False) -> AsyncClient:
    """A patient SDK client of `target` ("ipv4:a:p1,a:p2" with `round_robin`: several)."""
    options = (("grpc.lb_policy_name", "round_robin"),) if round_robin else ()
    return AsyncClient(ConnectOptions(target, retry=PATIENT, channel_options=options))
