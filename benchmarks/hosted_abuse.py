"""``python -m benchmarks abuse --hosted``: a well-behaved *hosted* bot's decisions per second and p99 latency, alone
and beside each attacker in turn, in one run.

Every part is its own process, as the arena runs them: a private Redis, the gateway (``uno-arena serve`` on TCP,
every address of the machine, and the sandboxes' Unix socket) and the bot host (``uno-arena host``, its sandbox
``bwrap``: the bench refuses to run without it). A well-behaved kit bot (:data:`benchmarks.hostile_bots.GOOD`) is
submitted through the organizer API with its own token, checked in the sandbox and admitted like any submission;
the host runs it. This process keeps ``matches`` matches going at once between it and an opponent thinking
``think_ms`` per move, every seat of the bot a :class:`arena.relay.RelaySeat` (Redis, the gateway holding its
stream, the sandboxed process): what a worker does.
Its decisions are timed on the arena's side, as in :mod:`benchmarks.abuse` (whose measuring and table this uses).

For each attack: ``seconds`` alone, then the attacker starts (:mod:`benchmarks.hosted_attackers`), ``warmup``
seconds pass, and ``seconds`` beside it; then what the arena recorded of it is kept and it is finished. Three kinds:

- a hostile bot (:data:`benchmarks.hostile_bots.BENCH_ATTACKS`) stored as an admitted submission of a bot of its
  own (it would not pass the check: the host is to run it all the same) and run by the host; its one-off attacks
  are repeated every 0.1 s while it plays (:func:`benchmarks.hostile_bots.sustained`), so each lasts the window.
  Among them issue 35's: a keyring counter, an API-tail counter (its own output, incident log and submissions read
  with its host token), an inode flood of ``/tmp``, and an archive bomb submitted with its host token. Kept: the
  host's state of it, how its last process ended, its version's state when the host stopped it, and its last line
  about its attack; it is then revoked and the bench waits until the host stopped it.
- a bot that attacks only outside the check (:data:`benchmarks.hostile_bots.CHECK_DODGER`), submitted through
  the organizer API with its author's token: the window measures the well-behaved bot beside its check; kept: the
  verdict (and, were it admitted, what the host recorded of the process it ran).
- archive bombs of folder entries (tar, tar.gz, zip: :mod:`benchmarks.bombs`) submitted through the organizer
  API's TCP port again and again by a client process (:mod:`benchmarks.bomb_client`) from six bots at once; kept:
  the answers it got by gRPC status, the slowest, and how many versions the arena stored of those bots.

The host runs with its default limits but for the time a process has to connect (:data:`CONNECT_TIMEOUT_S`, so
that the bot that never connects is killed within the window).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import grpc

from arena.processes import Processes, cli_argv, free_port, wait_until
from arena.relay import RelaySeat
from arena.runner import SeatRequest
from arena.store import Store
from arena.store.embedded import RedisServer
from arena.store.submission_store import SubmissionState
from benchmarks import hostile_bots
from benchmarks.abuse import MatchLoop, Samples, keep_best, measure, table, timed_decision
from benchmarks.hosted_attackers import BOMB_FORMATS, CHECKED, START_TIMEOUT_S, ArenaParts, start_attacker
from benchmarks.procfs import process_cpu

ATTACKS = (*hostile_bots.BENCH_ATTACKS, *CHECKED, *BOMB_FORMATS)
TITLES = {"tcp": "TCP to Redis, gateway, out", "snoop": "reads tokens, code, /proc",
          "fork-bomb": "fork bomb", "memory-bomb": "memory without end", "disk-fill": "fills the disk",
          "spin": "spins every core", "stdout-flood": "100 MB to stdout", "never-connect": "never connects",
          "keyring-counter": "keyring counter (keyctl)", "api-tail-counter": "API-tail counter (its token)",
          "inode-flood": "inode flood of /tmp", "bomb-inside": "bomb from inside (its token)",
          "outside-check": "attacks outside the check", "bomb-tar": "bombs: tar of folders",
          "bomb-tar.gz": "bombs: tar.gz of folders", "bomb-zip": "bombs: zip of folders"}
CONNECT_TIMEOUT_S = 4
"""``uno-arena host --connect-timeout`` here (the default, 30 s, is longer than a window)."""
HOST_OPTIONS = ["--connect-timeout", str(CONNECT_TIMEOUT_S), "--poll", "0.5"]


@dataclass(frozen=True)
class HostedAbuseOptions:
    """What ``python -m benchmarks abuse --hosted`` runs."""

    attacks: tuple[str, ...] = ATTACKS
    seconds: float = 5.0
    warmup: float = 1.0
    matches: int = 8
    think_ms: float = 10.0
    decision_deadline_s: float = 2.0
    rounds: int = 1


class _TimedRelaySeat(RelaySeat):
    """The hosted well-behaved bot's seat: every decision's latency as the runner sees it."""

    def __init__(self, store: Store, name: str, samples: Samples) -> None:
        super().__init__(store, name)
        self.samples = samples

    async def decide(self, request: SeatRequest) -> int:
        return await timed_decision(self.samples, super().decide(request))


class HostedArena:
    """Redis, the gateway and the bot host as processes of their own, and a well-behaved bot hosted by it."""

    def __init__(self, work: Path) -> None:
        from arena.client.connection import write_secret_file

        self.work = work
        self.redis = RedisServer().start()
        self.store = Store.from_url(self.redis.url)
        self.relay_store = Store.from_url(self.redis.url)
        """The matches' (on the event loop), apart from :attr:`store` (the bench's own looks, from threads)."""
        self.processes = Processes(work)
        self.socket = str(work / "gw.sock")
        self.port = free_port()
        self.admin_token_file = work / "admin-token"
        admin_token = secrets.token_urlsafe(32)
        write_secret_file(str(self.admin_token_file), admin_token + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self.env = dict(env, REDIS_URL=self.redis.url, UNO_ARENA_ADMIN_TOKEN=admin_token)
        self.gateway: subprocess.Popen[bytes] | None = None
        self.good = f"good-{uuid.uuid4().hex[:6]}"

    def start(self) -> None:
        """Start the gateway and the host; submit the well-behaved bot with its own token and wait until it is
        checked, admitted and connected."""
        from arena.client import ArenaClient
        from arena.submissions import pack_folder

        self.gateway = self.processes.start("serve", [
            *cli_argv(), "serve", "--address", f"[::]:{self.port}", "--unix-socket", self.socket,
            "--metrics-port", "-1"], self.env)
        wait_until(lambda: os.path.exists(self.socket), "the gateway's Unix socket", self.processes)
        self.processes.start("host", [*cli_argv(), "host", "--gateway-socket", self.socket, "--work-dir",
                                      str(self.work / "host"), "--metrics-port", "-1", *HOST_OPTIONS], self.env)
        token = self.store.bots.register(self.good)[1]
        folder = hostile_bots.write_package(self.work / "bots" / self.good, hostile_bots.GOOD)
        with ArenaClient(self.parts().own_address, token) as client:
            client.submit_bot(self.good, pack_folder(folder))
        wait_until(lambda: self.store.submissions.all(self.good)[0].state is not SubmissionState.CHECKING,
                   "the host's verdict on the well-behaved bot", self.processes, START_TIMEOUT_S)
        verdict = self.store.submissions.all(self.good)[0]
        if verdict.state is not SubmissionState.ADMITTED:
            raise RuntimeError(f"the well-behaved bot was {verdict.state.value}: {verdict.reason}")
        wait_until(lambda: self.store.sessions.online(self.good), "the well-behaved bot connected", self.processes,
                   START_TIMEOUT_S)

    def parts(self) -> ArenaParts:
        if self.gateway is None:
            raise RuntimeError("the arena is not started")
        return ArenaParts(self.store, self.processes, self.work, self.port, self.redis.port, self.admin_token_file,
                          self.good, self.gateway.pid)

    def gateway_cpu_seconds(self) -> float:
        return process_cpu([self.gateway.pid]) if self.gateway is not None else 0.0

    def close(self) -> None:
        self.processes.stop_all()
        for store in (self.store, self.relay_store):
            with contextlib.suppress(Exception):
                store.close()
        self.redis.close()


async def _hosted_abuse(arena: HostedArena, options: HostedAbuseOptions) -> dict[str, Any]:
    games = MatchLoop(options.think_ms)
    samples = Samples()
    forever = asyncio.Event()
    loops = [asyncio.create_task(games.play(lambda: _TimedRelaySeat(arena.relay_store, arena.good, samples),
                                            options.decision_deadline_s, forever)) for _ in range(options.matches)]
    results: dict[str, Any] = {"attacks": {}}
    try:
        await asyncio.sleep(options.warmup)
        for attack, round_no in [(a, r) for r in range(options.rounds) for a in options.attacks]:
            without = await measure(samples, options.seconds, arena.gateway_cpu_seconds)
            attacker = await asyncio.to_thread(start_attacker, arena.parts(), attack, round_no)
            await asyncio.sleep(options.warmup)
            beside = await measure(samples, options.seconds, arena.gateway_cpu_seconds)
            recorded = await asyncio.to_thread(attacker.finish)
            keep_best(results, attack, without, beside, recorded)
    finally:
        for task in loops:
            task.cancel()
        await asyncio.gather(*loops, return_exceptions=True)
    return results


@contextlib.contextmanager
def _hosted_arena() -> Iterator[HostedArena]:
    # A short folder: a Unix socket's path has at most 107 bytes.
    with tempfile.TemporaryDirectory(prefix="uab-", dir="/tmp") as folder:
        arena = HostedArena(Path(folder))
        try:
            arena.start()
            yield arena
        except grpc.RpcError as error:  # a submission of the bench's own refused: the gateway's answer says why
            raise RuntimeError(f"the gateway answered a submission {error.code().name}: {error.details()}") from None
        except RuntimeError as error:  # what the host said is the clue: its log goes with the folder
            host_log = (Path(folder) / "host.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{error}\nthe end of the host's log:\n{host_log}") from None
        finally:
            arena.close()


def run_hosted_abuse_bench(options: HostedAbuseOptions = HostedAbuseOptions(),
                           out: TextIO | None = None) -> dict[str, Any]:
    """Run the benchmark and print its table; returns the figures. RuntimeError when a part did not start."""
    out = out if out is not None else sys.stdout
    started = time.perf_counter()
    with _hosted_arena() as arena:
        results = asyncio.run(_hosted_abuse(arena, options))
    results["settings"] = {**asdict(options), "cpus": os.cpu_count(), "took_s": time.perf_counter() - started}
    print(table(results, TITLES, "what the host recorded", _heading(options)), file=out, flush=True)
    return results


def _heading(options: HostedAbuseOptions) -> str:
    return (f"well-behaved hosted bot (the kit, in the sandbox, through the relay): {options.matches} matches at once "
            f"against an opponent thinking {options.think_ms} ms; {options.seconds} s alone, then {options.seconds} "
            f"s beside each hostile hosted bot ({options.warmup} s after the host started it), {options.rounds} "
            f"round(s), the best of each side kept ({os.cpu_count()} CPUs)")

