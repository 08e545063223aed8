"""Start one sandboxed bot: ``python -m arena.hosting.launch SPEC.json``.

It joins the bot's cgroup when the spec names one (:func:`arena.hosting.cgroups.join`: the memory, CPU and process
limits of the whole bot), sets the resource limits of :class:`arena.hosting.sandbox.Limits` on itself
(``setrlimit``: soft and hard), then replaces itself with ``bwrap`` (:func:`arena.hosting.sandbox.bwrap_argv`),
whose environment is only the sandbox's (:func:`arena.hosting.sandbox.sandbox_env`): of its own environment it
passes on the bot's token (``$UNO_ARENA_BOT_TOKEN``) and nothing else, so no secret of the host (``$REDIS_URL``,
the admin token) reaches the bot. The group and the limits are inherited by everything the bot starts. The bot host
runs it, and so does the check of a new submission
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
from arena.hosting.sandbox import TOKEN_ENV, SandboxSpec, SandboxUnavailable, bwrap_argv, rlimits, sandbox_env


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
        command = bwrap_argv(spec)
        join(spec.cgroups)
    except (SandboxUnavailable, CgroupError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for name, soft, hard in rlimits(spec.limits):
        resource.setrlimit(getattr(resource, name), (soft, hard))
    sys.stdout.flush()
    os.execve(command[0], command, sandbox_env(token))
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
