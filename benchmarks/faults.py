"""`python -m benchmarks faults`: each infrastructure fault against a running tournament, with the production settings.

For every fault a fresh arena is started on this machine as an operator runs it, every part its own process: a
Redis with its append-only file, `uno-arena serve` (two of them on one port for the drain), two `uno-arena worker`
processes, `uno-arena scheduler`, and two kit bots (`uno-arena bot run`, deterministic per match and attempt) that
play a round-robin tournament against the built-in bots. Once a share of the matches is recorded the fault is
injected; when the tournament finished, the report tells:

- **recovery s**: from the fault until every match that was in flight at that moment (started, no result) has its
  result: the lost batch re-sent and replayed, the bot back on a gateway, Redis back;
- **recorded / feed**: results written and entries of the tournament's feed, each expected exactly once per match;
- **aborted, strikes, forfeits, timeouts** charged in the recorded results: expected 0, the faults are the arena's;
- **= clean**: whether the standings equal a clean run of the same seed (every match played in this process with
  the same bots and seeds; the kit bots are seeded by match and seat, and start afresh for every attempt);
- **AOF KB/match**: Redis's append-only file at the end over the matches (the relay's decisions and events go
  over Pub/Sub, which Redis never writes to the file).

The timings are the workers' defaults (:class:`arena.service.lifecycle.Settings`: heartbeat 2 s, lost after 12 s,
check every 3 s, a queued message lost after 10 s) and the gateway's (sessions expire 6 s after their gateway
died); nothing is shortened for the benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.processes import Processes, cli_argv, free_port, wait_until
from benchmarks.procfs import child_pids

if TYPE_CHECKING:
    from arena.store import StoredResult

FAULTS = ("none", "gateway-sigterm", "gateway-kill", "redis-restart", "worker-child-kill", "redis-refuses-writes")
"""Every fault the benchmark injects (``none``: the clean distributed run, for comparison)."""

KIT_BOTS = (("kit-heuristic", "heuristic"), ("kit-random", "random"))
"""Remote bots (name, built-in strategy run through the Python kit in its own process)."""
BUILTIN_PARTICIPANTS = ("heuristic", "random")

OUTAGE_S = 3.0
"""How long a killed gateway or a stopped Redis stays down before it is started again."""
REFUSAL_S = 8.0
"""How long Redis refuses every write (``min-replicas-to-write 1`` without replicas: ``NOREPLICAS``)."""


@dataclass(frozen=True)
class FaultOptions:
    deals: int = 2
    target: int = 150
    seed: int = 2026
    fault_at: float = 0.3
    """The share of matches recorded when the fault is injected."""
    timeout_s: float = 300.0
    """The longest a tournament may take (a fault that is not recovered fails the row)."""
    work_dir: Path | None = None


@dataclass(frozen=True)
class Charges:
    """What the recorded results charged the bots, summed over the matches."""

    aborted: int
    """Matches that ended aborted."""
    strikes: int
    """Strikes over every seat (``MatchResult.strikes`` holds a count per seat)."""
    forfeits: int
    """Seats that forfeited (``MatchResult.forfeits`` holds the seat numbers, so they are counted, not summed)."""
    timeouts: int
    """Timeouts over every seat (a count per seat)."""

    @staticmethod
    def of(results: Iterable[StoredResult]) -> Charges:
        aborted = strikes = forfeits = timeouts = 0
        for stored in results:
            aborted += stored.end_reason == "aborted"
            strikes += sum(stored.result.strikes)
            forfeits += len(stored.result.forfeits)
            timeouts += sum(stored.timeouts)
        return Charges(aborted=aborted, strikes=strikes, forfeits=forfeits, timeouts=timeouts)


@dataclass
class FaultReport:
    """What one faulty run produced, against the clean run of the same seed."""

    fault: str
    matches: int
    recorded: int
    feed: int
    aborted: int
    strikes: int
    forfeits: int
    timeouts: int
    standings_equal: bool
    recovery_s: float | None
    """Seconds from the fault until every match in flight at that moment had its result (None: no fault)."""
    resent: int
    """Batches the completeness check re-sent."""
    elapsed_s: float
    aof_bytes: int = 0
    """Size of Redis's append-only file at the end (everything the run wrote, relay traffic included)."""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing lost, nothing doubled, nothing charged, and the standings of a clean run."""
        return (self.recorded == self.matches and self.feed == self.matches and self.aborted == 0
                and self.strikes == 0 and self.forfeits == 0 and self.timeouts == 0 and self.standings_equal)


class FaultArena:
    """The arena of one run, as separate processes; :meth:`inject` applies one fault."""

    def __init__(self, work: Path, *, gateways: int = 1) -> None:
        from arena.client import ArenaClient
        from arena.client.connection import write_secret_file
        from arena.store import Store
        from arena.store.embedded import RedisServer

        self.work = work
        self.redis = RedisServer(data_dir=str(work / "redis"), appendonly=True).start()
        self.store = Store.from_url(self.redis.url)
        self.processes = Processes(work)
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        admin_token = secrets.token_urlsafe(32)
        write_secret_file(str(work / "admin-token"), admin_token + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self.env = dict(env, REDIS_URL=self.redis.url, UNO_ARENA_TARGET=self.address)
        self._admin_env = dict(self.env, UNO_ARENA_ADMIN_TOKEN=admin_token)
        self.gateways: dict[str, Any] = {}
        self._gateway_count = 0
        for _ in range(gateways):
            self.start_gateway()
        self.client = ArenaClient(self.address, admin_token)
        self._wait(lambda: self._bots_online() is not None, "the gateway's organizer API")
        self.workers = [self._start_worker(f"worker{i}") for i in (1, 2)]
        self.processes.start("scheduler", [*cli_argv(), "scheduler"], self.env)
        for name, brain in KIT_BOTS:
            token = self.client.register_bot(name).token
            self.processes.start(f"bot-{name}", [*cli_argv(), "bot", "run", brain, "--target", self.address],
                                 dict(self.env, UNO_ARENA_BOT_TOKEN=token))
        names = {name for name, _ in KIT_BOTS}
        self._wait(lambda: names <= (self._bots_online() or set()), "the kit bots to connect")

    # -- parts ------------------------------------------------------------------------------------
    def start_gateway(self) -> Any:
        self._gateway_count += 1
        gateway_id = f"gw{self._gateway_count}"
        process = self.processes.start(
            gateway_id, [*cli_argv(), "serve", "--address", self.address, "--metrics-port", "-1", "--reuse-port",
                         "--gateway-id", gateway_id], self._admin_env)
        self.gateways[gateway_id] = process
        return process

    def _start_worker(self, name: str) -> Any:
        return self.processes.start(name, [*cli_argv(), "worker", "--concurrency", "1", "--metrics-port", "-1",
                                           "--hostname", f"{name}@%h"], self.env)

    def _bots_online(self) -> set[str] | None:
        import grpc

        try:
            return {bot.name for bot in self.client.list_bots() if bot.connected}
        except grpc.RpcError:  # the gateway is not up yet
            return None

    def _wait(self, check: Callable[[], object], what: str, timeout_s: float = 60.0) -> None:
        wait_until(check, what, self.processes, timeout_s)

    # -- the tournament ---------------------------------------------------------------------------
    def create(self, options: FaultOptions, name: str) -> tuple[str, int]:
        from arena.engine import Rules
        from arena.protocol import arena_pb2
        from arena.protocol.convert import rules_to_proto

        participants = [*BUILTIN_PARTICIPANTS, *(name for name, _ in KIT_BOTS)]
        spec = arena_pb2.TournamentSpec(
            name=name, participants=participants, rules=rules_to_proto(Rules(target=options.target)),
            seats_per_table=2, deals_per_table=options.deals, duplicate_deals=True, seed=options.seed,
            decision_deadline_ms=1000)
        created = self.client.create_tournament(spec, idempotency_key=name)
        return created.tournament.tournament_id, int(created.tournament.matches_total)

    def in_flight(self, tournament_id: str) -> set[str]:
        """Matches started at least once and without a result."""
        from arena.store.runstate import RunState

        started = RunState(self.store, tournament_id).started()
        recorded = self.store.results.recorded(tournament_id)
        return {mid for mid in started if mid not in recorded}

    # -- faults -----------------------------------------------------------------------------------
    def inject(self, fault: str) -> list[str]:
        """Apply ``fault`` (one of :data:`FAULTS`); returns notes on what was done."""
        if fault == "none":
            return []
        if fault == "gateway-sigterm":
            gateway_id, process = next(iter(self.gateways.items()))
            process.send_signal(signal.SIGTERM)
            process.wait(15)
            del self.gateways[gateway_id]
            return [f"SIGTERM to {gateway_id}: exit code {process.returncode}"]
        if fault == "gateway-kill":
            gateway_id, process = next(iter(self.gateways.items()))
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
            del self.gateways[gateway_id]
            time.sleep(OUTAGE_S)
            self.start_gateway()
            return [f"kill -9 {gateway_id}, a new gateway {OUTAGE_S:g} s later"]
        if fault == "redis-restart":
            self.redis.stop()
            time.sleep(OUTAGE_S)
            self.redis.start()
            return [f"Redis stopped, started again {OUTAGE_S:g} s later (append-only file)"]
        if fault == "worker-child-kill":
            kids = child_pids(self.workers[0].pid)
            if not kids:
                return ["no worker child found to kill"]
            os.kill(kids[0], signal.SIGKILL)
            return [f"kill -9 worker child {kids[0]}"]
        if fault == "redis-refuses-writes":
            client = self.redis.client()
            client.config_set("min-replicas-to-write", 1)
            time.sleep(REFUSAL_S)
            client.config_set("min-replicas-to-write", 0)
            client.close()
            return [f"Redis refused every write for {REFUSAL_S:g} s (NOREPLICAS)"]
        raise ValueError(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
        self.processes.stop_all()
        with contextlib.suppress(Exception):
            self.store.close()
        self.redis.close()


def reference_standings(spec: Any) -> dict[str, Any]:
    """The standings of a clean run of ``spec``: every match played in this process, the kit bots as the same
    strategies seeded the way the kit seeds them (:func:`bots.kit.match_seed`)."""
    from arena.runner import LocalSeat, run_match
    from arena.service.matches import make_seat, match_config, result_of
    from arena.tournament import RatingPool, schedule, standings
    from arena.tournament.adjusted import fitted_standings
    from bots import make_bot
    from bots.kit import match_seed

    brains = dict(KIT_BOTS)
    loop = asyncio.new_event_loop()
    results = []
    try:
        for match in schedule(spec):
            seats = [LocalSeat(make_bot(brains[name], seed=match_seed(match.match_id, seat)), name=name)
                     if name in brains else make_seat(None, name, match.match_id, make_bot)
                     for seat, name in enumerate(match.seats)]
            record = loop.run_until_complete(run_match(match_config(match), seats))
            results.append(result_of(record, match).result)
    finally:
        loop.close()
    table = standings(results, participants=spec.participants, pool=RatingPool(key=spec.rating_pool))
    return fitted_standings(table, results, spec.participants)[0].to_dict()  # as the arena ranks and tiers them


def run_fault(fault: str, options: FaultOptions = FaultOptions()) -> FaultReport:
    """One fresh arena, one tournament, ``fault`` injected once ``options.fault_at`` of it is recorded."""
    from arena.service.lifecycle import spec_of, tournament_table
    from arena.store.runstate import RunState
    from arena.tournament.status import TournamentStatus

    with _work_dir(options.work_dir, fault) as work:
        arena = FaultArena(work, gateways=2 if fault == "gateway-sigterm" else 1)
        try:
            tournament_id, total = arena.create(options, f"faults-{fault}")
            started = time.monotonic()
            arena._wait(lambda: arena.store.results.progress(tournament_id).done >= max(1, options.fault_at * total),
                        f"{options.fault_at:.0%} of the matches", options.timeout_s)
            in_flight = arena.in_flight(tournament_id)
            fault_at = time.monotonic()
            notes = arena.inject(fault)
            recovered: list[float] = []

            def finished() -> bool:
                if not recovered and in_flight <= arena.store.results.recorded(tournament_id):
                    recovered.append(time.monotonic() - fault_at)
                return arena.store.tournaments.status(tournament_id) is TournamentStatus.FINISHED

            _wait_ignoring_faults(finished, options.timeout_s)
            elapsed = time.monotonic() - started
            results = arena.store.results.all(tournament_id)
            spec = spec_of(arena.store, tournament_id)
            table = tournament_table(arena.store, tournament_id)
            run = RunState(arena.store, tournament_id)
            charged = Charges.of(results.values())
            return FaultReport(
                fault=fault, matches=total, recorded=len(results), feed=len(run.feed()),
                aborted=charged.aborted, strikes=charged.strikes, forfeits=charged.forfeits,
                timeouts=charged.timeouts,
                standings_equal=table.standings.to_dict() == reference_standings(spec),
                recovery_s=None if fault == "none" else (recovered[0] if recovered else None),
                resent=int(run.get("rescues") or 0), elapsed_s=elapsed,
                aof_bytes=sum(f.stat().st_size for f in (work / "redis").rglob("appendonly*") if f.is_file()),
                notes=[*notes, f"{len(in_flight)} match(es) in flight at the fault",
                       *_charged(arena.store, results)])
        finally:
            arena.close()


def _charged(store: Any, results: dict[str, StoredResult]) -> list[str]:
    """A line per match that charged a bot something: which decisions, and why (from its replay)."""
    lines = []
    for mid, result in sorted(results.items()):
        if not any(result.result.strikes) and not any(result.result.forfeits):
            continue
        replay = store.replays.load(mid)
        outcomes = "" if replay is None else replay.outcomes
        odd = [f"decision {i + 1}: {letter}" for i, letter in enumerate(outcomes) if letter != "a"]
        lines.append(f"{mid}: strikes {list(result.result.strikes)} (outcomes {', '.join(odd[:6])}; t: timeout, "
                     f"f: fallback, u: unreachable) {result.detail}")
    return lines


def _wait_ignoring_faults(check: Callable[[], bool], timeout_s: float) -> None:
    """``check()`` until true; a Redis error while Redis is down or refusing is only a reason to look again."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():
                return
        time.sleep(0.2)
    raise TimeoutError(f"the tournament did not finish within {timeout_s:g} s")


@contextlib.contextmanager
def _work_dir(base: Path | None, fault: str) -> Iterator[Path]:
    if base is not None:
        path = base / fault
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix=f"uno-arena-faults-{fault}-") as tmp:
        yield Path(tmp)


def format_report(reports: Sequence[FaultReport]) -> str:
    """The table of :func:`run_fault_bench` (Markdown, as pasted in the README)."""
    lines = ["| fault | recovery s | recorded / feed / matches | aborted | strikes | forfeits | timeouts | "
             "= clean | re-sent | took s | AOF KB/match |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in reports:
        recovery = "-" if r.recovery_s is None else f"{r.recovery_s:.1f}"
        lines.append(f"| {r.fault} | {recovery} | {r.recorded} / {r.feed} / {r.matches} | {r.aborted} | {r.strikes} | "
                     f"{r.forfeits} | {r.timeouts} | {'yes' if r.standings_equal else 'NO'} | {r.resent} | "
                     f"{r.elapsed_s:.1f} | {r.aof_bytes / 1024 / max(1, r.matches):.0f} |")
    return "\n".join(lines)


def run_fault_bench(out: TextIO, faults: Sequence[str] = FAULTS, options: FaultOptions = FaultOptions()) -> int:
    """Run every fault in ``faults``, print a line as each ends and the table at the end; 0 when every row shows
    nothing lost, nothing doubled and nothing charged, else 1."""
    reports = []
    for fault in faults:
        report = run_fault(fault, options)
        reports.append(report)
        print(f"{fault}: {'ok' if report.ok else 'FAILED'} ({'; '.join(report.notes)})", file=out, flush=True)
    print(format_report(reports), file=out)
    return 0 if all(r.ok for r in reports) else 1
