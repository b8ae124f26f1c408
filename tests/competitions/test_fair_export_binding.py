"""`kafana verify --server` holds an event's export to what the server published.

A fair record's meta lines (event, game, seats) are not covered by its commitment, so an
export edited consistently (field and meta line alike) passed every check on its own: two
players' names swapped in one game (which hands the win to the other), a game deleted, the
event renamed. Against the server's `GetEvent` each is refused.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner, Result
from kafana.cli import main
from kafana.competitions.hosted.convert import published_of
from kafana.competitions.verify import VerificationError
from kafana.competitions.verify_export import Checked, verify_export
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, until


def swap_names(lines: list[dict[str, object]], index: int) -> list[dict[str, object]]:
    """The export with the two players of game `index` swapped, field and record alike."""
    out = [dict(line) for line in lines]
    line = out[index]
    seats = list(line["seats"])  # type: ignore[call-overload]
    line["seats"] = seats[::-1]
    record = str(line["record"])
    line["record"] = record.replace(
        f"meta seats {' '.join(seats)}", f"meta seats {' '.join(seats[::-1])}"
    )
    assert line["record"] != record
    return out


def rename(lines: list[dict[str, object]], name: str) -> list[dict[str, object]]:
    """The export of the same games under another event name, field and record alike."""
    out = []
    for line in lines:
        old = str(line["event"])
        out.append(dict(line, event=name, record=str(line["record"]).replace(
            f"meta event {old}\n", f"meta event {name}\n")))  # fmt: skip
    return out


def text(lines: list[dict[str, object]]) -> str:
    return "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)


def refusals(export: str, info: pb.EventInfo | None = None) -> list[str]:
    """Every refusal of `verify_export` (offline, or against the published `info`)."""
    published = published_of(info) if info is not None else None
    return [str(x) for x in verify_export(export, published) if isinstance(x, VerificationError)]


async def verify_cli(*args: str) -> Result:
    """`kafana verify ARGS` in a thread (it runs its own event loop for --server)."""
    return await asyncio.to_thread(CliRunner().invoke, main, ["verify", *args])


async def test_verify_binds_an_export_to_what_the_server_published(
    hosted: Served, tmp_path: Path
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("bound", "round_robin", target=11)
        for name in ("ana", "bob", "cid"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
        )
        public = await events.get(made.event_id)  # what anyone sees, no records
        export = info.exports["records.jsonl"]
        lines = [json.loads(line) for line in export.splitlines()]
        assert len(lines) == 3 and {line["event_id"] for line in lines} == {made.event_id}
        assert refusals(export) == [] and refusals(export, public) == []

        swapped = text(swap_names(lines, 1))
        deleted = text(lines[:1] + lines[2:])
        renamed = text(rename(lines, "other-cup"))
        for tampered in (swapped, deleted, renamed):  # each passes every offline check
            assert all(isinstance(x, Checked) for x in verify_export(tampered))
        game = lines[1]["game"]
        assert refusals(swapped, public) == [
            f"line 2: field seats is {json.dumps(lines[1]['seats'][::-1])} but the server "
            f"published {json.dumps(lines[1]['seats'])} for game {game}"
        ]
        assert refusals(deleted, public) == [
            f"game {game} of {made.event_id} (published by the server) is not in the export"
        ]
        found = refusals(renamed, public)
        assert len(found) == 3 and all("but the server published event" in f for f in found)

        for name, body, why in (
            ("good", export, None),
            ("swapped", swapped, "field seats"),
            ("deleted", deleted, "is not in the export"),
            ("renamed", renamed, "'other-cup', but the server published event"),
        ):
            path = tmp_path / f"{name}.jsonl"
            path.write_text(body, encoding="utf-8")
            offline = await verify_cli(str(path))
            assert offline.exit_code == 0, offline.output
            bound = await verify_cli(str(path), "--server", hosted.target)
            if why is None:
                assert bound.exit_code == 0 and bound.output.count(": OK: ") == 3, bound.output
            else:
                assert bound.exit_code == 1 and "REJECTED" in bound.output, bound.output
                assert why in bound.output, bound.output
        # an export without event ids (a local run's) needs the event named
        bare = tmp_path / "bare.jsonl"
        bare.write_text(text([{k: v for k, v in x.items() if k != "event_id"} for x in lines]))
        refused = await verify_cli(str(bare), "--server", hosted.target)
        assert refused.exit_code == 2 and "give --event EVENT" in refused.output
        named = await verify_cli(str(bare), "--server", hosted.target, "--event", made.event_id)
        assert named.exit_code == 0, named.output
        unknown = await verify_cli(str(bare), "--server", hosted.target, "--event", "ev-0")
        assert unknown.exit_code == 1 and "no event 'ev-0'" in unknown.output, unknown.output
        assert "REJECTED" not in unknown.output  # the server's answer, not the export's fault
