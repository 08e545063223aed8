"""Per-bot cgroups: the memory of all of a bot's processes together, an equal CPU weight and a hard CPU cap, and its
process count, each bot in a group of its own under the host's own cgroup.

:func:`detect` reads (never writes) what the machine allows: v2 with the controllers delegated, v1, or none with the
reason; it takes the machine's root folder, so the tests give it a fake tree. :class:`CgroupManager` makes one group
per process start and removes it after; the launcher joins it before it becomes ``bwrap`` (:func:`join`).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import signal
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from arena.hosting.sandbox import Limits

CONTROLLERS = ("memory", "cpu", "pids")
CPU_PERIOD_US = 100_000
CPU_SHARES_V1 = 1024  # the weight of every bot alike (v1 ``cpu.shares``; v2 ``cpu.weight``)
CPU_WEIGHT_V2 = 100
HOST_LEAF = "uno-arena-host"  # v2: the host's own leaf, so its cgroup holds no process and may enable controllers
REMOVE_TRIES = 20
REMOVE_PAUSE_S = 0.1
# Written when the kernel has them (swap accounting): without them there is no swap to hold back.
OPTIONAL_FILES = frozenset({"memory.memsw.limit_in_bytes", "memory.swap.max"})


class CgroupMode(Enum):
    V2 = "v2"
    V1 = "v1"
    NONE = "none"


class CgroupError(OSError):
    """A bot's group could not be made, joined or limited (the message says which file and why)."""


@dataclass(frozen=True)
class CgroupSupport:
    """What the machine allows: the mode, the host's own cgroup folder of each controller, or the reason for none."""

    mode: CgroupMode
    reason: str = ""
    memory: str = ""
    cpu: str = ""
    pids: str = ""

    def describe(self) -> str:
        """The host's line at its start."""
        if self.mode is CgroupMode.NONE:
            return f"no cgroups: {self.reason}; limits are per process only"
        return f"cgroups {self.mode.value}: {', '.join(CONTROLLERS)} per bot"


@dataclass(frozen=True)
class Cgroup:
    """One bot's group: its folder in each controller's hierarchy (v2: the same folder three times)."""

    mode: CgroupMode
    memory: str
    cpu: str
    pids: str

    @property
    def folders(self) -> tuple[str, ...]:
        """Each distinct folder once (v2: one; v1: three)."""
        return tuple(dict.fromkeys((self.memory, self.cpu, self.pids)))

    def folder_of(self, file_name: str) -> str:
        """The folder of a controller's file (``memory.max``, ``cpu.shares``, ``pids.max``)."""
        return {"memory": self.memory, "cpu": self.cpu, "pids": self.pids}[file_name.split(".")[0]]


@dataclass(frozen=True)
class Mount:
    """A line of ``/proc/self/mountinfo``: the hierarchy's folder mounted (``root``) and where."""

    root: str
    point: str
    fstype: str
    options: frozenset[str]
    read_only: bool


def parse_mountinfo(text: str) -> list[Mount]:
    """The cgroup mounts (``cgroup`` and ``cgroup2``) of a ``mountinfo`` text."""
    mounts = []
    for line in text.splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 6 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        options = frozenset(tail[2].split(","))
        mounts.append(Mount(_unescape(fields[3]), _unescape(fields[4]), tail[0], options,
                            "ro" in fields[5].split(",") or "ro" in options))
    return mounts


def _unescape(path: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """Each controller's own cgroup path from ``/proc/self/cgroup`` (v2's unified line under the key ``""``)."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            paths[""] = parts[2]
        for controller in parts[1].split(","):
            if controller and not controller.startswith("name="):
                paths[controller] = parts[2]
    return paths


def _inside(mount: Mount, own: str, root: Path) -> Path | None:
    """The folder of cgroup path ``own`` under ``mount`` (None when ``own`` is not below the mount's root)."""
    base = mount.root.rstrip("/")
    if own != mount.root and not own.startswith(base + "/"):
        return None
    return root / mount.point.lstrip("/") / own[len(base):].lstrip("/")


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def detect(root: Path = Path("/")) -> CgroupSupport:
    """What the machine under ``root`` allows (v2 first, then v1), reading only."""
    try:
        mounts = parse_mountinfo((root / "proc/self/mountinfo").read_text())
        own = parse_proc_cgroup((root / "proc/self/cgroup").read_text())
    except OSError as error:
        return CgroupSupport(CgroupMode.NONE, f"cannot read /proc/self: {error.strerror}")
    v2 = _detect_v2(mounts, own, root)
    if v2.mode is not CgroupMode.NONE:
        return v2
    v1 = _detect_v1(mounts, own, root)
    if v1.mode is not CgroupMode.NONE:
        return v1
    if not mounts:
        return CgroupSupport(CgroupMode.NONE, "no cgroup filesystem is mounted")
    v1_mounted = any(m.fstype == "cgroup" and set(CONTROLLERS) & m.options for m in mounts)
    return v1 if v1_mounted or not v2.reason else v2


def _detect_v2(mounts: list[Mount], own: dict[str, str], root: Path) -> CgroupSupport:
    unified = [m for m in mounts if m.fstype == "cgroup2"]
    if not unified or "" not in own:
        return CgroupSupport(CgroupMode.NONE, "")
    mount = next((m for m in unified if m.point == "/sys/fs/cgroup"), unified[0])
    folder = _inside(mount, own[""], root)
    if folder is None:
        return CgroupSupport(CgroupMode.NONE, f"cgroup v2: the host's cgroup {own['']} is outside the mount at "
                                              f"{mount.point}")
    try:
        controllers = set((folder / "cgroup.controllers").read_text().split())
    except OSError as error:
        return CgroupSupport(CgroupMode.NONE, f"cgroup v2: cannot read {folder}/cgroup.controllers: "
                                              f"{error.strerror}")
    missing = [c for c in CONTROLLERS if c not in controllers]
    if missing:
        return CgroupSupport(CgroupMode.NONE, f"cgroup v2: the host's cgroup {own['']} has no {', '.join(missing)} "
                                              "controller (not delegated to it)")
    if mount.read_only or not _writable(folder):
        return CgroupSupport(CgroupMode.NONE, f"cgroup v2: the host's cgroup {folder} is not writable by uid "
                                              f"{os.geteuid()} (run the host as root, or delegate its cgroup)")
    return CgroupSupport(CgroupMode.V2, "", str(folder), str(folder), str(folder))


def _detect_v1(mounts: list[Mount], own: dict[str, str], root: Path) -> CgroupSupport:
    folders: dict[str, str] = {}
    for controller in CONTROLLERS:
        mount = next((m for m in mounts if m.fstype == "cgroup" and controller in m.options), None)
        if mount is None:
            return CgroupSupport(CgroupMode.NONE, f"cgroup v1: no {controller} controller mounted")
        if controller not in own:
            return CgroupSupport(CgroupMode.NONE, f"cgroup v1: /proc/self/cgroup names no {controller} cgroup")
        folder = _inside(mount, own[controller], root)
        if folder is None:
            return CgroupSupport(CgroupMode.NONE, f"cgroup v1: the host's {controller} cgroup {own[controller]} "
                                                  f"is outside the mount at {mount.point}")
        if mount.read_only:
            return CgroupSupport(CgroupMode.NONE, f"cgroup v1: {mount.point} is mounted read-only")
        if not _writable(folder):
            return CgroupSupport(CgroupMode.NONE, f"cgroup v1: the host's {controller} cgroup {folder} is not "
                                                  f"writable by uid {os.geteuid()} (run the host as root)")
        folders[controller] = str(folder)
    return CgroupSupport(CgroupMode.V1, "", folders["memory"], folders["cpu"], folders["pids"])


def limit_writes(mode: CgroupMode, limits: Limits) -> list[tuple[str, str]]:
    """The files of a bot's group and what goes in them, in order (v1's memory before its memory+swap)."""
    memory = str(limits.bot_memory_bytes)
    quota = max(1000, round(limits.bot_cpus * CPU_PERIOD_US))
    if mode is CgroupMode.V1:
        return [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory),
                ("cpu.shares", str(CPU_SHARES_V1)), ("cpu.cfs_period_us", str(CPU_PERIOD_US)),
                ("cpu.cfs_quota_us", str(quota)), ("pids.max", str(limits.processes))]
    if mode is CgroupMode.V2:
        return [("memory.max", memory), ("memory.swap.max", "0"), ("cpu.weight", str(CPU_WEIGHT_V2)),
                ("cpu.max", f"{quota} {CPU_PERIOD_US}"), ("pids.max", str(limits.processes))]
    return []


def group_name(bot: str, number: int) -> str:
    """A folder name for a bot's group: its name made safe (never ``.`` or ``..``) and the start's number."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", bot)[:64].lstrip(".") or "bot"
    return f"{safe}-{number}"


def _write(path: Path, value: str) -> None:
    try:
        with open(path, "w", encoding="ascii") as f:
            f.write(value)
    except OSError as error:
        raise CgroupError(error.errno, f"cannot write {value!r} to {path}: {error.strerror}") from None


def join(folders: tuple[str, ...], pid: int | None = None) -> None:
    """Put process ``pid`` (default: this one) into each folder's group; :class:`CgroupError` when it cannot."""
    for folder in folders:
        _write(Path(folder) / "cgroup.procs", str(pid if pid is not None else os.getpid()))


def read_keyed(path: Path) -> dict[str, int]:
    """A cgroup file of ``key value`` lines."""
    values: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                values[key] = int(value)
    return values


def oom_kills(group: Cgroup) -> int:
    """How many of the group's processes its OOM killer killed (v1 without ``oom_kill``: its failcnt)."""
    memory = Path(group.memory)
    if group.mode is CgroupMode.V2:
        return read_keyed(memory / "memory.events").get("oom_kill", 0)
    control = read_keyed(memory / "memory.oom_control")
    if "oom_kill" in control:
        return control["oom_kill"]
    with contextlib.suppress(OSError, ValueError):
        return int((memory / "memory.failcnt").read_text())
    return 0


def _processes(folder: Path) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
    return []


def remove_folder(folder: Path, tries: int = REMOVE_TRIES) -> bool:
    """Remove an empty group; while it is busy, kill what is left in it and try again. False when it stayed."""
    for attempt in range(tries):
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError as error:
            if error.errno != errno.EBUSY or attempt == tries - 1:
                return False
        for pid in _processes(folder):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(REMOVE_PAUSE_S)
    return False


class CgroupManager:
    """The host's groups, one per process start, each straight under the host's own cgroup (no layer between makes
    all bots together weigh as one), named after the host, the bot and a counter."""

    def __init__(self, support: CgroupSupport, limits: Limits, tag: str | None = None) -> None:
        self.support = support
        self.limits = limits
        self.tag = tag or f"uno-arena-{os.getpid()}"
        self.numbers = itertools.count(1)
        self.live: set[Cgroup] = set()

    def setup(self) -> CgroupSupport:
        """Get the host's cgroup ready (v2: the host in a leaf of its own, the controllers enabled for its children)
        and make one group as a probe; on failure the support becomes none with the reason. The support in force."""
        if self.support.mode is CgroupMode.NONE:
            return self.support
        try:
            if self.support.mode is CgroupMode.V2:
                self._enable_v2(Path(self.support.memory))
            self.remove(self._make("probe"))
        except OSError as error:
            reason = str(error) if isinstance(error, CgroupError) else f"{error.filename}: {error.strerror}"
            self.support = CgroupSupport(CgroupMode.NONE, f"cgroup {self.support.mode.value}: {reason}")
        return self.support

    def _enable_v2(self, own: Path) -> None:
        """The "no internal processes" rule: a cgroup that hands controllers to its children holds no process. The
        host moves itself into a leaf of its own; any other process there refuses v2."""
        others = [pid for pid in _processes(own) if pid != os.getpid()]
        if others:
            raise CgroupError(errno.EBUSY, f"the host's cgroup {own} holds other processes than the host "
                                           f"({len(others)}): give the host a cgroup of its own")
        enabled = set((own / "cgroup.subtree_control").read_text().split())
        if set(CONTROLLERS) <= enabled:
            return
        (own / HOST_LEAF).mkdir(exist_ok=True)
        join((str(own / HOST_LEAF),))
        _write(own / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))

    def create(self, bot: str) -> Cgroup | None:
        """A new group for one start of ``bot``'s process, its limits written (None without cgroups)."""
        if self.support.mode is CgroupMode.NONE:
            return None
        return self._make(group_name(bot, next(self.numbers)))

    def _make(self, name: str) -> Cgroup:
        group = Cgroup(self.support.mode, *(str(Path(f) / f"{self.tag}-{name}")
                                    for f in (self.support.memory, self.support.cpu, self.support.pids)))
        self.live.add(group)
        try:
            for folder in group.folders:
                Path(folder).mkdir()
            for file_name, value in limit_writes(self.support.mode, self.limits):
                path = Path(group.folder_of(file_name)) / file_name
                if file_name in OPTIONAL_FILES and not path.exists():
                    continue
                _write(path, value)
        except OSError as error:
            self.remove(group)
            if isinstance(error, CgroupError):
                raise
            raise CgroupError(error.errno, f"cannot make the group {error.filename}: {error.strerror}") from None
        return group

    def remove(self, group: Cgroup) -> bool:
        """Remove a bot's group after its process ended (what is left in it killed). False when one stayed."""
        self.live.discard(group)
        return all([remove_folder(Path(folder)) for folder in group.folders])

    def close(self) -> None:
        """Remove every group still there (the host is stopping)."""
        for group in list(self.live):
            self.remove(group)
