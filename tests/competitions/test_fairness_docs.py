"""The worked verification in docs/competitions.md is what the code computes and prints."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from click.testing import CliRunner
from kafana.cli import main
from kafana.competitions.fairness import commitment, deal_seed

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "competitions.md"
EXAMPLE = "docs/examples/demo-cup-r1-g1.fair"


def section() -> str:
    """The doc's "Fair deals" section."""
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("## Fair deals\n") : text.index("\n## ", text.index("## Fair deals"))]


def value(name: str) -> str:
    found = re.search(rf"^    {name} +(\S+)$", section(), flags=re.MULTILINE)
    assert found is not None, name
    return found[1]


def test_the_secret_commitment_and_deal_seed_are_the_codes() -> None:
    secret = value("secret")
    assert commitment(secret) == value("commitment")
    assert deal_seed(secret) == int(value("deal seed"))
    text = section()
    sha_commit = hashlib.sha256(f"kafana-commit-v2:{secret}".encode()).hexdigest()
    sha_deal = hashlib.sha256(f"kafana-deal-v2:{secret}".encode()).hexdigest()[:16]
    assert f"    {sha_commit}  -\n" in text and f"    {sha_deal}\n" in text
    assert f'int("{sha_deal}", 16)' in text and f"    {int(sha_deal, 16)}\n" in text


def verify_output(path: str) -> tuple[int, str]:
    """`kafana verify PATH` run from the repository's root."""
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        outcome = CliRunner().invoke(main, ["verify", path])
    finally:
        os.chdir(here)
    return outcome.exit_code, outcome.output.strip()


def test_the_verify_runs_shown_are_what_it_prints(tmp_path: Path) -> None:
    text = section()
    code, output = verify_output(EXAMPLE)
    assert code == 0 and f"    $ kafana verify {EXAMPLE}\n    {output}\n" in text
    record = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    assert f"revealed {value('secret')}\n" in record
    assert f"commitment {value('commitment')}\n" in record
    ending = re.search(r"^meta ending score side (\d) won (\d+)-(\d+)$", record, re.MULTILINE)
    assert ending is not None
    side, a, b = ending.groups()
    claim = f"meta ending score side {1 - int(side)} won {a}-{b}"  # the winner's score first
    tampered = tmp_path / "tampered.fair"
    tampered.write_text(record.replace(ending[0], claim), encoding="utf-8")
    code, output = verify_output(str(tampered))
    assert code == 1
    shown = output.replace(str(tampered), "tampered.fair")
    assert f"    $ kafana verify tampered.fair\n    {shown}\n" in text
