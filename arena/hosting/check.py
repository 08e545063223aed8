"""A new submission's admission: ``uno-arena bot check`` with the bot running in its sandbox, as in a live match.

The check is the conformance check every author runs, in a process of its own with a private store (nothing of it
is written into the live arena). Its ``--run`` command is the sandbox's launcher on the check's socket, shown at the
live gateway's path; the bot gets its own name and a host token of its version, exactly as the live process does: so
a bot cannot behave for the check alone by anything it can read. Exit 0 admits the submission.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

from arena.hosting.process import stop_group
from arena.hosting.sandbox import TOKEN_ENV

CHECK_WAIT_S = 20.0  # seconds the check waits for the sandboxed bot to connect
CHECK_TIME_CAP_S = 90.0
"""Seconds every check together may take past the wait: a bot that answers well within its deadline takes about
10-30 s; one that answers each decision just before it ran 89-126 s and held a check slot that long."""
CHECK_BUDGET_S = 420.0  # the default of ``bot check --time-cap``: a safety net over the per-check budgets
CHECK_SLACK_S = 30.0
"""Past the wait and the cap, the time the check's process has to start, give its verdict and stop its bot; then it
is stopped and the submission rejected."""
STOP_GRACE_S = 5.0
MAX_REASON = 1900
PRIVATE_ENV = ("REDIS_URL", "UNO_ARENA_ADMIN_TOKEN", "UNO_ARENA_ADMIN_TOKEN_FILE", TOKEN_ENV,
               "UNO_ARENA_BOT_TOKEN_FILE", "UNO_ARENA_TOKEN")
"""What of the host's environment the check's process is not given: it needs no store but its own, no token."""


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str


SIGSYS_EXIT = f"exited with code {128 + signal.SIGSYS}"  # `bot check` on a SIGSYS (bwrap reports 128 + signal)


def reason_of(output: str, passed: bool, seconds: float = 0.0, time_cap_s: float = CHECK_TIME_CAP_S,
              host_paths: tuple[str, ...] = ()) -> str:
    """The verdict's reason from the check's output: the summary when it passed; else every line but the passed
    checks and the host's own, the end kept when too long. No line names ``host_paths``."""
    lines = [line for line in output.splitlines() if line.strip() and not line.startswith("started: ")]
    lines = [line.replace(SIGSYS_EXIT, "was killed by SIGSYS: it made a system call the sandbox forbids")
             for line in lines]
    for path in host_paths:
        lines = [line.replace(path, "...") for line in lines]
    took = f" (in {seconds:.0f} s; a check may take {time_cap_s:g} s)" if seconds else ""
    if passed:
        summary = [line for line in lines if line.endswith("checks passed") and " of " in line]
        return f"bot check in the sandbox: {summary[-1] if summary else 'all checks passed'}{took}"
    kept = "\n".join(line for line in lines if not line.startswith("PASS "))
    head = f"bot check in the sandbox failed{took}"
    return (f"{head}:\n" + kept[-MAX_REASON:]) if kept else head


async def check_in_sandbox(spec_file: str, socket_dir: str, bot: str, version: str, *, wait_s: float = CHECK_WAIT_S,
                           time_cap_s: float = CHECK_TIME_CAP_S) -> Verdict:
    """Run ``uno-arena bot check`` of bot ``bot`` (a host token of ``version``), its ``--run`` the sandbox's launcher
    of ``spec_file``."""
    socket_path = os.path.join(socket_dir, f"gw-{uuid.uuid4().hex[:8]}.sock")
    run = shlex.join([sys.executable, "-m", "arena.hosting.launch", spec_file, "--socket", socket_path])
    argv = [sys.executable, "-m", "arena.cli", "bot", "check", "--name", bot, "--hosted-version", version,
            "--unix-socket", socket_path, "--wait", f"{wait_s:g}", "--time-cap", f"{time_cap_s:g}", "--run", run]
    env = {k: v for k, v in os.environ.items() if k not in PRIVATE_ENV}
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(*argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, start_new_session=True)
    out: bytes | None = None
    try:
        with contextlib.suppress(TimeoutError):
            out, _ = await asyncio.wait_for(process.communicate(), wait_s + time_cap_s + CHECK_SLACK_S)
    finally:  # timed out, or the host is stopping: the check (and with it its bot and its store) goes
        if process.returncode is None:
            await stop_group(process, STOP_GRACE_S)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(socket_path)
    seconds = time.monotonic() - started
    if out is None:
        return Verdict(False, f"bot check in the sandbox did not end within {wait_s + time_cap_s:g} s (the time a "
                              "check may take)")
    passed = process.returncode == 0
    return Verdict(passed, reason_of(out.decode("utf-8", "replace"), passed, seconds, time_cap_s,
                                     (spec_file, socket_path, socket_dir)))

