"""deploy/ holds what an operator applies: it must parse, and name only what Kafana has."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from kafana import metrics
from kafana.cli import main
from kafana.v1 import service_pb2
from kit import free_port, healthy, serving
from reliability.reliability_support import cluster_with_replicas

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


def _entrypoint() -> list[str]:
    """The image's `kafana serve` arguments (its ENTRYPOINT after `serve`)."""
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", "")
    found = re.search(r"^ENTRYPOINT (\[.*\])$", text, re.MULTILINE)
    assert found, "no ENTRYPOINT in the Dockerfile"
    words = json.loads(found.group(1))
    assert words[:2] == ["kafana", "serve"], words
    return list(words[2:])


def _localised(args: list[str]) -> list[str]:
    """`args` with this machine's addresses: loopback, free ports (the kit gives --port)."""
    out: list[str] = []
    pairs = iter(args)
    for word in pairs:
        if word in ("--host", "--port", "--http", "--metrics"):
            next(pairs)  # the container's value
            if word == "--host":
                out += [word, "127.0.0.1"]
            elif word != "--port":
                out += [word, str(free_port())]
        else:
            out.append(word)
    return out


def _manifest_env(name: str) -> tuple[dict[str, str], list[str]]:
    """The environment and the arguments the manifest `name` gives `kafana serve`."""
    if name == "compose":
        kafana = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["x-kafana"]
        return {k: str(v) for k, v in kafana["environment"].items()}, list(kafana["command"])
    docs = _documents(DEPLOY / "k8s" / "kafana.yaml")
    deployment = next(d for d in docs if isinstance(d, dict) and d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    return {e["name"]: str(e["value"]) for e in container["env"]}, list(container["args"])


def test_every_manifest_starts_kafana_serve(tmp_path: Path) -> None:
    """`kafana serve` with the image's arguments and each manifest's environment and
    arguments (Redis hosts replaced by a local 3+3 cluster) starts and says SERVING."""
    with cluster_with_replicas(tmp_path / "cluster") as (ports, _replicas):
        for name in ("compose", "k8s"):
            env, args = _manifest_env(name)
            assert env["KAFANA_REDIS"].startswith("redis+cluster://")
            env["KAFANA_REDIS"] = f"redis+cluster://127.0.0.1:{ports[0]}"
            argv = _localised([*_entrypoint(), *args])
            with serving(tmp_path / name, *argv, env=env) as (server,):
                server.wait_started()
                asyncio.run(healthy(server.target))
                out = server.output()
                assert "auth: required" in out, out
                assert "replica has it" in out, out  # --durability replicated took


def test_the_redis_of_every_manifest_fsyncs_every_write() -> None:
    """The promise of docs/reliability.md: appendfsync always wherever deploy/ runs Redis."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert "--appendfsync always" in " ".join(compose["x-redis"]["command"].split())
    cluster = _documents(DEPLOY / "k8s" / "redis-cluster.yaml")
    config = next(d for d in cluster if isinstance(d, dict) and d["kind"] == "ConfigMap")
    assert re.search(r"^appendfsync always$", config["data"]["redis.conf"], re.MULTILINE)
    assert re.search(r"^appendfsync always$", (DEPLOY / "redis.conf").read_text(), re.MULTILINE)
