"""An embedded Redis dies with the process that started it (issue 38, item 12), seen from outside: `uno-arena serve
--embedded-redis` and a plain :class:`arena.store.embedded.RedisServer` owner, each a process of its own, are killed
with ``kill -9`` (no cleanup of theirs runs); their ``redis-server`` is gone soon after, and so is its temporary
data folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import wait_until
from tests.support.cli import REPO, cli_environment, spawn_cli
from tests.support.lines import Lines

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)

GONE_WITHIN_S = 60.0
"""A generous bound: the watchdog stops the server within about a second of its starter's end."""


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``: pid -> command name."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, _, rest = stat.partition("(")[2].rpartition(")")
        if int(rest.split()[1]) == pid:
            found[int(entry.name)] = name
    return found


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def _kill_and_expect_gone(starter: subprocess.Popen[str]) -> None:
    servers = wait_until(lambda: {pid for pid, name in _children(starter.pid).items() if name == "redis-server"},
                         60, "the starter's redis-server")
    (server,) = servers
    starter.send_signal(signal.SIGKILL)
    starter.wait(30)
    wait_until(lambda: _gone(server), GONE_WITHIN_S, f"redis-server {server} to end with its starter")


def test_serve_embedded_redis_dies_with_serve_killed_hard() -> None:
    serve = spawn_cli("serve", "--embedded-redis", "--insecure-no-admin-token", "--address", "127.0.0.1:0",
                      "--metrics-port", "-1")
    out = Lines(serve.stdout)
    err = Lines(serve.stderr)
    try:
        wait_until(lambda: out.count("listening on") or serve.poll() is not None, 60, "serve to listen",
                   details=err.text)
        assert serve.poll() is None, err.text()
        _kill_and_expect_gone(serve)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()


OWNER = """
import sys, time
from arena.store.embedded import RedisServer
server = RedisServer().start()
print(server.data_dir, flush=True)
time.sleep(600)
"""


def test_a_redis_server_owner_killed_hard_leaves_no_server_nor_folder() -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER], cwd=REPO, env=cli_environment(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = Lines(owner.stdout)
    try:
        wait_until(lambda: out.lines or owner.poll() is not None, 60, "the server to start")
        assert owner.poll() is None, owner.stderr.read() if owner.stderr else ""
        folder = Path(out.lines[0].strip())
        assert folder.is_dir()
        _kill_and_expect_gone(owner)
        wait_until(lambda: not folder.exists(), GONE_WITHIN_S, f"{folder} to be removed")
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()


def test_a_clean_stop_leaves_no_watchdog_behind() -> None:
    """The watchdog ends with the server it watches when its owner stops it (no process is left per server)."""
    from arena.store.embedded import RedisServer

    before = set(_children(os.getpid()))
    with RedisServer() as server:
        assert server.running
    assert set(_children(os.getpid())) - before == set()
