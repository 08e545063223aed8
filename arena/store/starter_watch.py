"""The watchdog that makes a child process die with the process that started it (an embedded ``redis-server``,
the children of :class:`arena.processes.Processes`).

Run by path (``python -I -S starter_watch.py [--group] PID [DIR]``): it imports nothing of the arena. Its stdin is
a pipe whose write end only the starter holds; when the starter ends in any way (``kill -9`` too) it reads
end-of-file, stops PID (with ``--group`` its whole process group), removes DIR and exits; it exits at once when
PID ends first. Not ``PR_SET_PDEATHSIG``: that follows the *thread* that started the child.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time

GRACE_S = 10.0
"""How long PID gets to exit on SIGTERM (a server flushing its append-only file) before SIGKILL."""
POLL_S = 1.0
"""Without pidfds (Linux before 5.3), how often PID's life is checked."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_gone(pid: int, pidfd: int | None, timeout: float) -> bool:
    """Whether PID ended within ``timeout`` (the starter's child: a zombie counts as ended)."""
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


def _stop(pid: int, pidfd: int | None, group: bool) -> None:
    """SIGTERM PID (with ``group`` its whole process group), wait for it at most :data:`GRACE_S`, then SIGKILL what
    is left (of a group, whatever is left even when its leader ended)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if group:
                os.killpg(pid, sig)
            elif pidfd is not None:
                signal.pidfd_send_signal(pidfd, sig)
            else:
                os.kill(pid, sig)
        except OSError:  # ProcessLookupError, PermissionError: nothing (more) to stop
            return
        if _wait_gone(pid, pidfd, GRACE_S) and not group:
            return


def watch(pid: int, folder: str | None, group: bool = False) -> None:
    """Block until the starter ends (end-of-file on stdin), then stop PID, or until PID does."""
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
    _stop(pid, pidfd, group)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C of the terminal is the starter's to handle
    arguments = sys.argv[1:]
    whole_group = arguments[:1] == ["--group"]
    if whole_group:
        arguments = arguments[1:]
    watch(int(arguments[0]), arguments[1] if len(arguments) > 1 else None, whole_group)
