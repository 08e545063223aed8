"""A new submission's admission: ``uno-arena bot check`` with the bot running in its sandbox.

The check is the conformance check every author runs (:mod:`arena.server.conformance`), in a process of its own:
its gateway listens on a Unix socket of its own as well, and its ``--run`` command is the sandbox's launcher
(:mod:`arena.hosting.launch`) bound to that socket, so the bot is checked exactly as it will run: same sandbox,
same limits, no network. The check registers a bot of its own for the run (``check-XXXXXXXX``, deleted at its end):
it never disturbs the bot's live process. Exit 0 admits the submission; the verdict's reason is the check's
failed lines and the bot's last output lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass

from arena.hosting.sandbox import TOKEN_ENV

CHECK_WAIT_S = 20.0
"""Seconds the check waits for the sandboxed bot to connect."""
CHECK_TIMEOUT_S = 180.0
"""The whole check ends within this (it is then killed and the submission rejected)."""
MAX_REASON = 1900


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str


def reason_of(output: str, passed: bool) -> str:
    """The verdict's reason from the check's output: the summary when it passed; else every line but the checks
    that passed (the failed checks, the bot's last lines, the summary), the end kept when too long."""
    lines = [line for line in output.splitlines() if line.strip()]
    if passed:
        summary = [line for line in lines if line.endswith("checks passed") and " of " in line]
        return f"bot check in the sandbox: {summary[-1] if summary else 'all checks passed'}"
    kept = "\n".join(line for line in lines if not line.startswith("PASS "))
    return ("bot check in the sandbox failed:\n" + kept[-MAX_REASON:]) if kept else "bot check in the sandbox failed"


async def check_in_sandbox(spec_file: str, socket_dir: str, *, wait_s: float = CHECK_WAIT_S,
                           timeout_s: float = CHECK_TIMEOUT_S) -> Verdict:
    """Run ``uno-arena bot check`` on the sandboxed bot of ``spec_file`` (the arena's store: ``$REDIS_URL``)."""
    socket_path = os.path.join(socket_dir, f"check-{uuid.uuid4().hex[:8]}.sock")
    run = shlex.join([sys.executable, "-m", "arena.hosting.launch", spec_file, "--socket", socket_path])
    argv = [sys.executable, "-m", "arena.cli", "bot", "check", "--unix-socket", socket_path, "--wait", f"{wait_s:g}",
            "--run", run]
    env = {k: v for k, v in os.environ.items() if k not in (TOKEN_ENV, "UNO_ARENA_BOT_TOKEN_FILE")}
    process = await asyncio.create_subprocess_exec(*argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, start_new_session=True)
    out: bytes | None = None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout_s)
    except TimeoutError:
        pass
    finally:  # timed out, or the host is stopping: the check and its sandboxed bot go
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(socket_path)
    if out is None:
        return Verdict(False, f"bot check in the sandbox did not end within {timeout_s:g} s")
    passed = process.returncode == 0
    return Verdict(passed, reason_of(out.decode("utf-8", "replace"), passed))
