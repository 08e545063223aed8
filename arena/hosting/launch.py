"""Start one sandboxed bot: ``python -m arena.hosting.launch SPEC.json``.

It joins the bot's cgroup, as root mounts the bot's private ``/tmp`` and package, sets the resource limits on itself,
then replaces itself with ``bwrap``, whose environment is only the sandbox's: of its own it passes on the bot's token
and nothing else (no ``$REDIS_URL``, no admin token). The syscall filter and bwrap's options go in files in memory, so
the sandbox's pid 1 shows no host path. The bot host runs it, and so does the check of a new submission.
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
    inherited_file,
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
    options = ["--seccomp", str(inherited_file("seccomp", seccomp_program())), *command[1:end]]
    # bwrap's options in a file, not on its command line: the sandbox's pid 1 (bwrap) shows its command line in
    # /proc/1/cmdline, and the options name the host's folders. The command after "--" names none.
    options_fd = inherited_file("bwrap-options", b"".join(a.encode() + b"\0" for a in options))
    os.execve(bwrap, [bwrap, "--args", str(options_fd), *command[end:]], sandbox_env(token, layout))
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
