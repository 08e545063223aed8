"""``python -m benchmarks tournament``: matches/s of built-in bots in process and through Celery.

One run measures, on the same machine and the same matches:

1. **in process**: every match of the tournament through :func:`arena.runner.run_match` in this
   process, one after the other (no Redis, no Celery);
2. **Celery, 1 worker**: a real ``celery worker`` process (prefork, one child) plays the same
   tournament from a private Redis: start task, batches, results written once with their
   compressed replays, completeness check, standings and ratings;
3. **Celery, 2 workers**: the same with two worker processes.

Redis is flushed between runs and the tournament id is the same, so every run plays exactly the
same matches (same ids, seeds and bot seeds). Throughput is matches / wall time from sending the
start to the tournament being finished; worker start-up is not counted. The three are run
``rounds`` times, interleaved, and the best of each is kept (other processes on the machine only
ever slow a run down). Targets on 2 cores: Celery with one worker at least 0.9x in process, two
workers at least 1.7x one.
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.runner import run_match
from arena.service.lifecycle import create_tournament
from arena.service.matches import match_config, seats_for
from arena.store import Store
from arena.store.embedded import RedisServer
from arena.tournament import TournamentSpec, schedule
from arena.tournament.status import TournamentStatus
from benchmarks.procfs import machine_busy, process_cpu, process_tree
from bots import make_bot
from workers.celery_app import make_celery

BENCH_BOTS = ("random", "heuristic", "random#2", "heuristic#2")
TOURNAMENT_ID = "bench"


@dataclass(frozen=True)
class BenchFigure:
    label: str
    matches: int
    seconds: float
    other_load: float = 0.0
    """CPU cores used by processes outside the measurement meanwhile (Linux only; 0 elsewhere)."""

    @property
    def rate(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else 0.0


class LoadMeter:
    """How much CPU other processes used while ours ran (to judge a noisy measurement)."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = list(pids)
        self.busy = machine_busy()
        self.ours = process_cpu(self.pids)
        self.started = time.perf_counter()

    def other_load(self) -> float:
        elapsed = time.perf_counter() - self.started
        busy = machine_busy() - self.busy
        ours = process_cpu(self.pids) - self.ours
        return max(0.0, (busy - ours) / elapsed) if elapsed > 0 and self.busy > 0 else 0.0


def bench_spec(matches: int, *, target: int = 500, variant: str = "flip") -> TournamentSpec:
    pairs = math.comb(len(BENCH_BOTS), 2)
    deals = max(1, math.ceil(matches / pairs))
    return TournamentSpec(
        TOURNAMENT_ID, BENCH_BOTS, variant=variant, options={"target": target}, seats=2, deals=deals, seed=2026
    )


def in_process(spec: TournamentSpec, store: Store) -> BenchFigure:
    """Every match of ``spec`` in this process, on one event loop."""
    matches = schedule(spec)
    loop = asyncio.new_event_loop()
    try:
        meter = LoadMeter([os.getpid()])
        started = time.perf_counter()
        for m in matches:
            loop.run_until_complete(run_match(match_config(m), seats_for(store, m, make_bot)))
        elapsed = time.perf_counter() - started
        other = meter.other_load()
    finally:
        loop.close()
    return BenchFigure("in process", len(matches), elapsed, other)


def _start_workers(count: int, redis_url: str, log_dir: Path) -> list[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env["REDIS_URL"] = redis_url
    procs = []
    for i in range(count):
        log = open(log_dir / f"worker{i}.log", "wb")  # noqa: SIM115 - the child keeps it
        command = [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "--pool", "prefork",
                   "--concurrency", "1", "--without-gossip", "--without-mingle", "--loglevel", "WARNING",
                   "--hostname", f"bench{i}@%h"]  # fmt: skip
        procs.append(
            subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        )
        log.close()
    return procs


def _stop_workers(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def through_celery(spec: TournamentSpec, redis: RedisServer, workers: int, timeout: float = 1800.0) -> BenchFigure:
    """The tournament played by ``workers`` real worker processes (one prefork child each)."""
    client = redis.client()
    try:
        client.flushall()
    finally:
        client.close()
    app = make_celery(redis.url)
    store = Store.from_url(redis.url)
    with tempfile.TemporaryDirectory(prefix="uno-bench-") as tmp:
        procs = _start_workers(workers, redis.url, Path(tmp))
        try:
            deadline = time.monotonic() + 60
            while True:
                replies = app.control.ping(timeout=0.5) or []
                if len(replies) >= workers:
                    break
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    logs = " | ".join((Path(tmp) / f"worker{i}.log").read_text()[-500:] for i in range(workers))
                    raise RuntimeError(f"the bench workers did not start: {logs}")
            create_tournament(store, spec)
            ours = [os.getpid(), *(p.pid for p in procs)]
            if redis.pid is not None:
                ours.append(redis.pid)
            meter = LoadMeter(process_tree(ours))
            started = time.perf_counter()
            app.send_task("workers.tasks.start_tournament", args=[spec.tournament_id])
            end = time.monotonic() + timeout
            while store.tournaments.status(spec.tournament_id) is not TournamentStatus.FINISHED:
                if time.monotonic() > end:
                    raise RuntimeError(f"the tournament did not finish within {timeout} s")
                time.sleep(0.02)
            elapsed = time.perf_counter() - started
            other = meter.other_load()
            done = store.results.progress(spec.tournament_id).done
        finally:
            _stop_workers(procs)
            store.close()
            app.close()
    label = "Celery, 1 worker" if workers == 1 else f"Celery, {workers} workers"
    return BenchFigure(label, done, elapsed, other)


def run_tournament_bench(
    out: TextIO,
    *,
    matches: int = 240,
    target: int = 500,
    variant: str = "flip",
    workers: Sequence[int] = (1, 2),
    rounds: int = 3,
) -> list[BenchFigure]:
    """Run the measurements ``rounds`` times, interleaved, and print them and the best of each.

    Interleaving and keeping the best of each configuration damps the noise of other processes
    on the machine (which only ever slow a measurement down). Returns the best figures: in
    process first, then one per worker count.
    """
    spec = bench_spec(matches, target=target, variant=variant)
    total = len(schedule(spec))
    print(
        f"tournament: {len(spec.participants)} built-in bots ({', '.join(spec.participants)}), 2 seats, "
        f"{spec.deals} deals per table, {total} matches, {variant} to {target}; {os.cpu_count()} CPUs; "
        f"{rounds} round(s), best of each kept",
        file=out,
        flush=True,
    )
    runs: list[list[BenchFigure]] = [[] for _ in range(1 + len(workers))]
    with RedisServer() as redis:
        for round_no in range(1, max(1, rounds) + 1):
            store = Store.from_url(redis.url)
            try:
                figure = in_process(spec, store)
            finally:
                store.close()
            runs[0].append(figure)
            print(_line(round_no, figure), file=out, flush=True)
            for index, count in enumerate(workers, start=1):
                figure = through_celery(spec, redis, count)
                runs[index].append(figure)
                print(_line(round_no, figure), file=out, flush=True)
    best = [max(figures, key=lambda f: f.rate) for figures in runs]
    print("best:", file=out)
    for figure in best:
        print(f"  {figure.label:<20} {figure.rate:8.2f} matches/s", file=out)
    base = best[0].rate
    by_workers = dict(zip(workers, best[1:], strict=True))
    if 1 in by_workers and base > 0:
        print(f"Celery 1 worker / in process: {by_workers[1].rate / base:.2f} (target >= 0.9)", file=out)
    if 1 in by_workers and 2 in by_workers and by_workers[1].rate > 0:
        print(f"Celery 2 workers / 1 worker:  {by_workers[2].rate / by_workers[1].rate:.2f} (target >= 1.7)", file=out)
    return best


def _line(round_no: int, figure: BenchFigure) -> str:
    return (
        f"  round {round_no}: {figure.label:<20} {figure.rate:8.2f} matches/s"
        f"   (other processes meanwhile: {figure.other_load:.2f} CPU)"
    )
