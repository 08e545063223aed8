"""`python -m benchmarks load`: many remote bots connected at once, one tournament among all of them.

The arena is started with :func:`arena.local_arena.local_arena` (Redis, the gateway, a Celery worker with
``--workers`` prefork children). ``--bots`` bots are registered through the organizer API and connected
from ``--processes`` swarm processes (:mod:`benchmarks.swarm`: one kit stream per bot, many per process).
Once every bot is connected, one round-robin tournament among all of them (or among the first
``--participants``; the others stay connected and idle) is played through gateway, relay and workers.
Reported:

- decisions/s (every decision of the tournament, over the wall time from creation to finish) and
  matches/s;
- decision latency p50/p90/p99/max as the match runner measured it: from the request leaving the
  worker to the answer coming back (relay, gateway, stream and the bot's own time), read from the
  stored match records;
- timeouts (decisions the arena had to take for a bot past the deadline; the late answers it then
  refused and the DEADLINE_EXCEEDED notices it sent are shown with them, not as errors) and errors:
  answers refused in time (illegal, malformed), fallbacks for a bot without a connection, aborted
  matches, other errors the arena sent the bots in-band, bots refused at connect; reconnects apart;
- RSS (now and peak) of every arena process: Redis (when embedded), the gateway, the worker and each
  of its children, and of each swarm process;
- CPU time per decision of each of those processes over the tournament (user + system from ``/proc``, every
  thread included, from its creation to its end, over the decisions played): where the machine's time goes;
- Redis traffic per decision over the tournament (from its creation to its end): the whole server's commands
  and bytes in and out (``INFO``: Celery's broker and results and the organizer API included), the commands
  that make up most of it, and the relay's own commands and bytes as its counters tell them
  (``uno_arena_relay_redis_commands_total`` and ``uno_arena_relay_redis_bytes_total`` of the workers and the
  gateway);
- that every match was recorded exactly once: the export lists each scheduled match id once, the store
  misses none and counts each once, and the workers' ``uno_arena_matches_completed_total`` equals the
  match count. The decisions counted in the workers' ``uno_arena_decisions_total`` are compared with
  the decisions in the records too: more would mean a match was played again (a retry), which is
  reported, not hidden.

The tournament: every bot is a participant (unless ``--participants``); the table size (``--seats``, 0 =
auto) is the smallest for which the round robin has about ``--tables-per-bot`` x bots tables or fewer (the
balanced design may add some), so the run grows about linearly with the number of bots; ``--deals`` deals
per table, one match each; rules: ``--variant``, ``--target-score``.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.store import Store
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.status import TournamentStatus
from benchmarks.fleet import (
    SwarmSettings,
    arena_processes,
    exported_results,
    play_tournament,
    scrape,
    start_fleet,
    swarm_processes,
    tournament_spec,
    wait_for_fleet,
)
from benchmarks.procfs import process_cpu, process_memory
from benchmarks.swarm import BRAINS, SwarmStats
from benchmarks.traffic import ServerTraffic, server_traffic

if TYPE_CHECKING:
    from arena.local_arena import LocalArena

MIB = 1024 * 1024
SLOW_MS = 250.0


@dataclass
class LoadOptions:
    """What `python -m benchmarks load` runs."""

    bots: int = 200
    participants: int = 0  # bots in the tournament (the first ones); 0: all; the others stay connected, idle
    processes: int = 0  # swarm processes; 0: one per 50 bots, 2 to 8
    workers: int = 2  # prefork children of the worker
    brain: str = "heuristic"
    seats: int = 0  # 0: auto (see module docstring)
    tables_per_bot: int = 4
    deals: int = 1
    variant: str = "flip"
    target_score: int = 100
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    seed: int = 1
    connect_timeout_s: float = 120.0
    timeout_s: float = 1800.0  # the whole tournament
    ramp_s: float = 0.0
    work_dir: Path | None = None  # logs, tokens and figures of the processes; None: a new temporary folder


@dataclass
class ProcessMemory:
    role: str
    pid: int
    rss_bytes: int
    peak_rss_bytes: int
    idle_rss_bytes: int = 0  # with every bot connected, before the tournament


@dataclass
class ProcessCpu:
    role: str
    pid: int
    seconds: float  # CPU seconds (user + system) over the tournament

    def ms_per_decision(self, decisions: int) -> float:
        return self.seconds * 1000.0 / decisions if decisions > 0 else math.nan


@dataclass
class TrafficFigures:
    """Redis traffic per decision of the tournament: the whole server's (``INFO``) and the relay's own."""

    redis_commands: float = math.nan
    redis_bytes_in: float = math.nan  # what Redis read from its clients
    redis_bytes_out: float = math.nan  # what it wrote to them (Pub/Sub deliveries included)
    redis_top: list[str] = field(default_factory=list)  # "publish 1.02": the most called commands, per decision
    worker_commands: float = math.nan  # the relay's commands from the workers
    worker_bytes_sent: float = math.nan
    worker_bytes_received: float = math.nan
    gateway_commands: float = math.nan  # the relay's commands from the gateway
    gateway_bytes_sent: float = math.nan
    gateway_bytes_received: float = math.nan


@dataclass
class LoadReport:
    """The figures of one run (``--json`` prints this)."""

    bots: int = 0
    participants: int = 0
    swarm_processes: int = 0
    workers: int = 0
    brain: str = ""
    tournament_id: str = ""
    seats: int = 0
    deals: int = 0
    state: TournamentStatus | None = None
    connect_s: float = 0.0
    elapsed_s: float = 0.0
    matches_total: int = 0
    matches_recorded: int = 0
    decisions: int = 0
    decisions_per_s: float = 0.0
    matches_per_s: float = 0.0
    latency_p50_ms: float = math.nan
    latency_p90_ms: float = math.nan
    latency_p99_ms: float = math.nan
    latency_max_ms: float = math.nan
    timeouts: int = 0
    slow_decisions: int = 0  # answered or timed out after SLOW_MS or more
    slowest: list[str] = field(default_factory=list)
    refusals: int = 0
    fallbacks: int = 0
    forfeits: int = 0
    aborted: int = 0
    kit_errors: int = 0
    late_answers: int = 0  # answers refused for coming after the deadline (each follows a timeout)
    timeout_notices: int = 0  # in-band DEADLINE_EXCEEDED messages the bots got (each follows a timeout)
    refused_connections: int = 0
    reconnects: int = 0
    errors: int = 0
    recorded_once: bool = False
    record_problems: list[str] = field(default_factory=list)
    metric_decisions: int = 0
    played_once: bool = False
    memory: list[ProcessMemory] = field(default_factory=list)
    cpu: list[ProcessCpu] = field(default_factory=list)
    traffic: TrafficFigures = field(default_factory=TrafficFigures)
    error_samples: list[str] = field(default_factory=list)
    work_dir: str = ""

    @property
    def ok(self) -> bool:
        return self.state is TournamentStatus.FINISHED and self.recorded_once and self.errors == 0


def auto_seats(bots: int, tables_per_bot: int) -> int:
    """The smallest table size (2-10, at most ``bots``) with at most ``tables_per_bot * bots`` tables."""
    budget = max(1, tables_per_bot) * bots
    for seats in range(2, min(10, bots) + 1):
        if table_count(bots, seats) <= budget:
            return seats
    return min(10, bots)


def table_count(bots: int, seats: int) -> int:
    """Tables of the round robin of ``bots`` at tables of ``seats`` (as arena.tournament.schedule builds it)."""
    from arena.tournament.design import blocks_needed
    from arena.tournament.spec import DEFAULT_MAX_TABLES

    complete = math.comb(bots, seats)
    if seats == 2 or complete <= DEFAULT_MAX_TABLES:
        return complete
    return blocks_needed(bots, seats, 1) * bots


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of sorted values; NaN when empty."""
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[min(len(ordered), rank) - 1]


def _sum(samples: Iterable[tuple[dict[str, str], float]]) -> float:
    return sum(value for _labels, value in samples)


# -- the run -------------------------------------------------------------------------------------------------------


def run_load_bench(options: LoadOptions, out: TextIO) -> LoadReport:
    """Run the benchmark, printing progress and the figures to ``out``; returns the figures."""
    from arena.local_arena import local_arena

    if options.bots < 2:
        raise ValueError("--bots must be at least 2")
    if options.brain not in BRAINS:
        raise ValueError(f"--brain must be one of {', '.join(BRAINS)}")
    playing = options.participants or options.bots
    if not 2 <= playing <= options.bots:
        raise ValueError(f"--participants must be 2..{options.bots} (0: all)")
    seats = options.seats or auto_seats(playing, options.tables_per_bot)
    if not 2 <= seats <= min(10, playing):
        raise ValueError(f"--seats must be 2..{min(10, playing)}")
    processes = swarm_processes(options.bots, options.processes)
    report = LoadReport(bots=options.bots, participants=playing, swarm_processes=processes,
                        workers=options.workers,
                        brain=options.brain, seats=seats, deals=options.deals)
    tag = uuid.uuid4().hex[:6]
    with local_arena(worker_concurrency=options.workers, work_dir=options.work_dir) as arena:
        report.work_dir = str(arena.work_dir)
        print(f"arena        gateway {arena.address}, worker with {options.workers} processes, redis "
              f"{'embedded' if arena.embedded_redis else arena.redis_url}; logs in {arena.work_dir}", file=out,
              flush=True)
        names = [f"load-{tag}-{i:05d}" for i in range(options.bots)]
        begun = time.monotonic()
        fleet = start_fleet(arena, names, SwarmSettings(options.brain, processes, options.ramp_s))
        wait_for_fleet(arena, names, options.workers, options.connect_timeout_s)
        report.connect_s = time.monotonic() - begun
        print(f"bots         {options.bots} registered and connected in {report.connect_s:.1f} s from "
              f"{processes} swarm processes (brain {options.brain})", file=out, flush=True)
        roles = arena_processes(arena, fleet.roles)
        idle = {pid: process_memory(pid)[0] for _, pid in roles}
        try:
            marks, cpu = _play(arena, options, report, names[:playing], seats, roles, out)
            _check_records(arena, report)
            report.traffic = traffic_figures(*marks, report.decisions)
            report.cpu = cpu
            _check_metrics(arena, report, f"load-{tag}-")
            for role, pid in arena_processes(arena, fleet.roles):
                rss, peak = process_memory(pid)
                report.memory.append(ProcessMemory(role, pid, rss, peak, idle.get(pid, 0)))
        finally:
            fleet.stop()
        _read_swarm_stats(report, fleet.stats())
    report.errors = (report.refusals + report.fallbacks + report.aborted + report.kit_errors
                     + report.refused_connections)
    print_report(report, out)
    return report


@dataclass(frozen=True)
class TrafficMark:
    """The Redis server's traffic and the relay's counters at one moment."""

    server: ServerTraffic
    relay: dict[tuple[str, str], float]  # (side, "commands" | "sent" | "received") -> total so far


RELAY_COMMANDS = "uno_arena_relay_redis_commands_total"
RELAY_BYTES = "uno_arena_relay_redis_bytes_total"


def traffic_mark(arena: LocalArena, store: Store) -> TrafficMark:
    """The traffic so far of the arena's Redis and of the relay (the gateway's and the workers' counters)."""
    relay: dict[tuple[str, str], float] = {}
    for port in (arena.gateway_metrics_port, arena.worker_metrics_port):
        samples = scrape(port)
        for labels, value in samples.get(RELAY_COMMANDS, []):
            key = (labels.get("side", ""), "commands")
            relay[key] = relay.get(key, 0.0) + value
        for labels, value in samples.get(RELAY_BYTES, []):
            key = (labels.get("side", ""), labels.get("direction", ""))
            relay[key] = relay.get(key, 0.0) + value
    return TrafficMark(server_traffic(store.redis), relay)


def traffic_figures(before: TrafficMark, after: TrafficMark, decisions: int, top: int = 6) -> TrafficFigures:
    """What happened between two marks, per decision (NaN without decisions)."""
    if decisions <= 0:
        return TrafficFigures()
    server = after.server.since(before.server)

    def relay(side: str, what: str) -> float:
        return (after.relay.get((side, what), 0.0) - before.relay.get((side, what), 0.0)) / decisions

    busiest = sorted(server.calls.items(), key=lambda item: (-item[1], item[0]))[:top]
    return TrafficFigures(
        redis_commands=server.commands / decisions, redis_bytes_in=server.net_input_bytes / decisions,
        redis_bytes_out=server.net_output_bytes / decisions,
        redis_top=[f"{name} {count / decisions:.2f}" for name, count in busiest],
        worker_commands=relay("worker", "commands"), worker_bytes_sent=relay("worker", "sent"),
        worker_bytes_received=relay("worker", "received"), gateway_commands=relay("gateway", "commands"),
        gateway_bytes_sent=relay("gateway", "sent"), gateway_bytes_received=relay("gateway", "received"))


def _play(arena: LocalArena, options: LoadOptions, report: LoadReport, names: Sequence[str], seats: int,
          roles: Sequence[tuple[str, int]], out: TextIO) -> tuple[tuple[TrafficMark, TrafficMark], list[ProcessCpu]]:
    """Play the tournament; the traffic marks at its creation and at its end, and the CPU time each process of
    ``roles`` spent in between."""
    spec = tournament_spec(f"load-{uuid.uuid4().hex[:8]}", names, seats=seats, deals=options.deals,
                           variant=options.variant, target_score=options.target_score, seed=options.seed,
                           decision_deadline_ms=options.decision_deadline_ms)
    idle = f" (the other {options.bots - len(names)} connected bots idle)" if len(names) < options.bots else ""
    about = (f"{len(names)} bots{idle}, {seats} seats per table, {options.deals} deal(s), {options.variant}, "
             f"target {options.target_score}, deadline {options.decision_deadline_ms} ms")
    store = Store.from_url(arena.redis_url)
    try:
        begin = traffic_mark(arena, store)
        cpu_begin = [process_cpu([pid]) for _, pid in roles]
        run = play_tournament(arena.client, spec, about, options.timeout_s, out)
        cpu_end = [process_cpu([pid]) for _, pid in roles]
        end = traffic_mark(arena, store)
    finally:
        store.close()
    report.tournament_id = run.tournament_id
    report.matches_total = run.matches_total
    report.elapsed_s = run.elapsed_s
    report.state = run.state
    report.aborted = run.matches_failed
    cpu = [ProcessCpu(role, pid, max(0.0, after - before))
           for (role, pid), before, after in zip(roles, cpu_begin, cpu_end, strict=True)]
    return (begin, end), cpu


def _check_records(arena: LocalArena, report: LoadReport) -> None:
    """Every scheduled match recorded once; decisions, latencies, timeouts and refusals from the records."""
    problems: list[str] = []
    exported = [result.match_id for result in exported_results(arena.client, report.tournament_id)]
    repeated = [mid for mid, count in Counter(exported).items() if count > 1]
    if repeated:
        problems.append(f"{len(repeated)} match ids exported more than once, e.g. {repeated[0]}")
    if len(set(exported)) != report.matches_total:
        problems.append(f"{len(set(exported))} distinct matches exported of {report.matches_total}")
    latencies: list[float] = []
    outcomes: Counter[str] = Counter()
    slow: list[tuple[float, str, int]] = []
    store = Store.from_url(arena.redis_url)
    try:
        missing = store.results.missing(report.tournament_id)
        if missing:
            problems.append(f"{len(missing)} scheduled matches have no result, e.g. {sorted(missing)[0]}")
        results = store.results.all(report.tournament_id)
        unscheduled = set(results) - set(exported)
        if unscheduled:
            problems.append(f"{len(unscheduled)} results not in the export")
        progress = store.results.progress(report.tournament_id)
        if progress.done != len(results) or progress.scheduled != report.matches_total:
            problems.append(f"store progress says {progress.done} done of {progress.scheduled} scheduled; "
                            f"{len(results)} results stored")
        report.matches_recorded = len(results)
        for match_id, result in results.items():
            refused = sum(result.refusals)  # in time (per decision) and late (after the match)
            in_time = 0
            report.forfeits += len(result.result.forfeits)
            stored = store.replays.load(match_id)
            if stored is None:
                if result.scored:
                    problems.append(f"match {match_id} has no stored record")
                continue
            for number, decision in enumerate(stored.decisions(), 1):
                outcomes[decision.outcome] += 1
                in_time += len(decision.reasons)
                if decision.outcome in ("answered", "timeout"):
                    latencies.append(decision.latency_ms)
                    if decision.latency_ms >= SLOW_MS:
                        slow.append((decision.latency_ms, match_id, number))
            report.refusals += in_time
            report.late_answers += max(0, refused - in_time)
    finally:
        store.close()
    latencies.sort()
    report.slow_decisions = len(slow)
    report.slowest = [f"{ms:.0f} ms: decision {number} of {match_id}" for ms, match_id, number in sorted(slow)[-5:]]
    report.decisions = sum(outcomes.values())
    report.timeouts = outcomes["timeout"]
    report.fallbacks = outcomes["fallback"] + outcomes["forfeited"]
    report.latency_p50_ms = percentile(latencies, 0.50)
    report.latency_p90_ms = percentile(latencies, 0.90)
    report.latency_p99_ms = percentile(latencies, 0.99)
    report.latency_max_ms = latencies[-1] if latencies else math.nan
    if report.elapsed_s > 0:
        report.decisions_per_s = report.decisions / report.elapsed_s
        report.matches_per_s = report.matches_recorded / report.elapsed_s
    report.record_problems = problems
    report.recorded_once = not problems and report.matches_recorded == report.matches_total


def _check_metrics(arena: LocalArena, report: LoadReport, bot_prefix: str) -> None:
    """The workers' counters against the records: matches counted once, decisions played once."""
    worker = scrape(arena.worker_metrics_port)
    completed = int(_sum(worker.get("uno_arena_matches_completed_total", [])))
    if completed != report.matches_total:
        report.record_problems.append(f"uno_arena_matches_completed_total is {completed}, "
                                      f"the tournament has {report.matches_total} matches")
        report.recorded_once = False
    report.metric_decisions = int(sum(value for labels, value in worker.get("uno_arena_decisions_total", [])
                                      if labels.get("bot", "").startswith(bot_prefix)))
    report.played_once = report.metric_decisions == report.decisions


def _read_swarm_stats(report: LoadReport, figures: Sequence[SwarmStats | Path]) -> None:
    for stats in figures:
        if isinstance(stats, Path):
            report.kit_errors += 1
            report.error_samples.append(f"{stats.name}: the swarm process left no figures")
            continue
        report.kit_errors += stats.errors
        report.timeout_notices += stats.timeout_notices
        report.refused_connections += stats.fatal
        report.reconnects += stats.reconnects
        report.error_samples.extend(stats.error_samples[: max(0, 20 - len(report.error_samples))])
        for memory in report.memory:
            if memory.pid == stats.pid:
                memory.peak_rss_bytes = max(memory.peak_rss_bytes, stats.peak_rss_bytes)


def _mib(value: int) -> str:
    return f"{value / MIB:7.1f}"


def print_report(report: LoadReport, out: TextIO) -> None:
    print(f"finished     {report.state} in {report.elapsed_s:.1f} s: {report.matches_recorded} matches, "
          f"{report.decisions:,} decisions: {report.decisions_per_s:,.0f} decisions/s, "
          f"{report.matches_per_s:.2f} matches/s", file=out)
    print(f"latency      decision request to answer (arena side): p50 {report.latency_p50_ms:.2f} ms, "
          f"p90 {report.latency_p90_ms:.2f} ms, p99 {report.latency_p99_ms:.2f} ms, "
          f"max {report.latency_max_ms:.1f} ms", file=out)
    print(f"timeouts     {report.timeouts} (late answers refused {report.late_answers}, timeout notices to bots "
          f"{report.timeout_notices}); decisions of {SLOW_MS:.0f} ms or more: {report.slow_decisions}", file=out)
    for line in reversed(report.slowest):
        print(f"             {line}", file=out)
    print(f"errors       {report.errors} (refused answers {report.refusals}, fallbacks {report.fallbacks}, "
          f"aborted matches {report.aborted}, in-band errors {report.kit_errors}, refused connections "
          f"{report.refused_connections}); reconnects {report.reconnects}; forfeits {report.forfeits}", file=out)
    for sample in report.error_samples[:5]:
        print(f"             {sample}", file=out)
    if report.recorded_once:
        print(f"recorded     every match exactly once: {report.matches_total} scheduled, "
              f"{report.matches_recorded} results, each id once in the export, "
              f"uno_arena_matches_completed_total {report.matches_total}", file=out)
    else:
        print("recorded     NOT exactly once: " + "; ".join(report.record_problems or ["incomplete"]), file=out)
    played = ("each match played once" if report.played_once else
              f"the workers counted {report.metric_decisions:,} decisions, the records hold {report.decisions:,} "
              "(some match was played more than once)")
    print(f"played       {played}", file=out)
    traffic = report.traffic
    print(f"redis        per decision: {traffic.redis_commands:.2f} commands, {traffic.redis_bytes_in:,.0f} bytes in, "
          f"{traffic.redis_bytes_out:,.0f} bytes out (the whole server: {', '.join(traffic.redis_top)})", file=out)
    print(f"relay        per decision: workers {traffic.worker_commands:.2f} commands, "
          f"{traffic.worker_bytes_sent:,.0f} bytes sent, {traffic.worker_bytes_received:,.0f} received; gateway "
          f"{traffic.gateway_commands:.2f} commands, {traffic.gateway_bytes_sent:,.0f} bytes sent, "
          f"{traffic.gateway_bytes_received:,.0f} received", file=out)
    print(f"memory       RSS in MiB:  {'idle':>7} {'end':>7} {'peak':>7}   (idle: bots connected, "
          "before the tournament)", file=out)
    for memory in report.memory:
        print(f"  {memory.role:<24} {_mib(memory.idle_rss_bytes)} {_mib(memory.rss_bytes)} "
              f"{_mib(memory.peak_rss_bytes)}", file=out)
    arena_rss = sum(m.rss_bytes for m in report.memory if not m.role.startswith("swarm"))
    print(f"  {'arena total':<24} {'':>7} {_mib(arena_rss)}", file=out)
    _print_cpu(report, out)
    print(f"result       {'OK' if report.ok else 'FAILED'}", file=out, flush=True)


def _print_cpu(report: LoadReport, out: TextIO) -> None:
    """CPU ms per decision: each process, then the worker's children and the swarm processes summed."""
    if not report.cpu or report.decisions <= 0:
        return
    print(f"cpu          ms per decision over the tournament (user + system, /proc), {report.decisions:,} decisions:",
          file=out)
    for cpu in report.cpu:
        print(f"  {cpu.role:<24} {cpu.ms_per_decision(report.decisions):7.3f}", file=out)
    groups = {"worker children": "worker child", "swarm processes": "swarm"}
    for label, prefix in groups.items():
        seconds = sum(c.seconds for c in report.cpu if c.role.startswith(prefix))
        print(f"  {label + ' together':<24} {seconds * 1000.0 / report.decisions:7.3f}", file=out)
    arena_s = sum(c.seconds for c in report.cpu if not c.role.startswith("swarm"))
    total_s = sum(c.seconds for c in report.cpu)
    print(f"  {'arena total':<24} {arena_s * 1000.0 / report.decisions:7.3f}   (with the swarm: "
          f"{total_s * 1000.0 / report.decisions:.3f})", file=out)


def report_json(report: LoadReport) -> str:
    """The figures as one JSON object (NaN latencies, when nothing was decided, as null)."""
    data = asdict(report)
    data["ok"] = report.ok
    return json.dumps(_without_nan(data))


def _without_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _without_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_nan(item) for item in value]
    return value
