"""What ``/proc`` tells the benchmarks about processes: CPU seconds, memory, names and children (Linux; elsewhere
every reader answers 0 or nothing)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""Clock ticks per second of the CPU times in ``/proc``."""


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


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (``/proc/stat``; 0 where there is none)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / TICK


def process_cpu(pids: Sequence[int]) -> float:
    """CPU seconds (user + system, every thread) used so far by the processes ``pids`` (those still there)."""
    total = 0.0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += (int(stat[11]) + int(stat[12])) / TICK
    return total


def reaped_children_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the children ``pid`` has waited for so far (0 when it is gone): what short-lived
    helper processes of a server cost it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(stat[13]) + int(stat[14])) / TICK


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by ``root`` and every process below it, those still running and those
    their parents have waited for: each live process's own time and what its reaped children used. The difference of
    two readings is what the tree cost in between (a process that ends in between is counted in its parent's)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        parents[pid] = int(stat[1])
        times[pid] = sum(int(f) for f in stat[11:15]) / TICK
    below: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        below.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(below.get(pid, []))
    return total


def process_tree(roots: Sequence[int]) -> list[int]:
    """``roots`` and their children (one level: prefork pool children)."""
    found = list(roots)
    for root in roots:
        found.extend(child_pids(root))
    return found


def process_memory(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) of a process in bytes, from /proc (0, 0 when unreadable)."""
    rss = peak = 0
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    return rss, peak


def command_name(pid: int) -> str:
    """The process's command name (``/proc/PID/comm``; empty when it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
