"""Per-bot cgroups (arena.hosting.cgroups) on fake /sys trees: what the machine allows, where the groups go, what
is written in them, and how a group's end is told."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from arena.hosting.cgroups import (
    HOST_LEAF,
    Cgroup,
    CgroupManager,
    CgroupMode,
    detect,
    group_name,
    limit_writes,
    oom_kills,
)
from arena.hosting.process import describe_end
from arena.hosting.sandbox import Limits, SandboxSpec
from arena.submissions import Runtime

MIB = 1024 * 1024
OWN_MEMORY = "/process_api/37e8"

V1_MOUNTS = {"cpu": "cpu", "cpuacct": "cpuacct", "memory": "memory", "pids": "pids"}


def _machine(root: Path, mountinfo: list[str], proc_cgroup: list[str], folders: dict[str, str]) -> Path:
    """A fake machine under ``root``: its /proc/self files and cgroup folders (each with the files given)."""
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/mountinfo").write_text("\n".join(mountinfo) + "\n")
    (root / "proc/self/cgroup").write_text("\n".join(proc_cgroup) + "\n")
    for file, text in folders.items():
        path = root / file.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _v1_machine(root: Path, *, mount_root: str = "/", read_only: bool = False) -> Path:
    options = "ro,relatime" if read_only else "rw,relatime"
    mounts = ["31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755"]
    mounts += [f"{32 + i} 31 0:{29 + i} {mount_root} /sys/fs/cgroup/{point} {options} - cgroup cgroup rw,{name}"
               for i, (point, name) in enumerate(V1_MOUNTS.items())]
    mounts.append("41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw")
    base = "" if mount_root == "/" else mount_root
    cgroups = ["0::/", f"1:cpu:{base or '/'}", "2:cpuacct:/", f"4:memory:{base}{OWN_MEMORY}", f"8:pids:{base or '/'}",
               "9:name=systemd:/"]
    folders = {f"/sys/fs/cgroup/memory{OWN_MEMORY}/cgroup.procs": "", "/sys/fs/cgroup/cpu/cgroup.procs": "",
               "/sys/fs/cgroup/pids/cgroup.procs": "", "/sys/fs/cgroup/unified/cgroup.controllers": "hugetlb\n"}
    return _machine(root, mounts, cgroups, folders)


def _v2_machine(root: Path, controllers: str = "cpuset cpu io memory pids", others: str = "") -> Path:
    own = "/sys/fs/cgroup/system.slice/host.service"
    return _machine(root, ["30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate"],
                    ["0::/system.slice/host.service"],
                    {f"{own}/cgroup.controllers": controllers, f"{own}/cgroup.subtree_control": "",
                     f"{own}/cgroup.procs": f"{os.getpid()}\n{others}"})


def test_v1_groups_go_under_the_hosts_own_cgroup_of_each_controller(tmp_path: Path) -> None:
    support = detect(_v1_machine(tmp_path))
    assert support.mode is CgroupMode.V1 and support.describe() == "cgroups v1: memory, cpu, pids per bot"
    assert support.memory == str(tmp_path / f"sys/fs/cgroup/memory{OWN_MEMORY}")
    assert support.cpu == str(tmp_path / "sys/fs/cgroup/cpu") and support.pids == str(tmp_path / "sys/fs/cgroup/pids")


def test_v1_without_a_cgroup_namespace_the_mounts_root_is_taken_off(tmp_path: Path) -> None:
    support = detect(_v1_machine(tmp_path, mount_root="/docker/abc"))
    assert support.memory == str(tmp_path / f"sys/fs/cgroup/memory{OWN_MEMORY}")
    assert support.cpu == str(tmp_path / "sys/fs/cgroup/cpu")


def test_a_read_only_cgroup_filesystem_means_none_and_says_why(tmp_path: Path) -> None:
    support = detect(_v1_machine(tmp_path, read_only=True))
    assert support.mode is CgroupMode.NONE
    assert support.describe() == ("no cgroups: cgroup v1: /sys/fs/cgroup/memory is mounted read-only; limits are per "
                                  "process only")


def test_no_cgroup_filesystem_at_all(tmp_path: Path) -> None:
    support = detect(_machine(tmp_path, ["22 1 0:5 / /proc rw - proc proc rw"], ["0::/"], {}))
    assert (support.mode, support.reason) == (CgroupMode.NONE, "no cgroup filesystem is mounted")


def test_v2_needs_the_three_controllers_delegated(tmp_path: Path) -> None:
    support = detect(_v2_machine(tmp_path))
    assert support.mode is CgroupMode.V2
    assert support.memory == support.cpu == support.pids == str(tmp_path / "sys/fs/cgroup/system.slice/host.service")
    lacking = detect(_v2_machine(tmp_path / "other", controllers="cpu memory"))
    assert lacking.mode is CgroupMode.NONE
    assert lacking.reason == "cgroup v2: the host's cgroup /system.slice/host.service has no pids controller (not " \
                             "delegated to it)"


def test_v2_the_host_moves_into_a_leaf_and_hands_the_controllers_down(tmp_path: Path) -> None:
    own = _v2_machine(tmp_path) / "sys/fs/cgroup/system.slice/host.service"
    limits = Limits(processes=32, bot_memory_bytes=256 * MIB, bot_cpus=0.5)
    manager = CgroupManager(detect(tmp_path), limits, tag="uno-arena-7")
    assert manager.setup().mode is CgroupMode.V2
    assert (own / HOST_LEAF / "cgroup.procs").read_text() == str(os.getpid())
    assert (own / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"
    group = manager.create("my bot")
    assert group is not None and group.folders == (str(own / "uno-arena-7-my_bot-1"),)
    written = {f.name: f.read_text() for f in Path(group.memory).iterdir()}
    assert written == {"memory.max": str(256 * MIB), "cpu.weight": "100", "cpu.max": "50000 100000",
                       "pids.max": "32"}  # no memory.swap.max here: a machine without swap accounting


def test_v2_is_refused_when_the_hosts_cgroup_holds_other_processes(tmp_path: Path) -> None:
    manager = CgroupManager(detect(_v2_machine(tmp_path, others="4242\n")), Limits())
    support = manager.setup()
    assert support.mode is CgroupMode.NONE and "holds other processes than the host" in support.reason
    assert manager.create("bot") is None


def test_the_limits_of_each_mode() -> None:
    limits = Limits(processes=48, bot_memory_bytes=512 * MIB, bot_cpus=1.5)
    assert dict(limit_writes(CgroupMode.V1, limits)) == {
        "memory.limit_in_bytes": str(512 * MIB), "memory.memsw.limit_in_bytes": str(512 * MIB), "cpu.shares": "1024",
        "cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "150000", "pids.max": "48"}
    assert dict(limit_writes(CgroupMode.V2, limits))["cpu.max"] == "150000 100000"
    assert limit_writes(CgroupMode.NONE, limits) == []


def test_group_names_are_safe_folder_names() -> None:
    assert group_name("good", 3) == "good-3"
    assert group_name("../../etc", 1) == "_.._etc-1"
    assert group_name("..", 2) == "bot-2" and group_name("x" * 100, 1) == "x" * 64 + "-1"


def test_an_oom_kill_of_the_group_is_told_to_the_author(tmp_path: Path) -> None:
    (tmp_path / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    assert oom_kills(Cgroup(CgroupMode.V1, str(tmp_path), "", "")) == 2
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
    assert oom_kills(Cgroup(CgroupMode.V2, str(tmp_path), "", "")) == 1
    limits = Limits(bot_memory_bytes=128 * MIB)
    memory = "killed: memory limit of the bot (128 MiB, all its processes together) reached"
    assert describe_end(-signal.SIGKILL, limits, out_of_memory=True) == memory
    assert describe_end(1, limits, out_of_memory=True) == f"{memory}; then exited with code 1"
    assert describe_end(1, limits, "stopped: the bot host is stopping", out_of_memory=True).startswith("stopped")


def test_the_spec_carries_the_groups() -> None:
    spec = SandboxSpec("/p", Runtime.STATIC, ("./bot",), "/gw.sock", None, Limits(bot_cpus=0.25),
                       ("/sys/fs/cgroup/memory/x/bot-1", "/sys/fs/cgroup/cpu/x/bot-1"))
    assert SandboxSpec.from_json(spec.to_json()) == spec
