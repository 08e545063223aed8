"""The watchdog that makes an embedded ``redis-server`` die with the process that started it.

Run as a script, by path, by :class:`arena.store.embedded.RedisServer` (``python -I -S starter_watch.py PID
[DIR]``): it imports nothing of the arena, so it starts in milliseconds. Its standard input is the read end of a
pipe whose write end only the starter holds; when the starter ends in any way (``kill -9`` included), the kernel
closes that end and the watchdog reads end-of-file. It then stops the server PID (SIGTERM, SIGKILL after
:data:`GRACE_S`), removes DIR (the server's temporary data folder, when the starter owned one) and exits. When the
server ends first (a clean stop, or a test that kills it), the watchdog exits at once.

A watchdog rather than ``PR_SET_PDEATHSIG``: that signal follows the *thread* that started the child, so a server
started from a thread that ends would be killed with it.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time

GRACE_S = 10.0
"""How long the server gets to exit on SIGTERM (flushing its append-only file) before SIGKILL."""
POLL_S = 1.0
"""Without pidfds (Linux before 5.3), how often the server's life is checked."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_gone(pid: int, pidfd: int | None, timeout: float) -> bool:
    """Whether the server ended within ``timeout`` (it is the starter's child: a zombie counts as ended)."""
    if pidfd is not None:
        return bool(select.select([pidfd], [], [], timeout)[0])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid) or _is_zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _stop(pid: int, pidfd: int | None) -> None:
    for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, GRACE_S)):
        try:
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, sig)
            else:
                os.kill(pid, sig)
        except (ProcessLookupError, OSError):
            return
        if _wait_gone(pid, pidfd, wait_s):
            return


def watch(pid: int, folder: str | None) -> None:
    """Block until the starter ends (end-of-file on stdin) or the server does; in the first case stop the server."""
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):
        pidfd = None
    watched = [sys.stdin.fileno()] + ([pidfd] if pidfd is not None else [])
    while True:
        ready = select.select(watched, [], [], None if pidfd is not None else POLL_S)[0]
        if pidfd is not None and pidfd in ready:
            return  # the server ended first: its starter stopped it
        if pidfd is None and not _alive(pid):
            return
        if sys.stdin.fileno() in ready and not os.read(sys.stdin.fileno(), 4096):
            break  # end of file: the starter is gone
    _stop(pid, pidfd)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C of the terminal is the starter's to handle
    watch(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
