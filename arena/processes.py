"""Child processes of the arena's own commands (gateway, workers, bots), for `demo`, benchmarks and tests.

Each child runs in its own process group with its output in a log file, so stopping it stops its children
too (a Celery worker's prefork pool) and a failure can show the tail of its log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def child_pids(pid: int) -> list[int]:
    """The ids of the processes whose parent is ``pid`` (from ``/proc``; empty where there is none)."""
    kids = []
    with contextlib.suppress(OSError):
        entries = os.listdir("/proc")
        for entry in entries:
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry))
    return sorted(kids)


def cli_argv() -> list[str]:
    """The `uno-arena` command as this interpreter runs it."""
    return [sys.executable, "-m", "arena.cli"]


@dataclass
class Processes:
    """Child processes in their own process groups, stopped in reverse order of start."""

    log_dir: Path
    children: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("wb")
        process = subprocess.Popen(list(argv), env=env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.children.append((name, process))
        return process

    def check_alive(self) -> None:
        for name, process in self.children:
            if process.poll() is not None:
                tail = (self.log_dir / f"{name}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{name} exited with code {process.returncode}:\n{tail}")

    def stop_all(self, grace_s: float = 10.0) -> None:
        stop_process_groups([process for _, process in reversed(self.children)], grace_s)


def stop_process_groups(processes: Sequence[subprocess.Popen[bytes]], grace_s: float = 10.0) -> None:
    """SIGTERM each process group (children started with `start_new_session`), SIGKILL what outlives `grace_s`."""
    for process in processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_until(check: Callable[[], object], what: str, processes: Processes, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        processes.check_alive()
        try:
            if check():
                return
        except Exception:  # not up yet: connection refused, UNAVAILABLE, ...
            pass
        time.sleep(0.2)
    raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")


