"""The submission check run off the serving path: a child process of its own, with CPU, memory and time limits.

``python -m arena.submissions.intake`` reads one archive on stdin, limits itself first (address space
``RLIMIT_AS``, CPU time ``RLIMIT_CPU``, no file written: ``RLIMIT_FSIZE`` 0), runs
:func:`arena.submissions.read_package` and writes one header line (JSON: the verdict, and for an accepted
package its runtime, command and sha256) followed by the canonical archive.

:class:`IntakeRunner` is the parent's side, on an asyncio loop: it starts the child (no thread is held while it
runs), kills it past its wall time, checks the reply (the archive's sha256 again) and bounds how many checks run
at once (:class:`IntakeBusy` past it). A bomb costs the child its limits and the gateway nothing: the child's
death or overrun is a :class:`SubmissionRejected` naming the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import resource
import signal
import sys
from dataclasses import dataclass

from .archives import read_package
from .package import DEFAULT_LIMITS, Limits, SubmissionRejected


@dataclass(frozen=True)
class IntakeLimits:
    """What one check may cost, and how many run at once per process that starts them."""

    cpu_seconds: int = 10
    memory_bytes: int = 512 * 1024 * 1024
    wall_seconds: float = 20.0
    max_running: int = 2
    """Checks at once; one more is refused (:class:`IntakeBusy`), not queued."""


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
    """Checks archives in child processes (``python -m arena.submissions.intake``), at most ``max_running`` at
    once; use from one asyncio loop."""

    def __init__(self, limits: IntakeLimits = DEFAULT_INTAKE_LIMITS, package_limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.package_limits = package_limits
        self.running = 0

    async def check(self, archive: bytes) -> CheckedPackage:
        """The checked package; SubmissionRejected (with the one reason, or the limit the check overran),
        IntakeBusy, or IntakeFailed."""
        if self.running >= self.limits.max_running:
            raise IntakeBusy(self.running, max(1.0, self.limits.wall_seconds / 4))
        self.running += 1
        try:
            return await self._run(archive)
        finally:
            self.running -= 1

    async def _run(self, archive: bytes) -> CheckedPackage:
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena.submissions.intake", str(self.limits.cpu_seconds),
                str(self.limits.memory_bytes), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            raise IntakeFailed(f"cannot start the submission check: {error.strerror}") from None
        try:
            out, _ = await asyncio.wait_for(process.communicate(archive), self.limits.wall_seconds)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise SubmissionRejected(f"checking the archive took more than {self.limits.wall_seconds:g} s, the most "
                                     "allowed: submit a smaller, simpler archive") from None
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
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


def _limit_self(cpu_seconds: int, memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _write(header: dict[str, object], body: bytes = b"") -> None:
    sys.stdout.buffer.write(json.dumps(header, separators=(",", ":")).encode() + b"\n" + body)
    sys.stdout.buffer.flush()


def main(argv: list[str]) -> int:
    """The child: ``CPU_SECONDS MEMORY_BYTES``, the archive on stdin, the verdict on stdout."""
    cpu_seconds, memory_bytes = (int(argv[0]), int(argv[1])) if len(argv) == 2 else (10, 512 << 20)
    _limit_self(cpu_seconds, memory_bytes)
    data = sys.stdin.buffer.read(DEFAULT_LIMITS.max_archive_bytes + 1)
    try:
        package = read_package(data, DEFAULT_LIMITS)
    except SubmissionRejected as error:
        _write({"verdict": "rejected", "reason": str(error)})
        return 0
    except MemoryError:
        _write({"verdict": "memory"})
        return 0
    _write({"verdict": "accepted", "runtime": package.manifest.runtime.value, "command": list(package.manifest.command),
            "sha256": package.sha256}, package.archive)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
