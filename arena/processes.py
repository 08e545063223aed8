"""Child processes of the arena's own commands (gateway, workers, bots), for `demo`, benchmarks and tests: each in
its own process group (stopping it stops its children too) with its output in a log file, and each dies with the
process that started it however that one ends (``kill -9`` included): a watchdog (:func:`watch_child`) holds a pipe
only the starter writes to and stops the child's process group when the pipe closes.
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
        return int(sock.getsockname()[1])


WATCHDOG_SCRIPT = Path(__file__).parent / "store" / "starter_watch.py"
"""The watchdog (:mod:`arena.store.starter_watch`), run by path: it imports nothing, so it starts in milliseconds."""


@dataclass
class Watchdog:
    """A running watchdog of one child and the write end of its pipe (held by this process only)."""

    process: subprocess.Popen[bytes]
    pipe: int | None

    def release(self, timeout_s: float = 10.0) -> None:
        """The child ended (stopped by us): close our end of the pipe and reap the watchdog, which exits by itself
        once its child is gone."""
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def watch_child(pid: int, *, group: bool = True, folder: str | None = None) -> Watchdog:
    """Start the watchdog that stops ``pid`` (with ``group``: the process group it leads) and removes ``folder``
    when this process ends in any way, ``kill -9`` included (:mod:`arena.store.starter_watch`)."""
    read_end, write_end = os.pipe()  # both close on exec: no other program started from here holds them
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(WATCHDOG_SCRIPT), *(["--group"] if group else []), str(pid),
             *([folder] if folder else [])],
            stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # a Ctrl-C in the terminal is ours to handle, not the watchdog's
    except OSError:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return Watchdog(process, write_end)


def cli_argv() -> list[str]:
    """The `uno-arena` command as this interpreter runs it."""
    return [sys.executable, "-m", "arena.cli"]


@dataclass
class Processes:
    """Child processes in their own process groups, stopped in reverse order of start; each watched
    (:func:`watch_child`), so that it dies with this process however this one ends."""

    log_dir: Path
    children: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)
    watchdogs: list[Watchdog] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        with (self.log_dir / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(list(argv), env=env, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.children.append((name, process))
        try:
            self.watchdogs.append(watch_child(process.pid))
        except OSError:
            stop_process_groups([process])
            raise
        return process

    def check_alive(self) -> None:
        for name, process in self.children:
            if process.poll() is not None:
                tail = (self.log_dir / f"{name}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{name} exited with code {process.returncode}:\n{tail}")

    def stop_all(self, grace_s: float = 10.0) -> None:
        stop_process_groups([process for _, process in reversed(self.children)], grace_s)
        for watchdog in self.watchdogs:
            watchdog.release()
        self.watchdogs.clear()


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


