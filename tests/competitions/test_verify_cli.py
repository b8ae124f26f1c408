"""`kafana verify` on a real server's record and an event's export: every tampering refused.

A game is played on a real server over the test kit's Redis, its record read with GetRecord and
wrapped as the event runners wrap it; the export is `exports.records_jsonl` of the event.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from kafana.cli import main
from kafana.competitions import exports
from kafana.competitions.envelope import FairRecord
from kafana.competitions.fairness import commitment, deal_seed
from kafana.competitions.model import Ending, GameResult
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kit import Service, seat_md


@dataclass
class Played:
    """An event of one game played on the server, and the game's fair record."""

    tournament: Tournament
    fair: FairRecord


async def play(service: Service, config: rules_pb2.TableConfig, names: tuple[str, ...]) -> str:
    """Create a table, seat `names`, play random legal moves to the end; the table id."""
    stub = service.stub
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    table_id = created.table_id
    tokens = []
    for seat, name in enumerate(names):
        joined = await stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=table_id, seat=seat, name=name)
        )
        tokens.append(joined.seat_token)
    rng = random.Random(1)
    while True:
        state = await stub.GetState(
            service_pb2.GetStateRequest(table_id=table_id), metadata=seat_md(tokens[0])
        )
        if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
            return table_id
        token = tokens[state.current_seat]
        legal = await stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
        )
        move = rng.choice(list(legal.moves))
        await stub.PlayMove(
            service_pb2.PlayMoveRequest(
                table_id=table_id, move=move, client_move_id=uuid.uuid4().hex, last_seq=legal.seq
            ),
            metadata=seat_md(token),
        )


@pytest.fixture
async def played(service: Service) -> Played:
    """A one-game event (to 11) played on the server; its result recorded with the record."""
    event = Tournament(EventConfig("cup", Kind.ROUND_ROBIN, ("ana", "bo"), target=11))
    (spec,) = event.next_round()
    secret = event.secret_of(spec.game_id)
    config = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(
            game=rules_pb2.GAME_TABLIC,
            players=2,
            tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN, target=11),
        ),
        seed=deal_seed(secret),
        name=f"cup/{spec.game_id}",
    )
    table_id = await play(service, config, spec.seats)
    answer = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=table_id))
    result = answer.result
    winner = result.winner_side if len(set(result.scores)) > 1 else None
    fair = FairRecord(
        commitment(secret),
        secret,
        answer.record,
        (
            ("event", "cup"),
            ("game", spec.game_id),
            ("table", table_id),
            ("seats", " ".join(spec.seats)),
            ("ending", f"score {result.detail}"),
        ),
    )
    scores = tuple(result.scores)
    event.record(
        GameResult(spec.game_id, scores, winner, Ending.SCORE, (), fair.to_text(), table_id)
    )
    return Played(event, fair)


def run(tmp_path: Path, text: str, name: str = "game.fair") -> tuple[int, str]:
    """`kafana verify` on a file holding `text`: exit code and output."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["verify", str(path)])
    return outcome.exit_code, outcome.output


def test_accepts_a_real_record(played: Played, tmp_path: Path) -> None:
    code, output = run(tmp_path, played.fair.to_text())
    assert code == 0, output
    assert "OK: tablic, " in output and "the secret matches its commitment" in output
    assert f"deal seed {deal_seed(played.fair.revealed or '')}" in output
    assert "final scores" in output


def test_rejects_a_changed_seed_or_secret(played: Played, tmp_path: Path) -> None:
    fair = played.fair
    seed = deal_seed(fair.revealed or "")
    other = FairRecord(fair.commitment, "ab" * 32, fair.record, fair.meta)
    code, output = run(tmp_path, other.to_text())
    assert code == 1 and "REJECTED: the revealed secret does not match the commitment" in output
    moved = fair.record.replace(f"seed {seed}\n", f"seed {seed + 1}\n")
    code, output = run(
        tmp_path, FairRecord(fair.commitment, fair.revealed, moved, fair.meta).to_text()
    )
    assert code == 1 and "was dealt from seed" in output


def test_rejects_a_changed_meta_line(played: Played, tmp_path: Path) -> None:
    text = played.fair.to_text()
    for old, new, message in [
        ("meta ending score side", "meta ending forfeit side", "forfeit"),
        ("meta seats ana bo", "meta seats mallory bo", None),
        ("meta ending score ", "meta ending score x", "the moves give"),
        ("meta event cup", "meta prize cup", "unknown meta key 'prize'"),
    ]:
        old = old if old in text else old.replace("ana bo", "bo ana")
        changed = text.replace(old, new, 1)
        assert changed != text
        code, output = run(tmp_path, changed)
        if message is None:  # a seat line alone is only checked against the export
            continue
        assert code == 1 and message in output, (old, output)


def test_a_usage_error_exits_2_in_one_line(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["verify", str(tmp_path / "missing.fair")])
    assert outcome.exit_code == 2
    assert outcome.output.strip().count("\n") == 0 and "cannot read" in outcome.output
    assert "Traceback" not in outcome.output
    code, output = run(tmp_path, "kafana-fair-record 1\ncommitment 00\nrecord\n")
    assert code == 1 and "version 1 fair record" in output


def export(played: Played) -> dict[str, object]:
    """The export's one line, as JSON."""
    (line,) = exports.records_jsonl(played.tournament).splitlines()
    item: dict[str, object] = json.loads(line)
    return item


def test_accepts_the_export_and_refuses_every_changed_field(played: Played, tmp_path: Path) -> None:
    item = export(played)
    code, output = run(tmp_path, json.dumps(item) + "\n", "records.jsonl")
    assert code == 0, output
    assert "r1-g1: OK: tablic" in output
    fair = played.fair
    seats = list(item["seats"])  # type: ignore[call-overload]
    winner = item["winner"]
    changes: list[tuple[str, object, str]] = [
        ("scores", [99, 0], "field scores"),
        ("seats", seats[::-1], "field seats"),
        ("seats", ["mallory", seats[1]], "field seats"),
        ("winner", None if winner is not None else 0, "field winner"),
        ("commitment", commitment("cd" * 32), "field commitment"),
        ("faults", ["seat0:timeout->default_move@0"], "field faults"),
        ("event", "other-cup", "field event"),
        ("game", "r1-g2", "field game"),
        ("table", "0123456789abcdef", "field table"),
        ("round", 2, "field round"),
        ("prize", 100, "unknown field(s) 'prize'"),
        ("ending", "forfeit", "field ending"),
    ]
    for name, value, message in changes:
        changed = {**item, name: value}
        code, output = run(tmp_path, json.dumps(changed) + "\n", "records.jsonl")
        assert code == 1 and message in output, (name, output)
    # the meta ending changed inside the record: refused by the record's own check
    text = fair.to_text().replace("meta ending score", "meta ending not_played", 1)
    code, output = run(tmp_path, json.dumps({**item, "record": text}) + "\n", "records.jsonl")
    assert code == 1 and "line 1: field record: meta ending is not_played" in output
    del item["note"]
    code, output = run(tmp_path, json.dumps(item) + "\n", "records.jsonl")
    assert code == 1 and "missing field(s) note" in output
