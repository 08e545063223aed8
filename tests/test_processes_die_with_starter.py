"""The children of :class:`arena.processes.Processes` (the demo's gateway, worker, scheduler, host, web and bots)
die with the process that started them when it is killed with ``kill -9`` (issue 38, follow-up of item 12), seen
from outside: a starter process of its own starts a small group (a child that starts a grandchild in its own process
group, and a child that ignores SIGTERM), prints their ids, and is killed hard; every one of them is gone soon
after. A clean ``stop_all`` leaves no watchdog behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.support import wait_until
from tests.support.cli import REPO, cli_environment
from tests.support.lines import Lines

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)

GONE_WITHIN_S = 90.0
"""A generous bound: the watchdog stops a group within about a second, SIGKILL after its 10 s grace."""

PARENT_OF_A_GRANDCHILD = """
import subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(grandchild.pid, flush=True)
time.sleep(600)
"""

DEAF_TO_SIGTERM = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(600)
"""

STARTER = """
import sys, time
from pathlib import Path
from arena.processes import Processes

processes = Processes(Path(sys.argv[1]))
parent = processes.start("parent", [sys.executable, "-c", sys.argv[2]], {})
deaf = processes.start("deaf", [sys.executable, "-c", sys.argv[3]], {})
print(parent.pid, deaf.pid, flush=True)
time.sleep(600)
"""


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def _grandchild_of(log: Path) -> int | None:
    text = log.read_text() if log.exists() else ""
    return int(text.split()[0]) if text.strip() else None


def test_every_child_and_grandchild_dies_with_a_starter_killed_hard(tmp_path: Path) -> None:
    starter = subprocess.Popen([sys.executable, "-c", STARTER, str(tmp_path), PARENT_OF_A_GRANDCHILD,
                                DEAF_TO_SIGTERM], cwd=REPO, env=cli_environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out = Lines(starter.stdout)
    pids: list[int] = []
    try:
        wait_until(lambda: out.lines or starter.poll() is not None, 60, "the starter to start its children")
        assert starter.poll() is None, starter.stderr.read() if starter.stderr else ""
        parent, deaf = (int(word) for word in out.lines[0].split())
        grandchild: int = wait_until(lambda: _grandchild_of(tmp_path / "parent.log") or 0, 60,
                                     "the grandchild to start")
        pids = [parent, deaf, grandchild]
        assert not any(_gone(pid) for pid in pids)
        starter.send_signal(signal.SIGKILL)
        starter.wait(30)
        for pid, what in zip(pids, ("a child", "a child deaf to SIGTERM", "a grandchild"), strict=True):
            wait_until(partial(_gone, pid), GONE_WITHIN_S, f"{what} ({pid}) to end with its starter")
    finally:
        if starter.poll() is None:
            starter.kill()
            starter.wait()
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_clean_stop_leaves_no_watchdog_behind(tmp_path: Path) -> None:
    from arena.processes import Processes
    from benchmarks.procfs import child_pids

    before = set(child_pids(os.getpid()))
    processes = Processes(tmp_path)
    processes.start("sleeper", [sys.executable, "-c", "import time; time.sleep(600)"], {})
    assert len(set(child_pids(os.getpid())) - before) == 2  # the child and its watchdog
    processes.stop_all()
    assert set(child_pids(os.getpid())) - before == set()
