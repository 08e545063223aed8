"""The unit and integration tiers stay honest (tests/support/tiers.py): every run guards its unit tests (none may
start a process, bind a socket or create a gRPC server), and the guard does catch an unmarked test that does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import tiers
from tests.support.cli import cli_environment
from tests.support.tiers import GUARD_VARIABLE, INTEGRATION

VIOLATION = re.compile(r"^(\S+) is a unit test \(not marked 'integration'\) but started a service", re.MULTILINE)

SAMPLE = '''
import socket
import subprocess
import sys

import grpc
import pytest


@pytest.fixture
def fresh_redis_server():
    return "a service fixture (by its name)"


def test_pure():
    assert sum([1, 2]) == 3


def test_spawns_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_listens():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()


def test_serves_grpc():
    server = grpc.server(None)
    server.stop(None)


def test_uses_a_service_fixture(fresh_redis_server):
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.integration
def test_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
'''


def _pytest(*args: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """pytest in a process of its own, the guard on, only the unit tier."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", f"not {INTEGRATION}",
                           "-rf", *args], cwd=cwd, env=cli_environment(**{GUARD_VARIABLE: "1"}), capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.integration
def test_the_guard_fails_an_unmarked_test_that_starts_a_service(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE))
    done = _pytest("-p", "tests.support.tiers", "--rootdir", str(tmp_path), "test_sample.py", cwd=tmp_path,
                   timeout=120)
    caught = set(VIOLATION.findall(done.stdout))
    assert caught == {f"test_sample.py::{name}" for name in ("test_spawns_a_process", "test_listens",
                                                              "test_serves_grpc")}, done.stdout + done.stderr
    assert "3 failed, 1 passed, 2 deselected" in done.stdout, done.stdout + done.stderr


def test_this_run_guards_its_unit_tests() -> None:
    """The guard is on in the run that runs the unit tests (the README's test command included), so an unmarked
    test that starts a service fails where it runs; no second run of the unit tier is needed."""
    assert os.environ.get(GUARD_VARIABLE) == "0" or tiers.guard_installed()
