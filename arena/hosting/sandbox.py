"""The sandbox of a hosted bot: the ``bwrap`` command line, its environment and its resource limits (no I/O but
looking up where programs are).

What the bot sees: a read-only ``/usr`` (and ``/lib*``, ``/bin`` links), its own package read-only at ``/bot`` (its
working folder), a private ``/tmp`` (tmpfs of :attr:`Limits.tmp_bytes`), its own ``/proc`` (a new PID namespace: its
own processes only), a minimal ``/dev``, the runtime it needs read-only (for ``python3.11-kit``: the arena's Python
installation, its site-packages and the arena's own ``arena`` and ``bots`` packages), and the gateway's Unix socket
at :data:`SOCKET_IN_SANDBOX`; nothing else of the machine: no other bot's files, no token file, no ``/etc``, no
``/home``. New PID, network, IPC, UTS and cgroup namespaces: no network at all but that socket. Its environment is
only :data:`TARGET_ENV` (``unix:`` + the socket), its own token (:data:`TOKEN_ENV`) and a few plain settings.

As root (the usual host: a container), ``bwrap`` runs without a user namespace and the bot runs as a uid of its own
(``setpriv``: no capabilities, no supplementary groups, no new privileges): a user namespace would map it to root
outside, where ``RLIMIT_NPROC`` does not count, and a uid per bot makes the process limit the bot's alone. As
another user, ``bwrap --unshare-user`` maps the bot to that user (the process limit is then shared with the host's
user: docs/hosting.md).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from arena.submissions import Runtime

SOCKET_IN_SANDBOX = "/run/uno-arena/gateway.sock"
PACKAGE_IN_SANDBOX = "/bot"
TARGET_ENV = "UNO_ARENA_TARGET"
TOKEN_ENV = "UNO_ARENA_BOT_TOKEN"
BWRAP_ENV = "UNO_ARENA_BWRAP"
"""Where ``bwrap`` is, when not on PATH."""


class SandboxUnavailable(RuntimeError):
    """What a sandbox needs is missing on this machine (the message names it and how to get it)."""


@dataclass(frozen=True)
class Limits:
    """The resource limits of every hosted bot's process (the same for everyone: state them on the competition)."""

    cpu_seconds: int = 600
    """CPU time of one process (RLIMIT_CPU): it is then killed (SIGXCPU, SIGKILL) and restarted."""
    memory_bytes: int = 1024 * 1024 * 1024
    """Address space of one process (RLIMIT_AS): allocations past it fail."""
    processes: int = 64
    """Processes and threads of the bot's uid (RLIMIT_NPROC): forks past it fail."""
    open_files: int = 256
    """Open files of one process (RLIMIT_NOFILE)."""
    file_size_bytes: int = 16 * 1024 * 1024
    """The largest file it may write (RLIMIT_FSIZE)."""
    tmp_bytes: int = 16 * 1024 * 1024
    """Size of its private /tmp (tmpfs)."""
    lifetime_s: float = 24 * 3600.0
    """Wall-clock life of one process: it is then killed and started again."""
    connect_s: float = 30.0
    """A process that has not connected to the gateway this long after its start is killed (and restarted)."""
    bot_memory_bytes: int = 1024 * 1024 * 1024
    """Memory of the whole bot, all its processes together (its cgroup's; the OOM killer past it)."""
    bot_cpus: float = 1.0
    """CPUs the whole bot may use at most (its cgroup's quota; every bot has the same CPU weight below it)."""


@dataclass(frozen=True)
class SandboxSpec:
    """One sandboxed process: the unpacked package, what starts it, the gateway's socket on the host, the uid."""

    package_dir: str
    runtime: Runtime
    command: tuple[str, ...]
    socket_path: str
    uid: int | None = None
    """The uid it runs as (when the host is root), else None (a user namespace)."""
    limits: Limits = field(default_factory=Limits)
    cgroups: tuple[str, ...] = ()
    """The folders of the process's cgroup (one per controller hierarchy) the launcher joins; none without."""

    def to_json(self) -> dict[str, object]:
        return {"package_dir": self.package_dir, "runtime": self.runtime.value, "command": list(self.command),
                "socket_path": self.socket_path, "uid": self.uid, "limits": self.limits.__dict__,
                "cgroups": list(self.cgroups)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> SandboxSpec:
        limits = data.get("limits")
        uid = data.get("uid")
        cgroups = data.get("cgroups")
        return cls(package_dir=str(data["package_dir"]), runtime=Runtime(str(data["runtime"])),
                   command=tuple(str(w) for w in data["command"]),  # type: ignore[attr-defined]
                   socket_path=str(data["socket_path"]), uid=int(uid) if isinstance(uid, int) else None,
                   limits=Limits(**limits) if isinstance(limits, dict) else Limits(),
                   cgroups=tuple(str(f) for f in cgroups) if isinstance(cgroups, list) else ())


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


def sandbox_missing() -> str:
    """What this machine lacks to run the sandbox, as one line naming how to get it; '' when it can. A real
    ``bwrap`` run with the namespaces the host asks for: installed is not enough (a container may forbid them)."""
    import subprocess

    try:
        bwrap = find_bwrap()
        if os.geteuid() == 0:
            find_setpriv()
    except SandboxUnavailable as error:
        return str(error)
    user = [] if os.geteuid() == 0 else ["--unshare-user"]
    try:
        probe = subprocess.run([bwrap, *user, "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--proc",
                                "/proc", "--dev", "/dev", "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot run here: {error}"
    if probe.returncode != 0:
        return f"bwrap cannot make a sandbox here: {probe.stderr.strip()[:200]}"
    return ""


def python_roots() -> list[str]:
    """What the ``python3.11-kit`` runtime needs read-only: the Python installation, its environment (a venv's
    site-packages) and the folders of the ``arena`` and ``bots`` packages (an editable install's sources)."""
    import arena
    import bots

    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    for package in (arena, bots):
        roots.add(os.path.dirname(os.path.realpath(package.__file__ or "")))
    return sorted(roots)


def node_roots() -> list[str]:
    node = shutil.which("node")
    if not node:
        raise SandboxUnavailable("node is not installed: the node20 runtime needs Node.js 20 on the bot host")
    return [os.path.dirname(os.path.dirname(os.path.realpath(node)))]


def program(spec: SandboxSpec) -> list[str]:
    """The command inside the sandbox: its program replaced by the runtime's (or the package's binary)."""
    first, rest = spec.command[0], list(spec.command[1:])
    if spec.runtime is Runtime.PYTHON_KIT:
        return [sys.executable, *rest]
    if spec.runtime is Runtime.NODE20:
        return [os.path.realpath(shutil.which("node") or "node"), *rest]
    return [f"{PACKAGE_IN_SANDBOX}/{os.path.normpath(first.removeprefix('./'))}", *rest]


def bwrap_argv(spec: SandboxSpec, bwrap: str | None = None, *, as_root: bool | None = None) -> list[str]:
    """The whole command line: ``bwrap`` with its namespaces and mounts, then (as root) ``setpriv`` to the bot's
    uid, then the bot's command."""
    root = os.geteuid() == 0 if as_root is None else as_root
    argv = [bwrap or find_bwrap(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "bot"]
    if not root:
        argv += ["--unshare-user"]
    argv += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
    for link in ("lib", "lib64", "bin", "sbin"):
        if os.path.islink(f"/{link}"):
            argv += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    runtime_roots = [path for path in (python_roots() if spec.runtime is Runtime.PYTHON_KIT
                                       else node_roots() if spec.runtime is Runtime.NODE20 else [])
                     if path != "/usr" and not path.startswith("/usr/")]
    # The private /tmp first: a runtime installed under /tmp (a checkout there, its venv) is mounted over it
    # afterwards, not hidden by it.
    argv += ["--perms", "1777", "--size", str(spec.limits.tmp_bytes), "--tmpfs", "/tmp"]
    # Folders bwrap would create on the way to a mount point are its own (mode 0700): the bot's uid could not
    # pass them. Made first, mode 0755 (they are empty but for what is mounted in them).
    for folder in _ancestors([*runtime_roots, SOCKET_IN_SANDBOX]):
        argv += ["--perms", "0755", "--dir", folder]
    for path in runtime_roots:
        argv += ["--ro-bind", path, path]
    argv += ["--ro-bind", spec.package_dir, PACKAGE_IN_SANDBOX,
             "--bind", spec.socket_path, SOCKET_IN_SANDBOX,
             "--chdir", PACKAGE_IN_SANDBOX, "--"]
    if root:
        uid = spec.uid if spec.uid is not None else 65534
        argv += [find_setpriv(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs", "--"]
    return argv + program(spec)


def _ancestors(paths: list[str]) -> list[str]:
    """The folders above ``paths`` (not ``/`` or what the sandbox has already), parents first."""
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", "/tmp", "") and parent.split("/")[1] not in ("usr", "proc", "dev"):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def sandbox_env(token: str) -> dict[str, str]:
    """The bot's whole environment: where the gateway is, its own token, and plain settings."""
    return {TARGET_ENV: f"unix:{SOCKET_IN_SANDBOX}", TOKEN_ENV: token, "HOME": "/tmp", "TMPDIR": "/tmp",
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1"}


CPU_HARD_EXTRA_S = 5
"""The hard CPU limit is this much over the soft one: the kernel sends SIGXCPU at the soft one (said as such to the
author), SIGKILL at the hard one (for a process that ignores SIGXCPU)."""


def rlimits(limits: Limits) -> list[tuple[str, int, int]]:
    """The ``resource`` limits of :class:`Limits`: their names in the ``resource`` module, soft and hard values."""
    cpu = limits.cpu_seconds
    return [("RLIMIT_CPU", cpu, cpu + CPU_HARD_EXTRA_S), ("RLIMIT_AS", limits.memory_bytes, limits.memory_bytes),
            ("RLIMIT_NPROC", limits.processes, limits.processes),
            ("RLIMIT_NOFILE", limits.open_files, limits.open_files),
            ("RLIMIT_FSIZE", limits.file_size_bytes, limits.file_size_bytes), ("RLIMIT_CORE", 0, 0)]


def package_path(work_dir: str | Path, sha256: str) -> Path:
    return Path(work_dir) / "packages" / sha256
