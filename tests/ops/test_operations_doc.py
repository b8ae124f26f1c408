"""docs/operations.md names only what exists: series, `kafana serve` flags, tests, alerts."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from click.testing import CliRunner
from kafana import metrics
from kafana.cli import main

from .test_deploy import DEPLOY, _known_series

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "operations.md").read_text()


def test_every_series_it_names_is_exported() -> None:
    named = set(re.findall(r"`(kafana_[a-z_]+)`", DOC))
    assert {"kafana_moves_applied_total", "kafana_refusals_total", "kafana_tables"} <= named
    assert not named - _known_series(), sorted(named - _known_series())
    families = {family.name for family in metrics.REGISTRY.collect()}
    table = set(re.findall(r"^\| `(kafana_[a-z_]+)`", DOC, re.M))
    assert {name.removesuffix("_total") for name in table} <= families


def test_every_serve_flag_it_names_exists() -> None:
    help_text = CliRunner().invoke(main, ["serve", "--help"]).output
    flags = set(re.findall(r"`(?:kafana serve )?(--[a-z-]+)[^`]*`", DOC))
    assert {"--metrics", "--log-format", "--trace", "--max-streams"} <= flags
    assert not {f for f in flags if f not in help_text}


def test_every_test_and_alert_it_names_exists() -> None:
    tests = set(re.findall(r"`(tests/ops/[a-z_]+\.py)(?:::([a-z_]+))?`", DOC))
    assert tests
    for path, name in tests:
        text = (ROOT / path).read_text()
        assert not name or f"def {name}(" in text, (path, name)
    alerts = {
        rule["alert"]
        for group in yaml.safe_load((DEPLOY / "alerts.yml").read_text())["groups"]
        for rule in group["rules"]
    }
    documented = set(re.findall(r"^\| `(Kafana[A-Za-z]+)` \|", DOC, re.M))
    assert documented == alerts
