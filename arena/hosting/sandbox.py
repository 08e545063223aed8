"""The sandbox of a hosted bot: the ``bwrap`` command line, its environment and its resource limits (no I/O but
looking up where programs are).

The bot sees a read-only ``/usr``, its package read-only at ``/bot``, a private ``/tmp``, its own ``/proc``, a
``/dev`` without ptys, its runtime at neutral paths (:class:`RuntimeLayout`) and the gateway's Unix socket; nothing
else of the machine, and no network. As root the bot runs as a uid of its own through ``setpriv`` (a user namespace
would map it to root outside, where ``RLIMIT_NPROC`` does not count); docs/hosting.md ("The sandbox") has it all.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.hosting.private_mounts import PrivateMounts, is_within
from arena.hosting.seccomp import program as seccomp_program
from arena.submissions import Runtime

SOCKET_IN_SANDBOX = "/run/uno-arena/gateway.sock"
PACKAGE_IN_SANDBOX = "/bot"
TARGET_ENV = "UNO_ARENA_TARGET"
TOKEN_ENV = "UNO_ARENA_BOT_TOKEN"
BWRAP_ENV = "UNO_ARENA_BWRAP"  # where ``bwrap`` is, when not on PATH


class SandboxUnavailable(RuntimeError):
    """What a sandbox needs is missing on this machine (the message names it and how to get it)."""


@dataclass(frozen=True)
class Limits:
    """The resource limits of every hosted bot's process (the same for everyone: state them on the competition)."""

    cpu_seconds: int = 600  # of one process (RLIMIT_CPU): then killed (SIGXCPU, SIGKILL) and restarted
    memory_bytes: int = 1024 * 1024 * 1024  # address space of one process (RLIMIT_AS)
    processes: int = 64  # processes and threads of the bot's uid (RLIMIT_NPROC)
    open_files: int = 256  # of one process (RLIMIT_NOFILE)
    file_size_bytes: int = 16 * 1024 * 1024  # the largest file it may write (RLIMIT_FSIZE)
    tmp_bytes: int = 16 * 1024 * 1024  # size of its private /tmp (tmpfs)
    tmp_inodes: int = 4096
    """Files, folders and links its /tmp may hold (``nr_inodes``: each costs kernel memory the size does not count).
    As root only (the launcher mounts that tmpfs; bwrap's own has no such option)."""
    lifetime_s: float = 24 * 3600.0  # wall-clock life of one process: then killed and started again
    connect_s: float = 30.0  # a process not connected to the gateway this long after its start is killed
    bot_memory_bytes: int = 1024 * 1024 * 1024  # all the bot's processes together (its cgroup's; OOM killer past it)
    bot_cpus: float = 1.0  # CPUs the whole bot may use at most (its cgroup's quota; every bot the same weight)


@dataclass(frozen=True)
class SandboxSpec:
    """One sandboxed process: the unpacked package, what starts it, the gateway's socket on the host, the uid."""

    package_dir: str
    runtime: Runtime
    command: tuple[str, ...]
    socket_path: str
    uid: int | None = None  # the uid it runs as (when the host is root), else None (a user namespace)
    limits: Limits = field(default_factory=Limits)
    cgroups: tuple[str, ...] = ()  # the folders of its cgroup (one per controller hierarchy) the launcher joins

    def to_json(self) -> dict[str, object]:
        return {"package_dir": self.package_dir, "runtime": self.runtime.value, "command": list(self.command),
                "socket_path": self.socket_path, "uid": self.uid, "limits": self.limits.__dict__,
                "cgroups": list(self.cgroups)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SandboxSpec:
        """The spec :meth:`to_json` wrote (the host writes the file, its launcher reads it: one version of both)."""
        return cls(data["package_dir"], Runtime(data["runtime"]), tuple(data["command"]), data["socket_path"],
                   data["uid"], Limits(**data["limits"]), tuple(data["cgroups"]))


def find_bwrap() -> str:
    """The ``bwrap`` program; :class:`SandboxUnavailable` naming the package when there is none."""
    found = os.environ.get(BWRAP_ENV) or shutil.which("bwrap")
    if not found or not os.access(found, os.X_OK):
        raise SandboxUnavailable("bwrap (bubblewrap) is not installed: the bot host needs it "
                                 "(Debian/Ubuntu: apt-get install bubblewrap)")
    return found


def find_setpriv() -> str:
    found = shutil.which("setpriv")
    if not found:
        raise SandboxUnavailable("setpriv is not installed: a bot host running as root needs it to run each bot as "
                                 "a uid of its own (Debian/Ubuntu: apt-get install util-linux)")
    return found


def inherited_file(name: str, data: bytes) -> int:
    """A file in memory holding ``data`` (read from its start), left open for ``bwrap``: its descriptor."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd


def sandbox_missing() -> str:
    """What this machine lacks to run the sandbox, as one line naming how to get it; '' when it can. A real ``bwrap``
    run with the namespaces and the syscall filter: installed is not enough (a container may forbid them)."""
    import subprocess

    try:
        bwrap = find_bwrap()
        if os.geteuid() == 0:
            find_setpriv()
    except SandboxUnavailable as error:
        return str(error)
    user = [] if os.geteuid() == 0 else ["--unshare-user", "--disable-userns"]
    # The syscall filter too: a kernel without seccomp filters fails here.
    fd = inherited_file("seccomp", seccomp_program())
    try:
        probe = subprocess.run([bwrap, *user, "--seccomp", str(fd), "--unshare-pid", "--unshare-net", "--ro-bind",
                                "/", "/", "--proc", "/proc", "--dev", "/dev", "true"], capture_output=True, text=True,
                               timeout=30, pass_fds=(fd,))
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot run here: {error}"
    finally:
        os.close(fd)
    if probe.returncode != 0:
        return f"bwrap cannot make a sandbox here: {probe.stderr.strip()[:200]}"
    return ""


PYTHON_IN_SANDBOX = "/opt/python"  # the Python installation (its base prefix)
PYTHON_PACKAGES_IN_SANDBOX = "/opt/python-packages"  # the environment's site-packages (a venv's)
ARENA_IN_SANDBOX = "/opt/uno-arena"  # the ``arena`` and ``bots`` packages (the kit)
NODE_IN_SANDBOX = "/opt/node"  # a Node.js installed outside ``/usr``


@dataclass(frozen=True)
class Mount:
    """A host folder mounted read-only in the sandbox at a path that names nothing of the host."""

    source: str
    target: str


@dataclass(frozen=True)
class RuntimeLayout:
    """What a runtime needs in the sandbox: its mounts, its program there, and its environment."""

    mounts: tuple[Mount, ...] = ()
    program: str = ""
    env: tuple[tuple[str, str], ...] = ()


def python_layout() -> RuntimeLayout:
    """The ``python3.11-kit`` runtime, found through ``PYTHONPATH`` (a venv's files name host paths)."""
    import sysconfig

    import arena
    import bots

    base = os.path.realpath(sys.base_prefix)
    executable = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
    if not is_within(executable, base):
        raise SandboxUnavailable("the bot host's Python program is not inside its installation (sys.base_prefix): "
                                 "the python3.11-kit runtime needs a Python installed in one folder")
    # A Python under /usr is in the sandbox already, at its own path (which names nothing of the host's).
    in_usr = is_within(base, "/usr")
    mounts = [] if in_usr else [Mount(base, PYTHON_IN_SANDBOX)]
    path = [ARENA_IN_SANDBOX]
    packages = sorted({os.path.realpath(sysconfig.get_paths()[kind]) for kind in ("purelib", "platlib")})
    for n, folder in enumerate(p for p in packages if not is_within(p, base) and os.path.isdir(p)):
        target = PYTHON_PACKAGES_IN_SANDBOX + (f"-{n + 1}" if n else "")
        mounts.append(Mount(folder, target))
        path.append(target)
    for package in (arena, bots):
        folder = os.path.dirname(os.path.realpath(package.__file__ or ""))
        mounts.append(Mount(folder, f"{ARENA_IN_SANDBOX}/{os.path.basename(folder)}"))
    env = [("PYTHONPATH", ":".join(path)), ("PYTHONNOUSERSITE", "1")]
    if in_usr:
        return RuntimeLayout(tuple(mounts), executable, tuple(env))
    # Its libpython may be found by an absolute RUNPATH (the host's folder): found here instead.
    env.append(("LD_LIBRARY_PATH", f"{PYTHON_IN_SANDBOX}/lib"))
    return RuntimeLayout(tuple(mounts), PYTHON_IN_SANDBOX + executable[len(base):], tuple(env))


def node_layout() -> RuntimeLayout:
    """The ``node20`` runtime: ``node`` from ``/usr`` as it is, or its installation at :data:`NODE_IN_SANDBOX`."""
    node = shutil.which("node")
    if not node:
        raise SandboxUnavailable("node is not installed: the node20 runtime needs Node.js 20 on the bot host")
    node = os.path.realpath(node)
    prefix = os.path.dirname(os.path.dirname(node))
    if is_within(prefix, "/usr"):
        return RuntimeLayout((), node)
    return RuntimeLayout((Mount(prefix, NODE_IN_SANDBOX),), NODE_IN_SANDBOX + node[len(prefix):])


def runtime_layout(runtime: Runtime) -> RuntimeLayout:
    """What ``runtime`` needs in the sandbox (``static``: nothing but the package)."""
    return {Runtime.PYTHON_KIT: python_layout, Runtime.NODE20: node_layout}.get(runtime, RuntimeLayout)()


def program(spec: SandboxSpec, layout: RuntimeLayout | None = None) -> list[str]:
    """The command inside the sandbox: its program replaced by the runtime's (or the package's binary)."""
    first, rest = spec.command[0], list(spec.command[1:])
    if spec.runtime in (Runtime.PYTHON_KIT, Runtime.NODE20):
        return [(layout or runtime_layout(spec.runtime)).program, *rest]
    return [f"{PACKAGE_IN_SANDBOX}/{os.path.normpath(first.removeprefix('./'))}", *rest]


def bwrap_argv(spec: SandboxSpec, bwrap: str | None = None, *, as_root: bool | None = None,
               private: PrivateMounts | None = None, layout: RuntimeLayout | None = None) -> list[str]:
    """The whole command line: ``bwrap`` with its namespaces and mounts, then (as root) ``setpriv`` to the bot's
    uid, then the bot's command. ``private``: the launcher's tmpfs mounts, else bwrap's own tmpfs (its size only)."""
    root = os.geteuid() == 0 if as_root is None else as_root
    layout = layout or runtime_layout(spec.runtime)
    argv = [bwrap or find_bwrap(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "bot"]
    if not root:
        argv += ["--unshare-user", "--disable-userns"]
    # No pty: its devpts is the sandbox's own, but every pty counts against the machine's kernel.pty.max.
    argv += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/dev/null", "/dev/pts/ptmx"]
    for link in ("lib", "lib64", "bin", "sbin"):
        if os.path.islink(f"/{link}"):
            argv += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    if private is not None:
        argv += ["--bind", private.tmp, "/tmp"]
    else:
        argv += ["--perms", "1777", "--size", str(spec.limits.tmp_bytes), "--tmpfs", "/tmp"]
    # Folders bwrap would create on the way to a mount point are its own (mode 0700): the bot's uid could not
    # pass them. Made first, mode 0755 (they are empty but for what is mounted in them).
    for folder in _ancestors([*(m.target for m in layout.mounts), SOCKET_IN_SANDBOX]):
        argv += ["--perms", "0755", "--dir", folder]
    for mount in layout.mounts:
        argv += ["--ro-bind", mount.source, mount.target]
    argv += ["--ro-bind", private.package if private is not None else spec.package_dir, PACKAGE_IN_SANDBOX,
             "--bind", spec.socket_path, SOCKET_IN_SANDBOX,
             "--chdir", PACKAGE_IN_SANDBOX, "--"]
    if root:
        uid = spec.uid if spec.uid is not None else 65534
        argv += [find_setpriv(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs", "--"]
    return argv + program(spec, layout)


def _ancestors(paths: list[str]) -> list[str]:
    """The folders above ``paths`` (not ``/`` or what the sandbox has already), parents first."""
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", "/tmp", "") and parent.split("/")[1] not in ("usr", "proc", "dev"):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def sandbox_env(token: str, layout: RuntimeLayout | None = None) -> dict[str, str]:
    """The bot's whole environment: where the gateway is, its own token, plain settings and its runtime's."""
    return {TARGET_ENV: f"unix:{SOCKET_IN_SANDBOX}", TOKEN_ENV: token, "HOME": "/tmp", "TMPDIR": "/tmp",
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1", **dict(layout.env if layout is not None else ())}


CPU_HARD_EXTRA_S = 5
"""The hard CPU limit over the soft one: SIGXCPU at the soft one (said as such to the author), SIGKILL at the hard."""


def rlimits(limits: Limits) -> list[tuple[str, int, int]]:
    """The ``resource`` limits of :class:`Limits`: their names in the ``resource`` module, soft and hard values."""
    cpu = limits.cpu_seconds
    return [("RLIMIT_CPU", cpu, cpu + CPU_HARD_EXTRA_S), ("RLIMIT_AS", limits.memory_bytes, limits.memory_bytes),
            ("RLIMIT_NPROC", limits.processes, limits.processes),
            ("RLIMIT_NOFILE", limits.open_files, limits.open_files),
            ("RLIMIT_FSIZE", limits.file_size_bytes, limits.file_size_bytes), ("RLIMIT_CORE", 0, 0)]


def package_path(work_dir: str | Path, sha256: str) -> Path:
    return Path(work_dir) / "packages" / sha256
