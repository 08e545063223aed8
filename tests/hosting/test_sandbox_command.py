"""The sandbox's command line, environment and limits (arena.hosting.sandbox), and the process helpers."""

from __future__ import annotations

import signal

from arena.hosting import sandbox
from arena.hosting.private_mounts import PrivateMounts
from arena.hosting.process import OutputTail, backoff_s, describe_end
from arena.hosting.sandbox import (
    PACKAGE_IN_SANDBOX,
    SOCKET_IN_SANDBOX,
    Limits,
    SandboxSpec,
    bwrap_argv,
    rlimits,
    sandbox_env,
)
from arena.submissions import Runtime

SPEC = SandboxSpec("/srv/pkg/abc", Runtime.PYTHON_KIT, ("python", "bot.py", "--fast"), "/run/gw.sock", 200_001)


def _pairs(argv: list[str], flag: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


def test_as_root_every_namespace_but_the_user_one_and_a_uid_of_its_own() -> None:
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=True)
    sandbox, _, inner = " ".join(argv).partition(" -- ")
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--new-session"):
        assert flag in sandbox.split()
    assert "--unshare-user" not in argv
    assert "--reuid=200001" in inner and "--no-new-privs" in inner and "--bounding-set=-all" in inner
    assert inner.endswith("bot.py --fast") and "python" in inner.split(" -- ")[-1]


def test_not_root_a_user_namespace_and_no_setpriv() -> None:
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=False)
    assert "--unshare-user" in argv
    assert not any("setpriv" in a for a in argv)


def test_only_the_package_the_socket_and_the_runtime_are_mounted_at_neutral_paths() -> None:
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=True)
    read_only = _pairs(argv, "--ro-bind")
    assert ("/srv/pkg/abc", PACKAGE_IN_SANDBOX) in read_only
    assert _pairs(argv, "--bind") == [("/run/gw.sock", SOCKET_IN_SANDBOX)]  # the one writable mount: the socket
    sources = [source for source, _ in read_only]
    assert not any(source in ("/", "/etc", "/home", "/root", "/var", "/run") for source in sources)
    neutral = {"/usr", "/lib", "/lib64", "/bin", "/sbin", PACKAGE_IN_SANDBOX, "/dev/pts/ptmx"}
    assert all(target in neutral or target.startswith("/opt/") for _, target in read_only), read_only
    assert ("/dev/null", "/dev/pts/ptmx") in read_only  # no pty
    assert "--tmpfs" in argv and argv[argv.index("--tmpfs") - 1] == str(Limits().tmp_bytes)


def test_the_python_kit_runs_from_neutral_paths() -> None:
    layout = sandbox.python_layout()
    assert layout.program.startswith(f"{sandbox.PYTHON_IN_SANDBOX}/bin/python")
    targets = {mount.target for mount in layout.mounts}
    kit = f"{sandbox.ARENA_IN_SANDBOX}/"
    assert {sandbox.PYTHON_IN_SANDBOX, f"{kit}arena", f"{kit}bots"} <= targets
    env = dict(layout.env)
    assert env["PYTHONPATH"].split(":")[0] == sandbox.ARENA_IN_SANDBOX
    assert all(not part.startswith(("/work", "/root", "/home")) for part in env["PYTHONPATH"].split(":"))
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=True, layout=layout)
    assert argv[argv.index("--") + 1:][-3:] == [layout.program, "bot.py", "--fast"]


def test_the_launchers_tmpfs_replaces_bwraps_and_no_user_namespace_inside() -> None:
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=True, private=PrivateMounts("/mnt/tmp", "/mnt/bot"))
    assert ("/mnt/tmp", "/tmp") in _pairs(argv, "--bind") and "--tmpfs" not in argv
    assert ("/mnt/bot", PACKAGE_IN_SANDBOX) in _pairs(argv, "--ro-bind")
    rootless = bwrap_argv(SPEC, "/usr/bin/bwrap", as_root=False)
    assert "--disable-userns" in rootless and rootless.index("--disable-userns") > rootless.index("--unshare-user")


def test_the_environment_holds_its_token_and_the_socket_only() -> None:
    env = sandbox_env("bot.secret")
    assert env["UNO_ARENA_BOT_TOKEN"] == "bot.secret"
    assert env["UNO_ARENA_TARGET"] == f"unix:{SOCKET_IN_SANDBOX}"
    assert not {k for k in env if "REDIS" in k or "ADMIN" in k}


def test_every_limit_is_a_resource_limit() -> None:
    limits = Limits(cpu_seconds=7, memory_bytes=1 << 28, processes=9, open_files=33, file_size_bytes=1 << 20)
    table = {name: (soft, hard) for name, soft, hard in rlimits(limits)}
    assert table["RLIMIT_CPU"][0] == 7 and table["RLIMIT_CPU"][1] > 7  # SIGXCPU first, SIGKILL later
    assert table["RLIMIT_AS"] == (1 << 28, 1 << 28)
    assert table["RLIMIT_NPROC"] == (9, 9) and table["RLIMIT_NOFILE"] == (33, 33)
    assert table["RLIMIT_FSIZE"] == (1 << 20, 1 << 20)


def test_the_spec_survives_its_file() -> None:
    assert SandboxSpec.from_json(SPEC.to_json()) == SPEC


def test_backoff_doubles_to_a_minute() -> None:
    assert [backoff_s(n) for n in range(9)] == [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]


def test_ends_are_told_plainly() -> None:
    limits = Limits()
    assert describe_end(0, limits) == "exited with code 0"
    assert "CPU time limit" in describe_end(128 + signal.SIGXCPU, limits)
    assert "file size limit" in describe_end(-signal.SIGXFSZ, limits)
    assert describe_end(137, limits) == "killed by SIGKILL"
    assert describe_end(137, limits, "killed: it did not connect") == "killed: it did not connect"


def test_the_output_keeps_its_tail_and_counts_the_rest() -> None:
    tail = OutputTail(cap=10)
    tail.add(b"0123456789abc\nlast line\n")
    assert bytes(tail.data) == b"last line\n"[-10:] and tail.total == 24
    roomy = OutputTail(cap=100)
    roomy.add(b"first\nlast line\n")
    roomy.note("started")
    assert roomy.last_line() == "last line"
