"""The watchdog that makes a child process die with the process that started it: an embedded ``redis-server``,
and every child of :class:`arena.processes.Processes` (the demo's gateway, worker, scheduler, host, web, bots).

Run as a script, by path (``python -I -S starter_watch.py [--group] PID [DIR]``), by
:class:`arena.store.embedded.RedisServer` and :func:`arena.processes.watch_child`: it imports nothing of the arena,
so it starts in milliseconds. Its standard input is the read end of a pipe whose write end only the starter holds;
when the starter ends in any way (``kill -9`` included), the kernel closes that end and the watchdog reads
end-of-file. It then stops PID (SIGTERM, SIGKILL after :data:`GRACE_S`), removes DIR (the server's temporary data
folder, when the starter owned one) and exits. With ``--group`` PID leads a process group of its own (started with
``start_new_session``) and the whole group is stopped: its children too (a Celery worker's prefork pool, the bot
host's sandboxes), SIGKILL for whatever is left once the leader ended or its grace ran out. When PID ends first
(a clean stop, or a test that kills it), the watchdog exits at once.

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


def _stop_group(pid: int, pidfd: int | None) -> None:
    """SIGTERM the process group PID leads, wait for the leader (at most :data:`GRACE_S`), then SIGKILL whatever of
    the group is left (children the leader did not take down with it, or a leader that ignored SIGTERM)."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    _wait_gone(pid, pidfd, GRACE_S)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


def watch(pid: int, folder: str | None, group: bool = False) -> None:
    """Block until the starter ends (end-of-file on stdin) or PID does; in the first case stop PID (with ``group``:
    its whole process group)."""
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
    if group:
        _stop_group(pid, pidfd)
    else:
        _stop(pid, pidfd)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C of the terminal is the starter's to handle
    arguments = sys.argv[1:]
    whole_group = arguments[:1] == ["--group"]
    if whole_group:
        arguments = arguments[1:]
    watch(int(arguments[0]), arguments[1] if len(arguments) > 1 else None, whole_group)
