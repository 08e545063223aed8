"""The bot host (`uno-arena host`): every hosted bot's newest admitted version running in its sandbox.

Every :data:`POLL_S` it reads the store: a submission still ``checking`` is checked in the sandbox (in turn per
author, :mod:`arena.hosting.queue`) and admitted or rejected with the reason; each bot with an admitted version has
one :class:`HostedBot` running it, with a token of its own issued at each start. A process that breaks a rule of the
sandbox (SIGSYS) is not started again: its version is marked ``stopped``. Each start and each check has a cgroup of
its own where the machine allows. docs/hosting.md tells the whole cycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge

from arena.hosting.cgroups import Cgroup, CgroupError, CgroupManager, CgroupMode, CgroupSupport, detect, oom_kills
from arena.hosting.check import CHECK_TIME_CAP_S, CHECK_WAIT_S, check_in_sandbox
from arena.hosting.identity import sandbox_uid
from arena.hosting.process import STABLE_S, OutputTail, Run, SandboxedProcess, backoff_s, memory_limit_reached
from arena.hosting.queue import Waiting, plan_checks
from arena.hosting.sandbox import Limits, SandboxSpec, package_path
from arena.relay.envelope import drop_message
from arena.service.competitions import bots_without_memory
from arena.store import Store
from arena.store.store_errors import DeletedBot, UnknownBot
from arena.store.submission_store import HostedState, Submission, SubmissionState
from arena.submissions import Runtime, hosted_version, read_package

log = logging.getLogger(__name__)

POLL_S = 2.0
OUTPUT_FLUSH_S = 2.0


class HostMetrics:
    """The host's Prometheus metrics, in a registry of their own (served on its metrics port)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        gauge = functools.partial(Gauge, registry=self.registry)
        counter = functools.partial(Counter, registry=self.registry)
        self.up = gauge("uno_arena_host_up", "1 while the bot host serves")
        self.running = gauge("uno_arena_hosted_processes", "Hosted bots' processes running now")
        self.restarts = counter("uno_arena_hosted_restarts_total", "Hosted processes started again after an end",
                                ["bot"])
        self.fresh_sandboxes = counter("uno_arena_fresh_sandboxes_total",
                                       "Fresh sandboxes started after one match (bots without memory)", ["bot"])
        self.verdicts = counter("uno_arena_submission_verdicts_total", "Submissions checked in the sandbox",
                                ["verdict"])
        self.cgroups = gauge("uno_arena_host_cgroups", "1 for the cgroup mode in force (v2, v1, none)", ["mode"])


@dataclass(frozen=True)
class HostConfig:
    """Where the host reaches the gateway and keeps its files, and the limits of every hosted bot."""

    gateway_socket: str
    work_dir: str
    limits: Limits = field(default_factory=Limits)
    uid_per_bot: bool = True  # run each bot as a uid of its own (as root; ignored otherwise)
    check_wait_s: float = CHECK_WAIT_S  # how long the check of a new submission waits for its bot to connect
    check_time_cap_s: float = CHECK_TIME_CAP_S  # how long one check may take past that wait
    parallel_checks: int = 2  # checks at once (each a `bot check` process and a sandboxed bot)
    cgroups: bool = True  # a cgroup per bot where the machine allows (False: rlimits only)


UNPACKING = ".unpack-"  # a package's folder being written (removed when the unpacking fails, and at the start)


def unpack(archive: bytes, target: Path) -> None:
    """Write a stored package's files under ``target`` (readable by every uid; once: a package never changes).
    ValueError, naming the package's own path and never the host's, when it cannot be written; nothing is left."""
    if target.exists():
        return
    package = read_package(archive)
    partial = Path(tempfile.mkdtemp(prefix=UNPACKING, dir=target.parent))
    try:
        for f in package.files:
            path = partial / f.path
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(f.data)
            except OSError as error:
                raise ValueError(f"the package cannot be unpacked: {f.path!r}: "
                                 f"{error.strerror or type(error).__name__} (a file and a folder of one name?)"
                                 ) from None
            path.chmod(0o755 if f.executable else 0o644)
        for folder in [partial, *(p for p in partial.rglob("*") if p.is_dir())]:
            folder.chmod(0o755)
        os.replace(partial, target)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)


class HostedBot:
    """One bot's process, kept running in its sandbox, restarted with backoff; its state and output recorded."""

    def __init__(self, host: BotHost, name: str, submission: Submission, fresh_sandbox: bool = False) -> None:
        self.host = host
        self.name = name
        self.submission = submission
        self.fresh_sandbox = fresh_sandbox  # each match in a fresh sandbox (a bot without memory)
        self.stop_event = asyncio.Event()
        self.output = OutputTail()
        self.task: asyncio.Task[None] | None = None
        self.restarts = 0
        self.stopped_for = ""  # why the host stopped this version for good (a rule of the sandbox broken)

    def start(self) -> None:
        self.task = asyncio.create_task(self._loop(), name=f"hosted-{self.name}")

    async def stop(self) -> None:
        self.stop_event.set()
        if self.task is not None:
            await asyncio.wait({self.task}, timeout=10.0)

    async def _loop(self) -> None:
        store = self.host.store
        quick_ends = 0
        flusher = asyncio.create_task(self._flush_output())
        try:
            while not self.stop_event.is_set():
                try:
                    run = await self._run_once()
                except CgroupError as error:
                    run = Run(-1, f"not started: {error}", 0.0)
                self.output.note(run.detail)
                if self.stop_event.is_set():
                    break
                if run.match_played:
                    self.host.metrics.fresh_sandboxes.labels(self.name).inc()
                    continue
                if run.breach:
                    await self._stop_for_good(run.breach)
                    return
                quick_ends = 0 if run.seconds >= STABLE_S else quick_ends + 1
                pause = backoff_s(quick_ends)
                self.restarts += 1
                self.host.metrics.restarts.labels(self.name).inc()
                await self._record("backoff", f"{run.detail}; starting again in {pause:g} s")
                log.info("hosted bot %s: %s", self.name, run.detail)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop_event.wait(), pause)
        except (UnknownBot, DeletedBot) as error:
            self.output.note(f"not started: {error}")
        finally:
            flusher.cancel()
            with contextlib.suppress(Exception):
                await asyncio.to_thread(store.submissions.set_output, self.name, bytes(self.output.data))
                await self._record("stopped", self.stopped_for or "the bot host stopped it")

    async def _run_once(self) -> Run:
        """One life of the process, in a cgroup of its own (removed after it)."""
        group = await asyncio.to_thread(self.host.cgroups.create, self.name)
        try:
            spec_file = await asyncio.to_thread(self.host.prepare, self.name, self.submission, group,
                                                fresh=self.fresh_sandbox)
            store = self.host.store
            token = await asyncio.to_thread(store.bots.issue_host_token, self.name,
                                            hosted_version(self.submission.version), self.fresh_sandbox)

            async def match_played() -> bool:
                return not await asyncio.to_thread(store.bots.token_works, token)

            process = SandboxedProcess(spec_file, token, self.host.config.limits, self.output, self._connected,
                                       group, match_played if self.fresh_sandbox else None)
            self.output.note(f"starting version {self.submission.version}"
                             + (" in a fresh sandbox for one match" if self.fresh_sandbox else ""))
            await self._record("running", "")
            self.host.metrics.running.inc()
            try:
                return await process.run_once(self.stop_event)
            finally:
                self.host.metrics.running.dec()
        finally:
            if group is not None:
                await asyncio.to_thread(self.host.cgroups.remove, group)

    async def _stop_for_good(self, why: str) -> None:
        """The process broke a rule of the sandbox: its version is marked ``stopped`` and never run again."""
        log.warning("hosted bot %s version %d: %s", self.name, self.submission.version, why)
        self.host.metrics.verdicts.labels(SubmissionState.STOPPED.value).inc()
        with contextlib.suppress(KeyError):  # the version was deleted meanwhile: nothing left to mark
            await asyncio.to_thread(self.host.store.submissions.set_verdict, self.name, self.submission.version,
                                    SubmissionState.STOPPED, f"version {self.submission.version} {why}")
        self.stopped_for = why
        self.stop_event.set()

    async def _record(self, state: str, detail: str) -> None:
        hosted = HostedState(state, self.submission.version, self.restarts, detail, time.time())
        await asyncio.to_thread(self.host.store.submissions.set_hosted, self.name, hosted)

    async def _connected(self) -> bool:
        return await asyncio.to_thread(self.host.store.sessions.online, self.name)

    async def _flush_output(self) -> None:
        while True:
            await asyncio.sleep(OUTPUT_FLUSH_S)
            if self.output.changed:
                self.output.changed = False
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.host.store.submissions.set_output, self.name,
                                            bytes(self.output.data))


class BotHost:
    """Checks new submissions and runs every hosted bot (see the module docstring)."""

    def __init__(self, store: Store, config: HostConfig, metrics: HostMetrics | None = None) -> None:
        self.store = store
        self.config = config
        self.metrics = metrics or HostMetrics()
        self.bots: dict[str, HostedBot] = {}
        self.checks: dict[tuple[str, int], asyncio.Task[None]] = {}  # under way, by bot (without case) and version
        self.under_check: dict[tuple[str, int], Waiting] = {}  # the same checks, for the queue's turns per author
        work = Path(config.work_dir)
        for folder in (work / "packages", work / "specs"):
            folder.mkdir(parents=True, exist_ok=True)
            # Root's alone: a sandbox sees its package through its own mount (/bot), never through these folders.
            folder.chmod(0o700)
        for partial in (work / "packages").glob(f"{UNPACKING}*"):  # a host that died while unpacking left it
            shutil.rmtree(partial, ignore_errors=True)
        self.socket_dir = tempfile.mkdtemp(prefix="uno-host-")  # short: a socket's path has at most 107 bytes
        os.chmod(self.socket_dir, stat.S_IRWXU | stat.S_IXGRP | stat.S_IXOTH)
        support = detect() if config.cgroups else CgroupSupport(CgroupMode.NONE, "turned off (--no-cgroups)")
        self.cgroups = CgroupManager(support, config.limits)
        self.cgroups.setup()
        for mode in CgroupMode:
            self.metrics.cgroups.labels(mode.value).set(1 if mode is self.cgroups.support.mode else 0)
        log.info("bot host: %s", self.cgroups.support.describe())

    def prepare(self, name: str, submission: Submission, group: Cgroup | None = None, purpose: str = "run",
                fresh: bool = False) -> str:
        """Unpack the submission (once) and write its sandbox spec (``purpose``: ``run`` or ``check``; ``fresh``: a
        uid no sandbox had, else the bot's own); the spec file's path (removed by the caller)."""
        target = package_path(self.config.work_dir, submission.sha256)
        archive = self.store.submissions.archive(submission.sha256)
        if archive is None:
            raise UnknownBot(f"{name}: the archive of version {submission.version} is missing from the store")
        unpack(archive, target)
        root = os.geteuid() == 0
        uid = sandbox_uid(self.store, name, fresh) if root and self.config.uid_per_bot else None
        spec = SandboxSpec(str(target), Runtime(submission.runtime), submission.command,
                           os.path.abspath(self.config.gateway_socket), uid, self.config.limits,
                           group.folders if group is not None else ())
        path = Path(self.config.work_dir) / "specs" / f"{name.casefold()}-{submission.version}-{purpose}.json"
        path.write_text(json.dumps(spec.to_json()))
        return str(path)

    async def check_pending(self) -> None:
        """Start checks of the submissions still ``checking`` while a slot is free, in the queue's order, and keep
        the queue's places in the store. It does not wait for the checks: the rounds meanwhile go on."""
        waiting: list[Waiting] = []
        submissions: dict[tuple[str, int], Submission] = {}
        for name in await asyncio.to_thread(self.store.submissions.hosted_bots):
            pending = [s for s in await asyncio.to_thread(self.store.submissions.all, name)
                       if s.state is SubmissionState.CHECKING]
            if not pending:
                continue
            try:
                record = await asyncio.to_thread(self.store.bots.get, name)
            except UnknownBot:
                continue
            for submission in pending:
                one = Waiting(record.name, submission.version, record.owner or f"bot:{record.name.casefold()}",
                              submission.submitted_at)
                submissions[one.key] = replace(submission, bot=record.name)
                if one.key not in self.checks:
                    waiting.append(one)
        plan = plan_checks(waiting, self.under_check.values())
        for old in plan.superseded:
            newest = max(v for (bot, v) in submissions if bot == old.key[0])
            await self._verdict(submissions[old.key], SubmissionState.REJECTED,
                                f"superseded: version {newest} of the bot was submitted before this one was "
                                "checked; only the newest waiting version is checked (this one never ran)")
        free = max(0, self.config.parallel_checks - len(self.checks))
        for one in plan.order[:free]:
            task = asyncio.create_task(self._check(submissions[one.key]), name=f"check-{one.bot}")
            self.checks[one.key] = task
            self.under_check[one.key] = one
            task.add_done_callback(functools.partial(self._check_done, one.key))
        places = {(w.bot, w.version): place - free for place, w in enumerate(plan.order, start=1) if place > free}
        await asyncio.to_thread(self.store.submissions.set_check_queue, places)

    def _check_done(self, key: tuple[str, int], _task: asyncio.Task[None]) -> None:
        self.checks.pop(key, None)
        self.under_check.pop(key, None)

    async def _check(self, submission: Submission) -> None:
        """Check ``submission`` (its ``bot``: the record's name) in the sandbox, as a live match plays it."""
        name = submission.bot
        group: Cgroup | None = None
        spec_file = ""
        try:
            group = await asyncio.to_thread(self.cgroups.create, name)
            # A bot without memory plays every live match under a uid no sandbox had: so does its check.
            fresh = (await asyncio.to_thread(self.store.bots.get, name)).sandboxes_only
            spec_file = await asyncio.to_thread(self.prepare, name, submission, group, "check", fresh)
            verdict = await check_in_sandbox(spec_file, self.socket_dir, name, hosted_version(submission.version),
                                             wait_s=self.config.check_wait_s,
                                             time_cap_s=self.config.check_time_cap_s)
        except (UnknownBot, DeletedBot, ValueError, OSError) as error:
            state, reason = SubmissionState.REJECTED, f"cannot be checked: {error}"
        else:
            state = SubmissionState.ADMITTED if verdict.passed else SubmissionState.REJECTED
            reason = verdict.reason
            if group is not None and not verdict.passed and oom_kills(group) > 0:
                reason += f"\n{memory_limit_reached(self.config.limits)}"
        finally:
            if group is not None:
                await asyncio.to_thread(self.cgroups.remove, group)
            if spec_file:
                with contextlib.suppress(OSError):
                    os.unlink(spec_file)
        await self._verdict(submission, state, reason)

    async def _verdict(self, submission: Submission, state: SubmissionState, reason: str) -> None:
        """Record the verdict on a version still ``checking`` (one given meanwhile, an operator's, stands)."""
        name = submission.bot
        now = {s.version: s.state for s in await asyncio.to_thread(self.store.submissions.all, name)}
        if now.get(submission.version) is not SubmissionState.CHECKING:
            return
        self.metrics.verdicts.labels(state.value).inc()
        with contextlib.suppress(KeyError):  # deleted meanwhile
            await asyncio.to_thread(self.store.submissions.set_verdict, name, submission.version, state, reason)
        log.info("submission %s v%d: %s", name, submission.version, state.value)

    def clean_work_dir(self) -> None:
        """Remove the unpacked versions no running, current or waiting version needs, and unused spec files."""
        needed: set[str] = {bot.submission.sha256 for bot in self.bots.values()}
        for name in self.store.submissions.hosted_bots():
            needed.update(s.sha256 for s in self.store.submissions.all(name) if s.state is SubmissionState.CHECKING)
            current = self.store.submissions.current(name)
            if current is not None:
                needed.add(current.sha256)
        packages = Path(self.config.work_dir) / "packages"
        for folder in packages.iterdir():
            if not folder.name.startswith(UNPACKING) and folder.name not in needed:
                shutil.rmtree(folder, ignore_errors=True)
        in_use = {f"{key[0]}-{key[1]}-check.json" for key in self.checks}
        in_use.update(f"{b.name.casefold()}-{b.submission.version}-run.json" for b in self.bots.values())
        for spec in (Path(self.config.work_dir) / "specs").iterdir():
            if spec.name not in in_use:
                with contextlib.suppress(OSError):
                    spec.unlink()

    async def reconcile(self) -> None:
        """Run each hosted bot's newest admitted version; stop what should not run any more."""
        wanted: dict[str, Submission] = {}
        hosted = await asyncio.to_thread(self.store.submissions.hosted_bots)
        fresh = await asyncio.to_thread(bots_without_memory, self.store, hosted)
        for name in hosted:
            current = await asyncio.to_thread(self.store.submissions.current, name)
            if current is None:
                continue
            try:
                record = await asyncio.to_thread(self.store.bots.get, name)
            except UnknownBot:
                continue
            if not (record.deleted or record.revoked):
                wanted[name] = replace(current, bot=record.name)
                if record.sandboxes_only != (name in fresh):
                    await asyncio.to_thread(self._sandboxes_only, record.name, name in fresh)
        for name in list(self.bots):
            running = self.bots[name]
            if (name not in wanted or wanted[name].version != running.submission.version
                    or running.fresh_sandbox != (name in fresh)):
                await running.stop()
                del self.bots[name]
        for name, submission in wanted.items():
            if name not in self.bots:
                bot = HostedBot(self, submission.bot, submission, fresh_sandbox=name in fresh)
                self.bots[name] = bot
                bot.start()

    def _sandboxes_only(self, name: str, only: bool) -> None:
        """Only fresh sandboxes may connect a bot without memory: set in the store, its other sessions dropped."""
        self.store.bots.set_sandboxes_only(name, only)
        if only:
            own = [s.session_id for s in self.store.sessions.for_bot(name) if not s.fresh_sandbox]
            if own:
                why = "a competition without memory admits this bot: only the bot host's fresh sandboxes connect it"
                self.store.sessions.notify_gateways(name, lambda ids: drop_message(name, [i for i in ids if i in own],
                                                                                   why))

    async def _round(self) -> None:
        await self.reconcile()
        await self.check_pending()
        await self.reconcile()
        await asyncio.to_thread(self.clean_work_dir)

    async def run(self, stop: asyncio.Event, poll_s: float = POLL_S) -> None:
        """Until ``stop``: check, reconcile, every ``poll_s``; then stop every process."""
        self.metrics.up.set(1)
        try:
            while not stop.is_set():
                one = asyncio.create_task(self._round())
                stopping = asyncio.create_task(stop.wait())
                await asyncio.wait({one, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not one.done():
                    one.cancel()
                    await asyncio.wait({one}, timeout=10.0)
                    break
                if one.exception() is not None:  # the store unreachable for a while: keep what runs, try again
                    log.error("bot host: a round failed (%s); trying again in %g s", one.exception(), poll_s)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), poll_s)
        finally:
            self.metrics.up.set(0)
            checks = list(self.checks.values())
            for task in checks:  # a check under way: it and its sandboxed bot are killed
                task.cancel()
            if checks:
                await asyncio.wait(checks, timeout=10.0)
            await asyncio.gather(*(bot.stop() for bot in self.bots.values()))
            self.bots.clear()
            await asyncio.to_thread(self.cgroups.close)
            with contextlib.suppress(OSError):
                os.rmdir(self.socket_dir)
