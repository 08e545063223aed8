"""Fixtures for the deploy tests: repository paths, YAML loading, promtool, the CLI contract."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CONTRACT_FILE = Path(__file__).with_name("cli_contract.json")


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def deploy_dir() -> Path:
    """The deploy/ folder."""
    return DEPLOY


@pytest.fixture(scope="session")
def contract() -> dict[str, Any]:
    """The CLI/environment contract that deploy/ relies on."""
    data: dict[str, Any] = json.loads(CONTRACT_FILE.read_text())
    return data


@pytest.fixture(scope="session")
def yaml_mod() -> Any:
    """PyYAML, or a skip naming it."""
    return pytest.importorskip("yaml", reason="PyYAML is needed to read deploy/ YAML (pip install pyyaml)")


@pytest.fixture(scope="session")
def load_yaml(yaml_mod: Any) -> Callable[[Path], Any]:
    """Load one YAML document."""

    def load(path: Path) -> Any:
        return yaml_mod.safe_load(path.read_text())

    return load


@pytest.fixture(scope="session")
def load_yaml_all(yaml_mod: Any) -> Callable[[Path], list[Any]]:
    """Load every (non-empty) document of a YAML stream."""

    def load(path: Path) -> list[Any]:
        return [d for d in yaml_mod.safe_load_all(path.read_text()) if d is not None]

    return load


@pytest.fixture(scope="session")
def compose(load_yaml: Callable[[Path], Any]) -> dict[str, Any]:
    """deploy/docker-compose.yml, parsed (YAML merge keys resolved)."""
    data: dict[str, Any] = load_yaml(DEPLOY / "docker-compose.yml")
    return data


@pytest.fixture(scope="session")
def k8s_docs(load_yaml_all: Callable[[Path], list[Any]]) -> list[dict[str, Any]]:
    """Every Kubernetes object of deploy/k8s/ (kustomization.yaml excluded)."""
    docs: list[dict[str, Any]] = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        if path.name != "kustomization.yaml":
            docs.extend(load_yaml_all(path))
    return docs


@pytest.fixture(scope="session")
def promtool() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run promtool (Debian: apt-get install prometheus), or skip when it is missing."""
    exe = shutil.which("promtool")
    if exe is None:
        pytest.skip(
            "promtool not found: install it with `apt-get install -y --no-install-recommends prometheus`"
        )

    def run(
        *args: str, stdin: str | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120, check=False
        )

    return run
