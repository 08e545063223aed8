"""One run of the conformance checks against a bot, on an arena in this process with a private store of its own
(:func:`private_check_store`), so a check writes nothing, no bot and no incident, into any arena.

The bot is a command (:class:`BotProcess`), a Python bot played through the kit in this process
(:class:`KitBotTask`), or started by its author. The checks race the bot's end, a stop (exit 130) and the time cap;
whichever comes first, :class:`CheckRun` ends with a verdict per check (:class:`CheckReport`) and stops the bot.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import shlex
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena.client import rpc_error_line
from arena.hosting.check import CHECK_BUDGET_S
from arena.hosting.process import describe_exit, stop_group
from arena.local_arena import InProcessArena, inprocess_arena
from arena.store import Store
from bots import make_bot
from bots.kit import BotClient, Playable, bot_factory

from .checks import CheckProgress, CheckResult, all_passed, code_errors_check, run_checks

BOT_STOP_GRACE_S = 3.0  # a bot under check gets this long to exit after SIGTERM; then its process group is killed
OUTPUT_TAIL_LINES = 20


class CheckRefused(Exception):
    """Bad input to a check (a token the arena refuses, a store that cannot start, a bad command), in one line."""


def run_argv(command: str) -> list[str]:
    """The argv of a bot command; CheckRefused when it cannot be split, is empty, or has an unknown field."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise CheckRefused(f"--run: {error}") from None
    if not argv:
        raise CheckRefused("--run is empty: give the command that starts the bot (e.g. --run \"python mybot.py "
                           "--target {target}\"), or leave --run out and start the bot yourself")
    try:
        for part in argv:
            part.format(target="", token="", name="")
    except (KeyError, IndexError, ValueError) as error:
        raise CheckRefused(f"--run: only {{target}}, {{token}} and {{name}} are filled in ({error!r}); write a "
                           "literal brace twice") from None
    return argv


class BotProcess:
    """The bot command of `bot check --run`: its own process group (a bot that starts children is stopped whole), its
    last output lines kept, its exit noticed at once."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.argv = argv
        self.env = env
        self.process: asyncio.subprocess.Process | None = None
        self.tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        self.tracebacks = 0
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> str:
        """Start it and say so; OSError (a program that does not exist or cannot run) as is."""
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        self._reader = asyncio.create_task(self._read())
        return f"(pid {self.process.pid})"

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while line := await self.process.stdout.readline():
            text = line.decode("utf-8", "replace").rstrip()
            if text.startswith("Traceback (most recent call last)"):
                self.tracebacks += 1
            self.tail.append(text)

    async def ended(self) -> str:
        """How it ended, once it has (its output read to the end)."""
        assert self.process is not None
        code = await self.process.wait()
        await self.drained(1.0)
        return describe_exit(code)

    async def drained(self, timeout: float) -> None:
        """Wait up to ``timeout`` for its output to be read to the end (after a kill: what it wrote before)."""
        if self._reader is not None:
            await asyncio.wait({self._reader}, timeout=timeout)

    def kill(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    async def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL (also to whatever it left in its group) after a grace; reaped."""
        if self.process is None:
            return
        await stop_group(self.process, BOT_STOP_GRACE_S, leftovers=True)
        if self._reader is not None:
            self._reader.cancel()


class KitBotTask:
    """A Python bot played through the kit on this loop, its ``choose`` in a worker thread."""

    def __init__(self, bot: Playable, target: str, token: str) -> None:
        self.client = BotClient(target, token, bot_factory(bot), bot_version="python kit (in process)", threaded=True)
        self.tail: collections.deque[str] = collections.deque()
        self.tracebacks = 0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> str:
        self._task = asyncio.create_task(self.client.run(self._stop))
        return "(through the Python kit, in this process)"

    async def ended(self) -> str:
        assert self._task is not None
        try:
            await self._task
        except Exception as error:
            return f"stopped: {type(error).__name__}: {error}"
        return "stopped"

    async def drained(self, timeout: float) -> None:
        return None

    def kill(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=BOT_STOP_GRACE_S)
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=1.0)


UnderCheck = BotProcess | KitBotTask


@dataclass
class CheckReport:
    """The verdicts of one run, what the bot left (its end, its last output lines) and the exit status: 0 when every
    check passed, 1 when some failed, 2 for bad input (``error`` says it), 130 when interrupted."""

    results: list[CheckResult] = field(default_factory=list)
    code: int = 2
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def passed(self) -> bool:
        return self.code == 0

    def lines(self) -> list[str]:
        """The verdicts, one line each, the notes, and the summary."""
        if not self.results:
            return []
        passed = sum(r.passed for r in self.results)
        return [*(r.line() for r in self.results), *self.notes, f"{passed} of {len(self.results)} checks passed",
                "all checks passed" if all_passed(self.results) else "some checks failed"]

    def __str__(self) -> str:
        return "\n".join([*self.lines(), *([f"error: {self.error}"] if self.error else [])])


@dataclass
class CheckOptions:
    """Where the check's gateway listens, how long to wait for the bot, the time cap past the wait, the deadline."""

    address: str = "127.0.0.1:0"
    unix_socket: str = ""
    wait_s: float = 30.0
    time_cap_s: float = CHECK_BUDGET_S
    decision_deadline_s: float = 1.0


class CheckRun:
    """The checks against bot ``name`` (None: one registered through RegisterBot, ``new_name`` or check-XXXXXXXX)
    on an arena in this process on ``store``, the bot started from ``argv`` or ``kit_bot`` (or by its author)."""

    def __init__(self, store: Store, options: CheckOptions, *, name: str | None = None, token: str = "",
                 new_name: str = "", argv: list[str] | None = None, kit_bot: Playable | None = None,
                 say: Callable[[str], None] = lambda line: None, command: str = "") -> None:
        self.store, self.options = store, options
        self.name, self.token, self.new_name = name, token, new_name
        self.argv, self.kit_bot, self.say, self.command = argv or [], kit_bot, say, command
        self.bot: UnderCheck | None = None

    def kill_bot(self) -> None:
        """Kill the bot at once (a second signal: someone who does not want to wait)."""
        if self.bot is not None:
            self.bot.kill()

    async def run(self, stop: asyncio.Event) -> CheckReport:
        async with inprocess_arena(self.store, self.options.address, self.options.unix_socket) as arena:
            if self.name is not None:
                return await self._checks(arena, stop, self.name, self.token)
            name = self.new_name or f"check-{uuid.uuid4().hex[:8]}"
            try:
                token = await arena.register(name)
            except grpc.RpcError as error:
                return CheckReport(error=f"cannot register bot {name!r} for the check: "
                                         f"{rpc_error_line(error, arena.address)} (give the bot's own token with "
                                         "--token-file, or another --name)")
            return await self._checks(arena, stop, name, token)

    async def _start_bot(self, target: str, name: str, token: str) -> CheckReport | None:
        """Start the bot (if this run starts it); a report when it could not be started."""
        if self.kit_bot is not None:
            self.bot = KitBotTask(self.kit_bot, target, token)
        elif self.argv:
            command = [part.format(target=target, token=token, name=name) for part in self.argv]
            # The token is in the child's environment too, so the command need not show it to `ps`.
            self.bot = BotProcess(command, dict(os.environ, UNO_ARENA_BOT_TOKEN=token, UNO_ARENA_TOKEN=token,
                                                UNO_ARENA_TARGET=target, PYTHONUNBUFFERED="1"))
        else:
            self.say(f"start your bot with target {target} and token {token} (bot {name}); waiting "
                     f"{self.options.wait_s:g} s")
            return None
        try:
            started = await self.bot.start()
        except OSError as error:
            program = self.bot.argv[0] if isinstance(self.bot, BotProcess) else "the bot"
            self.bot = None
            return CheckReport(CheckProgress().verdicts(f"the bot could not be started: {error}"), 1,
                               error=f"--run: cannot start {program!r}: {error.strerror or error}; check the "
                                     "command's spelling and that the program is on PATH (or give its path)")
        self.say(f"started: {self.command or 'the bot'} {started}")
        return None

    async def _checks(self, arena: InProcessArena, stop: asyncio.Event, name: str, token: str) -> CheckReport:
        options = self.options
        progress = CheckProgress()
        waiting: set[asyncio.Future[Any]] = set()
        try:
            failed = await self._start_bot(arena.bot_address, name, token)
            if failed is not None:
                return failed
            bot = self.bot
            running = asyncio.ensure_future(run_checks(arena.gateway, name, make_bot=make_bot,
                                                       decision_deadline_s=options.decision_deadline_s,
                                                       wait_s=options.wait_s, progress=progress))
            stopped = asyncio.ensure_future(stop.wait())
            ended = asyncio.ensure_future(bot.ended()) if bot is not None else None
            capped = asyncio.ensure_future(_time_cap(progress, options.wait_s, options.time_cap_s))
            waiting = {running, stopped, capped, *([ended] if ended is not None else [])}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            results, code = await _verdicts(progress, running, stopped, ended, options.time_cap_s)
            if bot is not None and stopped.done():  # the signal killed it: its last lines are still in the pipe
                await bot.drained(1.0)
            if arena.gateway.code_errors(name).first is not None:  # a run stopped early still shows them
                results = [code_errors_check(arena.gateway, name) if r.name == "code-errors" else r for r in results]
            notes = _bot_notes(bot, ended, results) if bot is not None else []
            return CheckReport(results, 0 if all_passed(results) else code, notes)
        finally:
            for future in waiting:
                future.cancel()
            if self.bot is not None:
                await self.bot.stop()


async def _time_cap(progress: CheckProgress, wait_s: float, cap_s: float) -> None:
    """Returns once the checks had ``cap_s`` seconds since the bot connected (or since the wait for it ended)."""
    loop = asyncio.get_running_loop()
    wait_ends = loop.time() + wait_s
    while not progress.results and loop.time() < wait_ends:
        await asyncio.sleep(0.1)
    await asyncio.sleep(cap_s)


async def _verdicts(progress: CheckProgress, running: asyncio.Future[list[CheckResult]],
                    stopped: asyncio.Future[Any], ended: asyncio.Future[str] | None,
                    budget_s: float) -> tuple[list[CheckResult], int]:
    """The verdicts once the checks ended, a signal stopped them, the bot ended or ``budget_s`` ran out (the checks
    are then cancelled), and the exit code if any failed: 130 when interrupted, else 1."""
    if running.done() and not running.cancelled() and running.exception() is not None:
        failure = running.exception()
        return progress.verdicts(f"the arena's check itself failed: {type(failure).__name__}: {failure}"), 1
    if running.done():
        return running.result(), 1
    running.cancel()
    await asyncio.wait({running}, timeout=5.0)
    if stopped.done():
        return progress.verdicts("interrupted (SIGINT/SIGTERM)"), 130
    if ended is not None and ended.done():
        return progress.verdicts(f"the bot {ended.result()} during this check"), 1
    return progress.verdicts(f"the checks did not end within {budget_s:g} s of the bot's connection (the check's "
                             "time cap): a bot that answers well within its deadline ends them in well under a "
                             "minute"), 1


def _bot_notes(bot: UnderCheck, ended: asyncio.Future[str] | None, results: list[CheckResult]) -> list[str]:
    """How the bot ended, its Python tracebacks, and its last output lines when they may explain a failure."""
    notes = []
    gone = ended is not None and ended.done() and not ended.cancelled()
    if gone and ended is not None:
        notes.append(f"the bot {ended.result()}")
    if bot.tracebacks:
        notes.append(f"warning: the bot wrote {bot.tracebacks} Python traceback(s) to its output")
    if bot.tail and (gone or bot.tracebacks or not all_passed(results)):
        notes.append(f"last {len(bot.tail)} lines of the bot's output (stdout and stderr):")
        notes.extend(f"  | {line}" for line in bot.tail)
    return notes


@contextlib.contextmanager
def private_check_store() -> Iterator[Store]:
    """The check's own store: an embedded redis-server of its own on a Unix socket (no port), stopped and its
    folder removed at the end, so nothing of a check is left anywhere."""
    from arena.store.embedded import RedisServer, RedisServerError

    try:
        server = RedisServer(unix_socket=True).start()
    except RedisServerError as error:
        raise CheckRefused(f"the check's private store could not start: {error}") from None
    try:
        store = Store.from_url(server.url)
        try:
            yield store
        finally:
            store.close()
    finally:
        server.close()


def copy_identity(token: str, into: Store) -> str:
    """The name of the bot ``token`` belongs to in the arena of $REDIS_URL (only read), its identity copied into the
    private store ``into``; :class:`CheckRefused` for a token that arena refuses, or no arena to ask."""
    from arena.store import InvalidToken, StoreConfigError
    from arena.store.store_errors import UnknownBot

    url = os.environ.get("REDIS_URL", "")
    if not url:
        raise CheckRefused("invalid token: no arena to check it against ($REDIS_URL is not set): export the "
                           "arena's REDIS_URL, or leave the token out (the check then registers a bot of its own)")
    try:
        arena = Store.from_url(url)
    except (ValueError, StoreConfigError) as error:
        raise CheckRefused(f"$REDIS_URL: {error}") from None
    try:
        arena.check_reachable()  # one line naming the Redis when it cannot be reached
        name = arena.bots.verify_token(token).name
        arena.bots.copy_identity(name, into.bots)
        return str(name)
    except (InvalidToken, ValueError, UnknownBot, StoreConfigError) as error:
        raise CheckRefused(str(error)) from None
    finally:
        arena.close()


def host_identity(into: Store, name: str, version: str) -> str:
    """Register ``name`` in the private store ``into`` with a host token of ``version``; the token."""
    try:
        into.bots.register(name)
        return into.bots.issue_host_token(name, version)
    except ValueError as error:
        raise CheckRefused(f"--name/--hosted-version: {error}") from None
