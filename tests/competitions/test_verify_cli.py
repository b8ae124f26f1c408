"""`kafana verify` accepts a real record from a server and rejects a changed move or seed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from client.kafana_client_live import LiveServer
from kafana.cli import main
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment, seed_bytes
from kafana.competitions.local_runner import registry_bots
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.games.tablic import MatchRecord, new_match
from kafana_client import AsyncClient


@pytest.fixture
async def real_record(server: LiveServer) -> str:
    """The fair record of one game played on the server."""
    event = Tournament(EventConfig("v", Kind.ROUND_ROBIN, ("g", "h"), seed=99, target=31))
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, event, registry_bots({"g": "greedy", "h": "heuristic"}))
    (result,) = event.results.values()
    return result.record


def _verify(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "game.fair"
    path.write_text(text, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["verify", str(path)])
    return outcome.exit_code, outcome.output


def test_commitment_is_sha256_of_the_documented_bytes() -> None:
    import hashlib

    assert seed_bytes(7) == b"kafana-seed-v1:7"
    assert commitment(7) == hashlib.sha256(b"kafana-seed-v1:7").hexdigest()


async def test_accepts_a_real_record(real_record: str, tmp_path: Path) -> None:
    fair = FairRecord.from_text(real_record)
    assert fair.get("table")  # it came from a server table
    assert "\nseed 99" not in fair.record and fair.revealed is not None
    assert f"seed {fair.revealed}" in fair.record  # the server's own record names the seed
    code, output = _verify(tmp_path, real_record)
    assert code == 0, output
    assert "OK: seed" in output and "final scores" in output


async def test_rejects_a_changed_move(real_record: str, tmp_path: Path) -> None:
    fair = FairRecord.from_text(real_record)
    record = MatchRecord.from_text(fair.record)
    # replace move 5 with another move that is legal at that point
    state = new_match(record.rules, seed=record.seed, decks=record.decks or None)
    for move in record.moves[:4]:
        state = state.apply(move)
    other = next(m for m in state.legal_moves() if m != record.moves[4])
    lines = fair.record.splitlines()
    index = [i for i, line in enumerate(lines) if line.startswith("move ")][4]
    lines[index] = f"move {other}"
    changed = FairRecord(fair.commitment, fair.revealed, "\n".join(lines) + "\n", fair.meta)
    code, output = _verify(tmp_path, changed.to_text())
    assert code == 1 and "REJECTED" in output
    assert re.search(r"moves do not replay", output), output


async def test_rejects_a_changed_seed(real_record: str, tmp_path: Path) -> None:
    fair = FairRecord.from_text(real_record)
    assert fair.revealed is not None
    # a different revealed seed (record dealt from it too): the commitment gives it away
    other = fair.revealed + 1
    record = fair.record.replace(f"seed {fair.revealed}", f"seed {other}")
    changed = FairRecord(fair.commitment, other, record, fair.meta)
    code, output = _verify(tmp_path, changed.to_text())
    assert code == 1 and "does not match the commitment" in output
    # the right seed revealed, but the record dealt from another one
    changed = FairRecord(fair.commitment, fair.revealed, record, fair.meta)
    code, output = _verify(tmp_path, changed.to_text())
    assert code == 1 and "was dealt from seed" in output


def test_rejects_an_unrevealed_seed_and_a_changed_deck(tmp_path: Path) -> None:
    from kafana.games.tablic import Rules, shuffled_deck

    state = new_match(Rules(target=11), seed=3, decks=[shuffled_deck(3, 0)])
    while not state.is_over:
        state = state.apply(state.legal_moves()[-1])
    text = state.record().to_text()
    assert _verify(tmp_path, FairRecord(commitment(3), 3, text).to_text())[0] == 0
    assert (
        "not been revealed" in _verify(tmp_path, FairRecord(commitment(3), None, text).to_text())[1]
    )
    deck = " ".join(c.text for c in shuffled_deck(3, 0))
    swapped = deck.replace("AC", "@").replace("2C", "AC").replace("@", "2C")
    code, output = _verify(
        tmp_path, FairRecord(commitment(3), 3, text.replace(deck, swapped)).to_text()
    )
    assert code == 1 and "deck 0 of the record is not deal 0" in output
