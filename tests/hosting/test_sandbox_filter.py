"""The sandbox against a bot that attacks it, from outside: a real ``bwrap`` started by the real launcher
(``python -m arena.hosting.launch``), a probe bot in the ``python3.11-kit`` runtime that tries what a hostile author
would (other socket families, keyrings, a user namespace, ptrace, mount, bpf, a pty, an inode flood of /tmp, the
host's paths in /proc) each in a child process of its own, and reports what happened to each. Skips naming what is
missing (bwrap; root for the uid, the private /tmp and its inode limit)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.hosting.sandbox import Limits, SandboxSpec, sandbox_missing
from arena.hosting.seccomp import KILL_SIGNAL
from arena.submissions import Runtime

pytestmark = pytest.mark.integration

INODES = 512

# Each attack runs in a child: a filter that kills ends the child (SIGSYS) and the probe reports it.
PROBE = r'''
import ctypes, errno, json, os, platform, signal, socket
from arena.hosting.seccomp import AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, SYSCALLS

NR = SYSCALLS[AUDIT_ARCH_X86_64 if platform.machine() == "x86_64" else AUDIT_ARCH_AARCH64]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
report = {}

def call(result):
    return "ok" if result >= 0 else "errno " + errno.errorcode.get(ctypes.get_errno(), "?")

def attempt(name, action):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            outcome = action()
        except OSError as error:
            outcome = "errno " + errno.errorcode.get(error.errno, "?")
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    outcome = os.read(read, 4096).decode()
    os.close(read)
    status = os.waitpid(pid, 0)[1]
    report[name] = ("signal " + signal.Signals(os.WTERMSIG(status)).name) if os.WIFSIGNALED(status) else outcome

for family in ("AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET"):
    kind = socket.SOCK_DGRAM if family in ("AF_NETLINK", "AF_PACKET") else socket.SOCK_STREAM
    attempt("socket " + family, lambda f=getattr(socket, family), k=kind: call(libc.socket(f, k, 0)))
attempt("socketpair AF_INET", lambda: call(libc.socketpair(socket.AF_INET, socket.SOCK_STREAM, 0,
                                                            (ctypes.c_int * 2)())))
attempt("add_key", lambda: call(libc.syscall(NR["add_key"], b"user", b"counter", b"1", 1, -4)))
attempt("keyctl", lambda: call(libc.syscall(NR["keyctl"], 0, -4, 0)))
attempt("unshare user", lambda: call(libc.unshare(0x10000000)))
attempt("unshare files", lambda: call(libc.unshare(0x400)))
attempt("clone user", lambda: call(libc.syscall(NR["clone"], 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0)))
attempt("ptrace", lambda: call(libc.syscall(NR["ptrace"], 16, 1, 0, 0)))
attempt("mount", lambda: call(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
attempt("bpf", lambda: call(libc.syscall(NR["bpf"], 5, 0, 0)))
attempt("clone3", lambda: call(libc.syscall(NR["clone3"], 0, 0)))
attempt("io_uring_setup", lambda: call(libc.syscall(NR["io_uring_setup"], 8, 0)))
attempt("personality", lambda: call(libc.syscall(NR["personality"], 0x0040000)))
attempt("pty", lambda: (os.openpty(), "ok")[1])
attempt("fork and thread", lambda: (__import__("threading").Thread(target=lambda: None).start(),
                                    os.waitpid(os.fork() or os._exit(0) or 0, 0) if False else None, "ok")[2])

def flood():
    for n in range(300_000):
        try:
            open(f"/tmp/f{n}", "w").close()
        except OSError as error:
            return f"stopped at {n}: " + errno.errorcode.get(error.errno, "?")
    return "created 300000"

attempt("tmp flood", flood)
report["uid"] = os.getuid()
with open("/proc/1/cmdline", "rb") as f:
    report["cmdline 1"] = f.read().replace(b"\0", b" ").decode()
with open("/proc/self/cmdline", "rb") as f:
    report["cmdline self"] = f.read().replace(b"\0", b" ").decode()
with open("/proc/self/mountinfo") as f:
    report["mountinfo"] = f.read()
with open("/proc/self/cgroup") as f:
    report["cgroup"] = f.read()
report["bot"] = sorted(os.listdir("/bot"))
report["open files"] = sorted(os.listdir("/proc/self/fd"))
print(json.dumps(report))
'''


def launch(tmp_path: Path, uid: int, code: str) -> subprocess.CompletedProcess[str]:
    """``code`` as the bot.py of a python3.11-kit package, run through the launcher (as ``uid`` when root)."""
    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox: {missing}")
    package = tmp_path / "package"
    package.mkdir()
    (package / "bot.py").write_text(code)
    package.chmod(0o755)
    gateway = socket.socket(socket.AF_UNIX)
    gateway.bind(str(tmp_path / "gw.sock"))
    spec = SandboxSpec(str(package), Runtime.PYTHON_KIT, ("python", "bot.py"), str(tmp_path / "gw.sock"),
                       uid if os.geteuid() == 0 else None, Limits(tmp_inodes=INODES))
    (tmp_path / "spec.json").write_text(json.dumps(spec.to_json()))
    try:
        done = subprocess.run([sys.executable, "-m", "arena.hosting.launch", str(tmp_path / "spec.json")],
                              env=dict(os.environ, UNO_ARENA_BOT_TOKEN="bot.secret"), capture_output=True,
                              text=True, timeout=120)
    finally:
        gateway.close()
    return done


def run_probe(tmp_path: Path, uid: int = 200_997, code: str = PROBE) -> dict[str, Any]:
    """What the probe reported (its last line, JSON), and ``work``: the host folder of its package and socket."""
    done = launch(tmp_path, uid, code)
    assert done.returncode == 0, done.stderr
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "work": str(tmp_path)}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_probe(tmp_path_factory.mktemp("probe"))


def test_only_unix_sockets_and_the_others_are_an_error_not_a_kill(report: dict[str, Any]) -> None:
    assert report["socket AF_UNIX"] == "ok"
    for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET"):
        assert report[f"socket {family}"] == "errno EAFNOSUPPORT", family
    assert report["socketpair AF_INET"] == "errno EAFNOSUPPORT"


def test_keyrings_namespaces_ptrace_mount_and_bpf_kill_the_process(report: dict[str, Any]) -> None:
    for attack in ("add_key", "keyctl", "unshare user", "clone user", "ptrace", "mount", "bpf"):
        assert report[attack] == "signal SIGSYS", attack


def test_what_libraries_probe_is_an_error_and_threads_forks_work(report: dict[str, Any]) -> None:
    assert report["clone3"] == "errno ENOSYS" and report["io_uring_setup"] == "errno ENOSYS"
    assert report["personality"] == "errno EPERM"
    assert report["unshare files"] == "ok"  # no namespace flag: allowed
    assert report["fork and thread"] == "ok"


def test_no_pty(report: dict[str, Any]) -> None:
    assert report["pty"].startswith("errno"), report["pty"]


def test_the_tmp_stops_at_its_inode_limit(report: dict[str, Any]) -> None:
    if os.geteuid() != 0:
        pytest.skip("the inode limit of /tmp needs a root bot host (the launcher mounts that tmpfs)")
    outcome = report["tmp flood"]
    assert outcome.startswith("stopped at ") and outcome.endswith("ENOSPC"), outcome
    assert int(outcome.split()[2].rstrip(":")) < INODES


def test_no_host_path_in_its_processes_or_mounts(report: dict[str, Any]) -> None:
    repository = os.path.dirname(os.path.dirname(os.path.realpath(arena.__file__)))
    host_paths = {repository, os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), report["work"]}
    for name in ("cmdline 1", "cmdline self", "cgroup"):
        assert not any(path in report[name] for path in host_paths), report[name]
    assert report["bot"] == ["bot.py"]
    assert report["open files"] == ["0", "1", "2", "3"]  # bwrap's files (its options, the filter) are not left open
    if os.geteuid() == 0:
        assert report["uid"] == 200_997
        # /bot and /tmp are tmpfs of the launcher's: the package's folder (the host's work folder) is not named.
        # The runtime's folders and the gateway socket's still are: docs/hosting.md.
        mounts = {line.split()[4]: line.split()[3] for line in report["mountinfo"].splitlines()}
        assert mounts["/bot"] == "/" and mounts["/tmp"] == "/"
        assert report["work"] not in report["mountinfo"].replace(f"{report['work']}/gw.sock", "")


def test_a_bot_whose_own_process_calls_keyctl_ends_by_sigsys(tmp_path: Path) -> None:
    """The host sees the kill: the launcher (bwrap) ends with 128 + SIGSYS, which the host tells the author."""
    code = ("import ctypes, platform\nfrom arena.hosting.seccomp import AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, "
            "SYSCALLS\narch = AUDIT_ARCH_X86_64 if platform.machine() == 'x86_64' else AUDIT_ARCH_AARCH64\n"
            "ctypes.CDLL(None).syscall(SYSCALLS[arch]['keyctl'], 0, -4, 0)\nprint('still here')\n")
    done = launch(tmp_path, 200_997, code)
    assert done.returncode == 128 + KILL_SIGNAL and "still here" not in done.stdout
