"""A fresh machine installs what was tested: every dependency pinned, with hashes, in one lock."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"


def _entries() -> list[tuple[str, str, Marker | None, int]]:
    """Each locked line: the package, its version, its marker, how many hashes it carries
    (a package may have one line per Python version)."""
    entries: list[tuple[str, str, Marker | None, int]] = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text()):
        head = block.split("\\", 1)[0].strip()
        if not head or head.startswith("#"):
            continue
        requirement = Requirement(head)
        (spec,) = requirement.specifier
        assert spec.operator == "==", head
        hashes = block.count("--hash=sha256:")
        name = canonicalize_name(requirement.name)
        entries.append((name, spec.version, requirement.marker, hashes))
    return entries


def _locked() -> dict[str, tuple[str, Marker | None, int]]:
    """Each locked package as this interpreter installs it: version, marker, hashes."""
    found: dict[str, tuple[str, Marker | None, int]] = {}
    for name, version, marker, hashes in _entries():
        if marker is None or marker.evaluate() or name not in found:
            found[name] = (version, marker, hashes)
    return found


def _declared() -> list[Requirement]:
    """What pyproject.toml and requirements/build.in ask for (build, server, dev)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = project["project"]["dependencies"] + project["project"]["optional-dependencies"]["dev"]
    names += project["build-system"]["requires"]
    build_in = (ROOT / "requirements" / "build.in").read_text().splitlines()
    names += [line for line in build_in if line.strip() and not line.startswith("#")]
    return [Requirement(name) for name in names]


def test_every_declared_dependency_is_locked_with_hashes() -> None:
    locked = _locked()
    assert len(locked) > 50
    for requirement in _declared():
        version, _, hashes = locked[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
        assert hashes >= 1, requirement.name
    assert all(hashes >= 1 for *_, hashes in _entries())


def test_this_environment_is_the_lock() -> None:
    # What `make venv` installed here is exactly what a fresh clone installs.
    wrong = {}
    for name, version, marker, _ in _entries():
        if marker is not None and not marker.evaluate():
            continue
        installed = metadata.version(name)
        if installed != version:
            wrong[name] = (installed, version)
    assert wrong == {}


def test_the_generator_is_the_version_the_generated_code_names() -> None:
    generated = (ROOT / "server/kafana/v1/service_pb2_grpc.py").read_text()
    (named,) = re.findall(r"GRPC_GENERATED_VERSION = '([^']+)'", generated)
    assert _locked()["grpcio-tools"][0] == named
    assert str(Requirement("grpcio-tools==" + named)) in {str(r) for r in _declared()}


def test_a_fresh_venv_installs_the_lock_and_builds_the_core_once() -> None:
    plan = subprocess.run(
        ["make", "-n", "--always-make", "venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installs = [line for line in plan.splitlines() if " pip install " in line]
    assert len(installs) == 3, installs
    assert "--require-hashes" in installs[0] and "requirements/uv.txt" in installs[0]
    assert "--require-hashes" in installs[1] and "requirements/lock.txt" in installs[1]
    assert "--no-build-isolation" in installs[2] and "--no-deps" in installs[2]
    assert all("--upgrade" not in line for line in installs)


def test_uv_is_installed_at_the_version_the_lock_pins() -> None:
    pinned = (ROOT / "requirements/uv.txt").read_text().split("\nuv==")[1].split()[0]
    assert _locked()["uv"][0] == pinned
