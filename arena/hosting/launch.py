"""Start one sandboxed bot: ``python -m arena.hosting.launch SPEC.json``.

It joins the bot's cgroup when the spec names one (:func:`arena.hosting.cgroups.join`: the memory, CPU and process
limits of the whole bot), as root mounts the bot's ``/tmp`` with its inode limit and a copy of its package in a mount
namespace of its own (:mod:`arena.hosting.private_mounts`), sets the resource limits of
:class:`arena.hosting.sandbox.Limits` on itself (``setrlimit``: soft and hard), then replaces itself with ``bwrap``
(:func:`arena.hosting.sandbox.bwrap_argv`), whose environment is only the sandbox's
(:func:`arena.hosting.sandbox.sandbox_env`): of its own environment it passes on the bot's token
(``$UNO_ARENA_BOT_TOKEN``) and nothing else, so no secret of the host (``$REDIS_URL``, the admin token) reaches the
bot. ``bwrap`` gets the syscall filter (:mod:`arena.hosting.seccomp`, ``--seccomp``) and its options (``--args``) in
files in memory, so the sandbox's pid 1 shows no host path in its command line. The group, the limits and the filter
are inherited by everything the bot starts. The bot host runs it, and so does the check of a new submission
(``uno-arena bot check --run "python -m arena.hosting.launch SPEC --socket PATH"``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from collections.abc import Sequence
from dataclasses import replace

from arena.hosting.cgroups import CgroupError, join
from arena.hosting.private_mounts import make_private_mounts
from arena.hosting.sandbox import (
    TOKEN_ENV,
    SandboxSpec,
    SandboxUnavailable,
    bwrap_argv,
    rlimits,
    runtime_layout,
    sandbox_env,
)
from arena.hosting.seccomp import program as seccomp_program


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.hosting.launch", description=__doc__)
    parser.add_argument("spec", help="the sandbox's JSON spec (written by the bot host)")
    parser.add_argument("--socket", default=None, help="the gateway's Unix socket (default: the spec's)")
    args = parser.parse_args(argv)
    with open(args.spec, encoding="utf-8") as f:
        spec = SandboxSpec.from_json(json.load(f))
    if args.socket:
        spec = replace(spec, socket_path=os.path.abspath(args.socket.removeprefix("unix:")))
    token = os.environ.get(TOKEN_ENV, "")
    try:
        layout = runtime_layout(spec.runtime)
        bwrap_argv(spec, layout=layout)  # every program it needs is there, before anything is changed
        join(spec.cgroups)
        private = None
        if os.geteuid() == 0:
            needed = [spec.package_dir, spec.socket_path, *(m.source for m in layout.mounts)]
            private = make_private_mounts(spec.limits.tmp_bytes, spec.limits.tmp_inodes, spec.package_dir, needed)
        command = bwrap_argv(spec, private=private, layout=layout)
    except (SandboxUnavailable, CgroupError, OSError) as error:  # PrivateMountError, a package not copied
        print(f"error: {error}", file=sys.stderr)
        return 2
    for name, soft, hard in rlimits(spec.limits):
        resource.setrlimit(getattr(resource, name), (soft, hard))
    sys.stdout.flush()
    bwrap, end = command[0], command.index("--")
    options = ["--seccomp", str(_inherited_file("seccomp", seccomp_program())), *command[1:end]]
    # bwrap's options in a file, not on its command line: the sandbox's pid 1 (bwrap) shows its command line in
    # /proc/1/cmdline, and the options name the host's folders. The command after "--" names none.
    options_fd = _inherited_file("bwrap-options", b"".join(a.encode() + b"\0" for a in options))
    os.execve(bwrap, [bwrap, "--args", str(options_fd), *command[end:]], sandbox_env(token, layout))
    return 1  # not reached


def _inherited_file(name: str, data: bytes) -> int:
    """A file in memory holding ``data`` (read from its start), left open for ``bwrap``: its descriptor."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd


if __name__ == "__main__":
    sys.exit(main())
