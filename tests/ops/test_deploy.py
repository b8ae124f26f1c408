"""deploy/ holds what an operator applies: it must parse, and name only what Kafana has."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from kafana import metrics
from kafana.cli import main
from kafana.v1 import service_pb2

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SERVICE = service_pb2.DESCRIPTOR.services_by_name["KafanaService"].full_name
YAMLS = sorted(DEPLOY.rglob("*.yaml")) + sorted(DEPLOY.rglob("*.yml"))
DASHBOARD = DEPLOY / "grafana" / "kafana-dashboard.json"


def _documents(path: Path) -> list[object]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def _known_series() -> set[str]:
    """Every series name the registry exposes (counters with _total, histograms' _bucket...)."""
    names: set[str] = set()
    for family in metrics.REGISTRY.collect():
        names.add(family.name)
        for sample in family.samples:
            names.add(sample.name)
    names |= {f"{m}_total" for m in names}
    for family in metrics.REGISTRY.collect():
        if family.type == "histogram":
            names |= {f"{family.name}_{s}" for s in ("bucket", "sum", "count")}
    return names


def _queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    found = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    for group in yaml.safe_load((DEPLOY / "alerts.yml").read_text())["groups"]:
        found += [rule["expr"] for rule in group["rules"]]
    return found


@pytest.mark.parametrize("path", YAMLS, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_manifest_parses(path: Path) -> None:
    assert _documents(path), f"{path} is empty"


def test_the_dashboard_and_alerts_name_only_exported_series() -> None:
    known = _known_series()
    words = re.compile(r"\b(kafana_[a-z_]+|process_[a-z_]+)\b")
    used = {w for query in _queries() for w in words.findall(query)}
    assert used, "no metric referenced"
    assert not used - known, f"unknown series: {sorted(used - known)}"
    assert {"kafana_moves_applied_total", "kafana_rpc_calls_total"} <= used


def test_health_checks_ask_for_the_served_service() -> None:
    envoy = (DEPLOY / "envoy.yaml").read_text()
    assert f"service_name: {SERVICE}" in envoy
    kafana = _documents(DEPLOY / "k8s" / "kafana.yaml")
    deployment = next(d for d in kafana if isinstance(d, dict) and d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["grpc"]["service"] == SERVICE
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_the_image_and_compose_use_real_serve_options() -> None:
    help_text = CliRunner().invoke(main, ["serve", "--help"]).output
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    flags = set(re.findall(r'"(--[a-z-]+)"', dockerfile))
    flags |= {a for a in compose["x-kafana"]["command"] if a.startswith("--")}
    assert flags
    missing = {f for f in flags if f not in help_text}
    assert not missing, f"kafana serve has no {sorted(missing)}"
    assert {"KAFANA_REDIS", "KAFANA_AUTH"} <= set(compose["x-kafana"]["environment"])
