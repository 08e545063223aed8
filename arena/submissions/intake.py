"""The submission check run off the serving path: a child process of its own, with CPU, memory and time limits.

:class:`IntakeRunner` is the parent's side, on an asyncio loop: it starts the child (:mod:`.intake_child`), kills it
past its wall time, checks the reply (the archive's sha256 again) and bounds how many checks run at once: a caller
takes a slot *before* it reads the archive, so a refused upload is not read at all. A bomb costs the child its limits
and the gateway nothing: the child's death or overrun is a :class:`SubmissionRejected` naming the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from .package import SubmissionRejected


@dataclass(frozen=True)
class IntakeLimits:
    """What one check may cost, and how many run at once per process that starts them."""

    cpu_seconds: int = 10
    memory_bytes: int = 512 * 1024 * 1024
    wall_seconds: float = 20.0
    max_running: int = 2  # checks at once; one more is refused (IntakeBusy), not queued


DEFAULT_INTAKE_LIMITS = IntakeLimits()


@dataclass(frozen=True)
class CheckedPackage:
    """What the intake gives back of an accepted submission: enough to store it."""

    runtime: str
    command: tuple[str, ...]
    sha256: str
    archive: bytes


class IntakeBusy(Exception):
    """Too many checks are running on this process now; ``retry_s``: when to try again."""

    def __init__(self, running: int, retry_s: float) -> None:
        super().__init__(f"{running} submissions are being checked on this gateway, the most at once: try again "
                         f"in {retry_s:g} s")
        self.retry_s = retry_s


class IntakeFailed(Exception):
    """The intake itself failed (could not start, answered nonsense): not the submission's fault."""


class IntakeRunner:
    """Checks archives in child processes, at most ``max_running`` at once; use from one asyncio loop."""

    def __init__(self, limits: IntakeLimits = DEFAULT_INTAKE_LIMITS) -> None:
        self.limits = limits
        self.running = 0

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """One of the ``max_running`` checks, held while the archive is read; :class:`IntakeBusy` when none is free."""
        if self.running >= self.limits.max_running:
            raise IntakeBusy(self.running, max(1.0, self.limits.wall_seconds / 4))
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1

    async def check(self, archive: bytes) -> CheckedPackage:
        """The checked package, in a slot of its own; SubmissionRejected, IntakeBusy or IntakeFailed."""
        with self.slot():
            return await self.check_in_slot(archive)

    async def check_in_slot(self, archive: bytes) -> CheckedPackage:
        """:meth:`check` for a caller that holds a :meth:`slot` already."""
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena.submissions.intake_child", str(self.limits.cpu_seconds),
                str(self.limits.memory_bytes), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            raise IntakeFailed(f"cannot start the submission check: {error.strerror}") from None
        try:
            out, _ = await asyncio.wait_for(process.communicate(archive), self.limits.wall_seconds)
        except BaseException as error:  # past its wall time, or the caller gone: the child goes
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            if isinstance(error, TimeoutError):
                raise SubmissionRejected(f"checking the archive took more than {self.limits.wall_seconds:g} s, the "
                                         "most allowed: submit a smaller, simpler archive") from None
            raise
        return self._reply(out, process.returncode or 0)

    def _reply(self, out: bytes, returncode: int) -> CheckedPackage:
        header, _, body = out.partition(b"\n")
        if returncode != 0 or not header:
            if returncode in (-signal.SIGXCPU, -signal.SIGKILL):
                raise SubmissionRejected(f"checking the archive took more than {self.limits.cpu_seconds} s of CPU, "
                                         "the most allowed: submit a smaller, simpler archive")
            raise IntakeFailed(f"the submission check ended without a verdict (exit status {returncode})")
        try:
            reply = json.loads(header)
            verdict = str(reply["verdict"])
        except (ValueError, KeyError, TypeError):
            raise IntakeFailed("the submission check answered something unreadable") from None
        if verdict == "rejected":
            raise SubmissionRejected(str(reply.get("reason", "refused")))
        if verdict == "memory":
            raise SubmissionRejected(f"checking the archive needed more than {self.limits.memory_bytes >> 20} MiB "
                                     "of memory, the most allowed: submit a smaller archive")
        sha256 = str(reply.get("sha256", ""))
        if verdict != "accepted" or hashlib.sha256(body).hexdigest() != sha256:
            raise IntakeFailed("the submission check's archive does not match its sha256")
        return CheckedPackage(str(reply["runtime"]), tuple(str(w) for w in reply["command"]), sha256, body)
