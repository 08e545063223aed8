"""`python -m benchmarks remote`: how many remote matches the workers keep in flight, and what each costs.

Each pass starts a whole arena of its own (:func:`arena.local_arena.local_arena`: a private Redis, the gateway,
a Celery worker with ``--workers`` prefork processes) and ``--bots`` remote bots in swarm processes
(:mod:`benchmarks.fleet`), each bot offering ``--capacity`` matches at once (its Hello's
``max_concurrent_matches``) and waiting ``--think-ms`` before each answer. One round robin among all the bots at
tables of ``--seats`` is played, with enough deals per table for at least ``--matches`` matches.

The first pass, the *run*, gives the worker ``UNO_ARENA_MATCHES_PER_PROCESS=--limit`` (the matches one worker
process plays at once; without ``--limit`` the variable is left as it is here: unset, the workers' default). The
second, the *baseline* (``--no-baseline`` skips it), is the same run with the limit at 1: one match at a time
per worker process, over at least ``--baseline-matches`` matches (fewer: with one match per process its rate is
steady from the start, and the run's ramp and tail matter less the longer it is). For each pass (the formulas:
:mod:`benchmarks.remote_figures`):

- matches in flight, mean and max, from the recorded matches' durations and ends (ExportResults, through the
  organizer API), against the bound the bots allow (bots x capacity / seats tables) and against the ideal: the
  same matches with their durations released the instant their bots are free (what no dispatcher can beat);
- decisions/s over the wall time of the tournament (creation to finish), and the bots' utilisation;
- the worker's CPU (user + system of its processes, from ``/proc``) as a share of the wall time (100% = one
  core busy), and its RSS (the sum over its processes, now and of each one's peak);
- Redis commands and bytes (in + out) per decision: the server's own totals (``INFO``) before and after the
  tournament, so everything the arena asked of Redis meanwhile counts, the gateway's and the worker's.

Then the run over the baseline: the ratio of decisions/s, and the workers' RSS per extra match in flight (peak
RSS of the run less the baseline's, over the extra mean in flight).
"""

from __future__ import annotations

import json
import math
import os
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.store import Store, StoredResult
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.status import TournamentStatus
from benchmarks import remote_figures as figures
from benchmarks.fleet import (
    SwarmSettings,
    TournamentRun,
    exported_results,
    play_tournament,
    start_fleet,
    swarm_processes,
    tournament_spec,
    wait_for_fleet,
    worker_pids,
)
from benchmarks.load import table_count
from benchmarks.procfs import process_cpu, process_memory
from benchmarks.swarm import SwarmStats
from benchmarks.traffic import ServerTraffic, server_traffic

if TYPE_CHECKING:
    from arena.local_arena import LocalArena

LIMIT_VARIABLE = "UNO_ARENA_MATCHES_PER_PROCESS"
"""The workers' setting of how many matches one worker process plays at once (:mod:`workers.celery_app`)."""
MIB = 1024 * 1024


@dataclass
class RemoteOptions:
    """What `python -m benchmarks remote` runs."""

    bots: int = 32
    capacity: int = 4  # matches each bot plays at once (Hello.max_concurrent_matches)
    think_ms: float = 20.0
    seats: int = 4
    workers: int = 2  # prefork processes of the worker
    limit: int | None = None  # UNO_ARENA_MATCHES_PER_PROCESS of the run; None: as in this environment
    baseline: bool = True
    matches: int = 576  # at least; the round robin's tables times the deals per table
    baseline_matches: int = 96  # at least, in the baseline (one match per process: its rate is steady at once)
    brain: str = "heuristic"
    variant: str = "flip"
    target_score: int = 50
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    seed: int = 1
    connect_timeout_s: float = 120.0
    timeout_s: float = 900.0  # each tournament
    work_dir: Path | None = None  # one folder per pass under it; None: a new temporary folder per pass


@dataclass
class PassFigures:
    """The figures of one pass (NaN where there is nothing to divide by)."""

    name: str
    limit: str  # the workers' UNO_ARENA_MATCHES_PER_PROCESS ("unset": their default)
    tournament_id: str = ""
    state: TournamentStatus | None = None
    matches_total: int = 0
    matches_recorded: int = 0
    aborted: int = 0
    elapsed_s: float = 0.0
    decisions: int = 0
    decisions_per_s: float = math.nan
    timeouts: int = 0
    in_flight_mean: float = math.nan
    in_flight_max: int = 0
    bound_tables: float = math.nan
    mean_of_bound: float = math.nan
    max_of_bound: float = math.nan
    utilisation: float = math.nan
    ideal_wall_s: float = math.nan  # the same matches released at once by the dispatcher's rule (remote_figures)
    ideal_in_flight_mean: float = math.nan
    ideal_of_bound: float = math.nan
    worker_processes: int = 0
    worker_cpu_s: float = 0.0
    worker_cpu_pct: float = math.nan
    worker_rss_bytes: int = 0
    worker_peak_rss_bytes: int = 0
    redis_commands: int = 0
    redis_bytes: int = 0
    commands_per_decision: float = math.nan
    bytes_per_decision: float = math.nan
    shared_redis: bool = False  # REDIS_URL was set: other clients' commands count too
    kit_errors: int = 0
    refused_connections: int = 0
    error_samples: list[str] = field(default_factory=list)
    work_dir: str = ""

    @property
    def ok(self) -> bool:
        return (self.state is TournamentStatus.FINISHED and self.matches_recorded == self.matches_total
                and self.aborted == 0 and self.kit_errors == 0 and self.refused_connections == 0)


@dataclass
class RemoteReport:
    """The figures of both passes and their comparison (``--json`` prints this)."""

    bots: int
    capacity: int
    think_ms: float
    seats: int
    workers: int
    deals: int
    brain: str
    swarm_processes: int
    passes: list[PassFigures] = field(default_factory=list)
    decisions_per_s_ratio: float = math.nan  # run over baseline
    rss_per_match_bytes: float = math.nan  # worker peak RSS per extra match in flight, run over baseline

    @property
    def ok(self) -> bool:
        return bool(self.passes) and all(p.ok for p in self.passes)


def check_options(options: RemoteOptions) -> None:
    """ValueError naming the option when ``options`` cannot make a run."""
    for flag, value in (("--bots", options.bots), ("--capacity", options.capacity), ("--workers", options.workers),
                        ("--matches", options.matches), ("--baseline-matches", options.baseline_matches),
                        ("--limit", 1 if options.limit is None else options.limit)):
        if value < 1:
            raise ValueError(f"{flag} must be at least 1, got {value}")
    if options.think_ms < 0:
        raise ValueError(f"--think-ms must not be negative, got {options.think_ms:g}")
    if not 2 <= options.seats <= min(10, options.bots):
        raise ValueError(f"--seats must be 2 to {min(10, options.bots)} (2 to 10, at most --bots {options.bots}), "
                         f"got {options.seats}")


def deals_for(options: RemoteOptions, matches: int | None = None) -> int:
    """Deals per table for at least ``matches`` (default ``options.matches``) in the round robin of every bot."""
    wanted = options.matches if matches is None else matches
    return max(1, math.ceil(wanted / table_count(options.bots, options.seats)))


def run_remote_bench(options: RemoteOptions, out: TextIO) -> RemoteReport:
    """Run the passes, printing progress and the figures to ``out``; returns the figures."""
    check_options(options)
    report = RemoteReport(options.bots, options.capacity, options.think_ms, options.seats, options.workers,
                          deals_for(options), options.brain, swarm_processes(options.bots))
    print(f"bench remote {options.bots} bots of capacity {options.capacity}, think {options.think_ms:g} ms, "
          f"{options.seats} seats, {options.workers} worker processes, {report.deals} deal(s) per table",
          file=out, flush=True)
    limit = None if options.limit is None else str(options.limit)
    report.passes.append(_run_pass(options, report, "run", limit, report.deals, out))
    if options.baseline:
        report.passes.append(_run_pass(options, report, "baseline", "1", deals_for(options, options.baseline_matches),
                                       out))
        run, base = report.passes
        report.decisions_per_s_ratio = figures.ratio(run.decisions_per_s, base.decisions_per_s)
        report.rss_per_match_bytes = figures.rss_per_match(run.worker_peak_rss_bytes, base.worker_peak_rss_bytes,
                                                           run.in_flight_mean, base.in_flight_mean)
    print_comparison(report, out)
    return report


def _run_pass(options: RemoteOptions, report: RemoteReport, name: str, limit: str | None, deals: int,
              out: TextIO) -> PassFigures:
    """One pass: a fresh arena whose worker gets ``limit`` (None: this environment's), the bots, the tournament."""
    from arena.local_arena import local_arena

    shown = limit if limit is not None else os.environ.get(LIMIT_VARIABLE) or "unset"
    result = PassFigures(name, shown)
    work_dir = None
    if options.work_dir is not None:
        work_dir = options.work_dir / name
        work_dir.mkdir(parents=True, exist_ok=True)
    worker_env = {} if limit is None else {LIMIT_VARIABLE: limit}
    print(f"pass         {name}: worker processes with {LIMIT_VARIABLE} {shown}"
          f"{' (their default)' if shown == 'unset' else ''}", file=out, flush=True)
    with local_arena(worker_concurrency=options.workers, work_dir=work_dir, worker_env=worker_env) as arena:
        result.work_dir = str(arena.work_dir)
        result.shared_redis = not arena.embedded_redis
        print(f"arena        gateway {arena.address}, worker with {options.workers} processes, redis "
              f"{'embedded' if arena.embedded_redis else arena.redis_url + ' (shared: its other clients count)'}; "
              f"logs in {arena.work_dir}", file=out, flush=True)
        names = [f"remote-{uuid.uuid4().hex[:6]}-{i:04d}" for i in range(options.bots)]
        begun = time.monotonic()
        fleet = start_fleet(arena, names, SwarmSettings(options.brain, report.swarm_processes,
                                                        max_concurrent=options.capacity, think_ms=options.think_ms))
        try:
            wait_for_fleet(arena, names, options.workers, options.connect_timeout_s)
            print(f"bots         {options.bots} connected in {time.monotonic() - begun:.1f} s from "
                  f"{report.swarm_processes} swarm processes ({options.brain})", file=out, flush=True)
            _play_and_measure(arena, options, deals, names, result, out)
        finally:
            fleet.stop()
        _count_swarm_problems(result, fleet.stats())
    print_pass(result, options, out)
    return result


def _play_and_measure(arena: LocalArena, options: RemoteOptions, deals: int, names: list[str],
                      result: PassFigures, out: TextIO) -> None:
    spec = tournament_spec(f"remote-{uuid.uuid4().hex[:8]}", names, seats=options.seats, deals=deals,
                           variant=options.variant, target_score=options.target_score, seed=options.seed,
                           decision_deadline_ms=options.decision_deadline_ms)
    about = (f"{len(names)} bots, {options.seats} seats per table, {deals} deal(s), {options.variant}, "
             f"target {options.target_score}")
    pids = worker_pids(arena)
    store = Store.from_url(arena.redis_url)
    try:
        redis_before = server_traffic(store.redis)
        cpu_before = process_cpu(pids)
        run = play_tournament(arena.client, spec, about, options.timeout_s, out)
        cpu = process_cpu(pids) - cpu_before
        redis = server_traffic(store.redis).since(redis_before)
    finally:
        store.close()
    memory = [process_memory(pid) for pid in pids]
    result.worker_processes = len(pids)
    result.worker_rss_bytes = sum(rss for rss, _peak in memory)
    result.worker_peak_rss_bytes = sum(peak for _rss, peak in memory)
    fill_figures(result, run, exported_results(arena.client, run.tournament_id), cpu, redis,
                 bots=options.bots, capacity=options.capacity, seats=options.seats)


def fill_figures(result: PassFigures, run: TournamentRun, recorded: list[StoredResult], worker_cpu_s: float,
                 redis: ServerTraffic, *, bots: int, capacity: int, seats: int) -> None:
    """The figures of a pass from its tournament, its recorded matches and the counters' deltas."""
    wall = run.elapsed_s
    spans = [figures.span(r.finished_at, r.duration_s, len(r.seats), sum(r.decisions)) for r in recorded]
    result.tournament_id = run.tournament_id
    result.state = run.state
    result.matches_total = run.matches_total
    result.aborted = run.matches_failed
    result.elapsed_s = wall
    result.matches_recorded = len({r.match_id for r in recorded})
    result.timeouts = sum(sum(r.timeouts) for r in recorded)
    result.decisions = figures.decisions_of(spans)
    result.decisions_per_s = figures.ratio(result.decisions, wall)
    result.in_flight_mean = figures.in_flight_mean(spans, wall)
    result.in_flight_max = figures.in_flight_max(spans)
    result.bound_tables = figures.table_bound(bots, capacity, seats)
    result.mean_of_bound = figures.ratio(result.in_flight_mean, result.bound_tables)
    result.max_of_bound = figures.ratio(result.in_flight_max, result.bound_tables)
    result.utilisation = figures.utilisation(spans, bots, capacity, wall)
    played = sorted({r.match_id: figures.PlayedMatch(r.match_id, frozenset(r.seats), r.duration_s)
                     for r in recorded}.values(), key=lambda m: m.match_id)
    result.ideal_wall_s = figures.ideal_wall(played, capacity)
    result.ideal_in_flight_mean = figures.in_flight_mean(spans, result.ideal_wall_s)
    result.ideal_of_bound = figures.ratio(result.ideal_in_flight_mean, result.bound_tables)
    result.worker_cpu_s = worker_cpu_s
    result.worker_cpu_pct = 100 * figures.ratio(worker_cpu_s, wall)
    result.redis_commands = redis.commands
    result.redis_bytes = redis.net_bytes
    result.commands_per_decision = figures.ratio(redis.commands, result.decisions)
    result.bytes_per_decision = figures.ratio(redis.net_bytes, result.decisions)


def _count_swarm_problems(result: PassFigures, stats: list[SwarmStats | Path]) -> None:
    for swarm in stats:
        if isinstance(swarm, Path):
            result.kit_errors += 1
            result.error_samples.append(f"{swarm.name}: the swarm process left no figures")
            continue
        result.kit_errors += swarm.errors
        result.refused_connections += swarm.fatal
        result.error_samples.extend(swarm.error_samples[: max(0, 10 - len(result.error_samples))])


def print_pass(result: PassFigures, options: RemoteOptions, out: TextIO) -> None:
    r = result
    print(f"finished     {r.state} in {r.elapsed_s:.1f} s: {r.matches_recorded} of {r.matches_total} matches "
          f"recorded, {r.decisions:,} decisions: {r.decisions_per_s:,.1f} decisions/s; timeouts {r.timeouts}, "
          f"aborted {r.aborted}", file=out)
    print(f"in flight    mean {r.in_flight_mean:.2f}, max {r.in_flight_max} matches; the bots allow "
          f"{r.bound_tables:g} tables at once ({options.bots} bots x {options.capacity} / {options.seats} seats): "
          f"in flight / bound mean {r.mean_of_bound:.3f}, max {r.max_of_bound:.3f}", file=out)
    print(f"ideal        these matches, each as long as it took, started the instant their bots are free: "
          f"{r.ideal_wall_s:.1f} s, mean in flight {r.ideal_in_flight_mean:.2f} ({r.ideal_of_bound:.3f} of the "
          f"bound); the run reached {figures.ratio(r.in_flight_mean, r.ideal_in_flight_mean):.3f} of it", file=out)
    print(f"bots         utilisation {100 * r.utilisation:.1f}% (seat-seconds in matches / {options.bots} bots x "
          f"{options.capacity} x {r.elapsed_s:.1f} s)", file=out)
    print(f"worker       CPU {r.worker_cpu_pct:.0f}% of wall time ({r.worker_cpu_s:.1f} s user+sys of "
          f"{r.worker_processes} processes; 100% = one core); RSS {r.worker_rss_bytes / MIB:.1f} MiB now, "
          f"{r.worker_peak_rss_bytes / MIB:.1f} MiB peak (sums over the processes)", file=out)
    print(f"redis        {r.commands_per_decision:.1f} commands and {r.bytes_per_decision:,.0f} bytes (in + out) per "
          f"decision ({r.redis_commands:,} commands, {r.redis_bytes / MIB:.1f} MiB)", file=out)
    if r.kit_errors or r.refused_connections:
        print(f"errors       in-band errors {r.kit_errors}, refused connections {r.refused_connections}", file=out)
        for sample in r.error_samples[:5]:
            print(f"             {sample}", file=out)
    out.flush()


def print_comparison(report: RemoteReport, out: TextIO) -> None:
    if len(report.passes) == 2:
        run, base = report.passes
        print(f"compared     decisions/s: run {run.decisions_per_s:,.1f} (limit {run.limit}), baseline "
              f"{base.decisions_per_s:,.1f} (limit 1): {report.decisions_per_s_ratio:.2f}x", file=out)
        if math.isnan(report.rss_per_match_bytes):
            extra = run.in_flight_mean - base.in_flight_mean
            print(f"             worker RSS per match in flight: n/a (the run had {extra:+.2f} matches in flight "
                  f"over the baseline; at least {figures.MIN_EXTRA_IN_FLIGHT:g} needed)", file=out)
        else:
            print(f"             worker RSS per match in flight: {report.rss_per_match_bytes / MIB:.2f} MiB "
                  f"(peak RSS {run.worker_peak_rss_bytes / MIB:.1f} - {base.worker_peak_rss_bytes / MIB:.1f} MiB "
                  f"over {run.in_flight_mean - base.in_flight_mean:.2f} more in flight)", file=out)
    print(f"result       {'OK' if report.ok else 'FAILED'}", file=out, flush=True)


def report_json(report: RemoteReport) -> str:
    """The figures as one JSON object (NaN, where there was nothing to divide by, as null)."""
    def clean(value: object) -> object:
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        if isinstance(value, list):
            return [clean(item) for item in value]
        return value

    data = asdict(report)
    data["ok"] = report.ok
    for figures_of_pass, source in zip(data["passes"], report.passes, strict=True):
        figures_of_pass["ok"] = source.ok
    return json.dumps(clean(data))
