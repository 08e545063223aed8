"""Every command that deploy/ runs is in cli_contract.json and parses with arena.cli.build_parser()."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.cli import build_parser
from tests.support.cli import subcommands

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CONTRACT = json.loads(Path(__file__).with_name("cli_contract.json").read_text())


def deploy_argvs() -> list[tuple[str, list[str]]]:
    """(where, argv) for every uno-arena command that compose, the Dockerfile and k8s run."""
    found: list[tuple[str, list[str]]] = []
    text = (DEPLOY / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (\[.*\])$", text, re.M)
    assert cmd, "Dockerfile has no exec-form CMD"
    found.append(("Dockerfile CMD", json.loads(cmd.group(1))))
    try:
        import yaml
    except ImportError:
        return found
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    for name, svc in compose["services"].items():
        if "build" in svc:
            found.append((f"compose service {name}", [str(a) for a in svc["command"]]))
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") in {"Deployment", "StatefulSet"}:
                pod = doc["spec"]["template"]["spec"]
                for c in [*pod.get("initContainers", []), *pod["containers"]]:
                    if c["image"].startswith("uno-arena"):
                        found.append((f"k8s {doc['metadata']['name']}", [str(a) for a in c["args"]]))
    return found


def contract_argvs() -> list[tuple[str, list[str]]]:
    """Each contract command bare, and with all its flags."""
    found: list[tuple[str, list[str]]] = []
    for command, flags in CONTRACT["commands"].items():
        found.append((f"contract {command}", [command]))
        if flags:
            argv = [command]
            for flag, sample in flags.items():
                argv += [flag, sample]
            found.append((f"contract {command} with flags", argv))
    return found


def test_deploy_runs_only_contract_commands_and_flags() -> None:
    argvs = deploy_argvs()
    pytest.importorskip("yaml", reason="PyYAML is needed to read compose and k8s commands")
    assert len(argvs) > 1
    for where, argv in argvs:
        command, *rest = argv
        assert command in CONTRACT["commands"], f"{where}: {command!r} is not in cli_contract.json"
        flags = [a for a in rest if a.startswith("--")]
        unknown = set(flags) - set(CONTRACT["commands"][command])
        assert not unknown, f"{where}: flags {unknown} are not in cli_contract.json"


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    built = build_parser()
    assert isinstance(built, argparse.ArgumentParser)
    return built


def _parse(parser: argparse.ArgumentParser, where: str, argv: list[str]) -> Any:
    assert argv[0] in subcommands(parser), f"{where} runs `uno-arena {argv[0]}`, which the CLI does not have"
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{where}: `uno-arena {' '.join(argv)}` does not parse (exit {exc.code})")


@pytest.mark.parametrize(("where", "argv"), deploy_argvs(), ids=lambda v: v if isinstance(v, str) else None)
def test_deploy_command_parses(parser: argparse.ArgumentParser, where: str, argv: list[str]) -> None:
    _parse(parser, where, argv)


@pytest.mark.parametrize(("where", "argv"), contract_argvs(), ids=lambda v: v if isinstance(v, str) else None)
def test_contract_command_parses(parser: argparse.ArgumentParser, where: str, argv: list[str]) -> None:
    _parse(parser, where, argv)
