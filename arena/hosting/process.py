"""One hosted bot's process, kept running: started through :mod:`arena.hosting.launch`, the end of its output kept,
killed past its lifetime or when it has not connected in time, started again after a backoff. Each end is described
for its author (:func:`describe_end`); after a breach of the sandbox (SIGSYS, the syscall filter's kill) the host
stops that version for good."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from arena.hosting.cgroups import Cgroup, oom_kills
from arena.hosting.sandbox import TOKEN_ENV, Limits

OUTPUT_CAP = 64 * 1024
OUTPUT_RATE = 4 * 1024 * 1024
"""Bytes of output a second the host reads of one process at most: past it a flooding bot's writes wait, so it spends
its own time blocked, not the host's CPU."""
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0
STABLE_S = 60.0  # a process that ran this long before it ended starts the backoff over
STOP_GRACE_S = 3.0
SPENT_POLL_S = 0.5  # how often a fresh sandbox's token is looked at (spent: its one match is over)
MATCH_PLAYED = "ended: it played its one match (bots without memory: a fresh sandbox plays the next)"
SIGSYS_BREACH = ("stopped: it made a system call the sandbox forbids (SIGSYS); fix the bot and submit a new "
                 "version")


def signal_of(code: int) -> int:
    """The signal that ended a process of exit status ``code`` (negative, or bwrap's 128 + signal), else 0."""
    return -code if code < 0 else code - 128 if code > 128 else 0


def backoff_s(quick_ends: int) -> float:
    """The pause before the next start after ``quick_ends`` ends in a row that came before :data:`STABLE_S`."""
    if quick_ends <= 0:
        return 0.0
    return min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** (quick_ends - 1))


def memory_limit_reached(limits: Limits) -> str:
    """The end of a bot whose cgroup's OOM killer fired, for its author."""
    return (f"killed: memory limit of the bot ({limits.bot_memory_bytes // (1024 * 1024)} MiB, all its processes "
            "together) reached")


def describe_end(code: int, limits: Limits, killed_for: str = "", out_of_memory: bool = False) -> str:
    """Why a sandboxed process ended, for its author: the host's own kill, its group's OOM killer (and how the
    process then ended, unless that was the kill), a limit's signal, or its exit code."""
    if killed_for:
        return killed_for
    sig = signal_of(code)
    if out_of_memory:
        reached = memory_limit_reached(limits)
        return reached if sig == signal.SIGKILL else f"{reached}; then {describe_end(code, limits)}"
    if sig == signal.SIGXCPU:
        return f"killed: CPU time limit ({limits.cpu_seconds} s of CPU per process) reached (SIGXCPU)"
    if sig == signal.SIGXFSZ:
        return f"killed: file size limit ({limits.file_size_bytes} bytes) exceeded (SIGXFSZ)"
    return describe_exit(-sig if sig else code)


def describe_exit(code: int) -> str:
    """How a process of exit status ``code`` (negative: the signal) ended."""
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exited with code {code}"


async def stop_group(process: asyncio.subprocess.Process, grace_s: float, *, leftovers: bool = False) -> None:
    """SIGTERM to the process's group, SIGKILL after ``grace_s``; reaped. ``leftovers``: both go to the group even
    when the process itself exited (whatever it left behind in its group)."""
    _signal_group(process, signal.SIGTERM, leftovers)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), grace_s)
    _signal_group(process, signal.SIGKILL, leftovers)
    await process.wait()


def _signal_group(process: asyncio.subprocess.Process, sig: int, exited_too: bool = False) -> None:
    if process.returncode is None or exited_too:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)


HOST_NOTE = "[uno-arena host] "  # how the host's own lines about a process start in its output


class OutputTail:
    """The last :data:`OUTPUT_CAP` bytes a process wrote, and how many it wrote in all."""

    def __init__(self, cap: int = OUTPUT_CAP) -> None:
        self.cap = cap
        self.data = bytearray()
        self.total = 0
        self.changed = False

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.cap:
            del self.data[:len(self.data) - self.cap]
        self.changed = True

    def note(self, line: str) -> None:
        """A line of the host's own about the process (a start, an end), marked as such."""
        self.add(f"{HOST_NOTE}{line}\n".encode())

    def last_line(self) -> str:
        lines = [line for line in bytes(self.data).decode("utf-8", "replace").splitlines()
                 if line.strip() and not line.startswith(HOST_NOTE)]
        return lines[-1].strip()[:200] if lines else ""


@dataclass
class Run:
    """How one life of a process ended."""

    code: int
    detail: str
    seconds: float
    match_played: bool = False  # a fresh sandbox ended by the host after its one match (a normal end: no backoff)
    breach: str = ""  # why the process broke a rule of the sandbox (:data:`SIGSYS_BREACH`); '' when it did not


class SandboxedProcess:
    """One bot's process in its sandbox (in ``group``): :meth:`run_once` runs one life of it."""

    def __init__(self, spec_file: str, token: str, limits: Limits, output: OutputTail,
                 connected: Callable[[], Awaitable[bool]], group: Cgroup | None = None,
                 match_played: Callable[[], Awaitable[bool]] | None = None) -> None:
        self.spec_file = spec_file
        self.group = group
        self.token = token
        self.limits = limits
        self.output = output
        self.connected = connected
        self.match_played = match_played  # for a fresh sandbox: whether its one match is over (its token spent)
        self.process: asyncio.subprocess.Process | None = None

    async def run_once(self, stop: asyncio.Event) -> Run:
        """Start it and wait for its end, the host's stop, its lifetime or a missed connection; then it is gone."""
        started = time.monotonic()
        written_before = self.output.total  # the tail is the bot's, across its lives; this count is this life's
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena.hosting.launch", self.spec_file,
            env={TOKEN_ENV: self.token, "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        reader = asyncio.create_task(self._read())
        killed_for = await self._watch(stop, started)
        code = await self.process.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(reader, 2.0)
        reader.cancel()
        seconds = time.monotonic() - started
        if killed_for == MATCH_PLAYED:
            return Run(code, MATCH_PLAYED, seconds, match_played=True)
        # Only the syscall filter's kill (SIGSYS) is a breach: limits are not rules, and the host's kills are its own.
        breach = SIGSYS_BREACH if not killed_for and signal_of(code) == signal.SIGSYS else ""
        detail = breach or describe_end(code, self.limits, killed_for,
                                        self.group is not None and oom_kills(self.group) > 0)
        written = self.output.total - written_before
        if written > self.output.cap:
            detail += f"; it wrote {written} bytes of output (the last {self.output.cap} kept)"
        last = self.output.last_line()
        if last and not killed_for.startswith("stopped"):
            detail += f"; its last line: {last}"
        return Run(code, detail, seconds, breach=breach)

    async def _watch(self, stop: asyncio.Event, started: float) -> str:
        """Wait for the process's end; '' when it ended by itself, else why the host killed it."""
        assert self.process is not None
        exited = asyncio.create_task(self.process.wait())
        stopping = asyncio.create_task(stop.wait())
        try:
            connect_by = started + self.limits.connect_s
            end_by = started + self.limits.lifetime_s
            seen = False
            poll_s = 1.0 if self.match_played is None else SPENT_POLL_S
            while True:
                now = time.monotonic()
                wait = min(end_by, connect_by if not seen else end_by) - now
                done, _ = await asyncio.wait({exited, stopping}, timeout=max(0.0, min(wait, poll_s)),
                                             return_when=asyncio.FIRST_COMPLETED)
                if exited in done:
                    return ""
                if stopping in done:
                    await self.stop()
                    return "stopped: the bot host is stopping"
                now = time.monotonic()
                if not seen and now >= connect_by:
                    seen = await self.connected()
                    if not seen:
                        await self.stop()
                        return f"killed: it did not connect to the gateway within {self.limits.connect_s:g} s"
                if self.match_played is not None and await self.match_played():
                    await self.stop()
                    return MATCH_PLAYED
                if now >= end_by:
                    await self.stop()
                    return f"killed: its wall-clock life ({self.limits.lifetime_s:g} s) ended; started again"
        finally:
            stopping.cancel()

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        window_start, window_bytes = time.monotonic(), 0
        while chunk := await self.process.stdout.read(65536):
            self.output.add(chunk)
            window_bytes += len(chunk)
            if window_bytes >= OUTPUT_RATE:
                await asyncio.sleep(max(0.0, window_start + 1.0 - time.monotonic()))
                window_start, window_bytes = time.monotonic(), 0

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL after :data:`STOP_GRACE_S` (bwrap takes its whole PID namespace along)."""
        if self.process is not None and self.process.returncode is None:
            await stop_group(self.process, STOP_GRACE_S)
