"""Fault tests: real worker processes killed with SIGKILL, Redis restarted mid-tournament.

Each ends with every scheduled match recorded exactly once and standings equal to a clean run with
the same seed. The `uno-arena worker` process test is also the prefork smoke test of the command:
multiprocess metrics from every child through one exporter.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from celery.contrib.testing.worker import start_worker

from arena.service.lifecycle import create_tournament
from arena.store import Store
from arena.tournament import schedule
from benchmarks.procfs import child_pids
from tests.support import free_port, wait_until
from tests.support.cli import spawn_cli
from workers.enqueue import START_TASK
from workers.scheduler import Scheduler

from .helpers import (
    FAST_ENV,
    assert_exactly_once,
    clean_standings,
    fast_app,
    small_spec,
    stored_spec,
    wait_finished,
    worker_standings,
)

# Long enough to be interrupted mid-way: 4 bots, target 500, 2 seats.
FAULT_BOTS = ("random", "heuristic", "random#2", "heuristic#2")


@contextmanager
def worker_process(
    redis_url: str, tmp: Path, name: str, *, metrics_port: int = -1
) -> Iterator[subprocess.Popen[str]]:
    """`uno-arena worker --concurrency 2` as a real process (prefork), stopped at the end."""
    env = {**FAST_ENV, "REDIS_URL": redis_url, "PROMETHEUS_MULTIPROC_DIR": str(tmp / f"{name}-prom")}
    log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed below
    proc = spawn_cli("worker", "--concurrency", "2", "--metrics-port", str(metrics_port), "--hostname", f"{name}@%h",
                     "--loglevel", "INFO", env_extra=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        else:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def wait_ready(app: Any, name: str, proc: subprocess.Popen[str], log: Path) -> None:
    def ready() -> bool:
        assert proc.poll() is None, log.read_text()[-3000:]
        replies = app.control.ping(timeout=0.5) or []
        return any(name in host for reply in replies for host in reply)

    wait_until(ready, 60, f"worker {name} to answer a ping")


@contextmanager
def scheduler_thread(app: Any) -> Iterator[Scheduler]:
    """The `uno-arena scheduler` loop (sweep of active tournaments) in a thread, as in production."""
    scheduler = Scheduler(app, tick=0.3, canary_interval=0)
    stop = threading.Event()
    thread = threading.Thread(target=scheduler.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield scheduler
    finally:
        stop.set()
        thread.join(timeout=10)


def scrape(port: int) -> dict[str, float]:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def test_kill_9_a_worker_child_mid_tournament_and_metrics(redis_server: Any, store: Store, tmp_path: Path) -> None:
    app = fast_app(redis_server.url)
    port = free_port()
    spec = small_spec("t-kill-child", bots=FAULT_BOTS, deals=6, target=500)
    with worker_process(redis_server.url, tmp_path, "killchild", metrics_port=port) as proc:
        wait_ready(app, "killchild", proc, tmp_path / "killchild.log")
        create_tournament(store, spec)
        app.send_task(START_TASK, args=[spec.tournament_id])
        wait_until(lambda: store.results.progress(spec.tournament_id).done >= 3, 60, "some matches")
        remaining = scrape(port)
        assert any(k.startswith(f'uno_arena_matches_remaining{{tournament="{spec.tournament_id}"}}') for k in remaining)
        victims = child_pids(proc.pid)
        assert len(victims) == 2, victims
        os.kill(victims[0], signal.SIGKILL)  # mid-batch: its message is rejected back to the queue
        wait_finished(store, spec.tournament_id)
        assert_exactly_once(store, spec)

        app.send_task("workers.tasks.canary").get(timeout=30)
        values = scrape(port)
        total = len(schedule(spec))
        # Every child's counts through the one exporter (multiprocess mode), each match id counted
        # once (a SIGKILL between writing a result and counting it could lose one count).
        assert total - 1 <= values["uno_arena_matches_completed_total"] <= total
        assert values['uno_arena_match_duration_seconds_count{variant="flip"}'] >= total
        assert values["uno_arena_canary_last_success_timestamp_seconds"] > time.time() - 120
        assert any(k.startswith('uno_arena_queue_depth{queue="celery"}') for k in values)
        # Finished: its matches_remaining series is removed (by the last process to touch it).
        wait_until(lambda: not any(spec.tournament_id in k for k in scrape(port)), 30, "the series to go")
        assert len(child_pids(proc.pid)) == 2  # the pool replaced the killed child
    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))


def test_kill_9_a_whole_worker_mid_tournament(redis_server: Any, store: Store, tmp_path: Path) -> None:
    """The worker and its children die with their messages unacknowledged (back only after the
    visibility timeout): the sweep notices the dead batches and another worker finishes."""
    app = fast_app(redis_server.url)
    spec = small_spec("t-kill-worker", bots=FAULT_BOTS, deals=6, target=500)
    with worker_process(redis_server.url, tmp_path, "doomed") as doomed:
        wait_ready(app, "doomed", doomed, tmp_path / "doomed.log")
        create_tournament(store, spec)
        app.send_task(START_TASK, args=[spec.tournament_id])
        wait_until(lambda: store.results.progress(spec.tournament_id).done >= 3, 60, "some matches")
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait(timeout=10)
    assert store.tournaments.status(spec.tournament_id) == "running"
    with scheduler_thread(app), worker_process(redis_server.url, tmp_path, "rescuer") as rescuer:
        wait_ready(app, "rescuer", rescuer, tmp_path / "rescuer.log")
        wait_finished(store, spec.tournament_id, timeout=120)
    assert_exactly_once(store, spec)
    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))


def test_restart_redis_mid_tournament(fresh_redis_server: Any) -> None:
    server = fresh_redis_server
    app = fast_app(server.url)
    store = Store.from_url(server.url)
    spec = small_spec("t-redis", bots=FAULT_BOTS, deals=4, target=500)
    try:
        with scheduler_thread(fast_app(server.url)), start_worker(app, pool="solo", shutdown_timeout=30):
            create_tournament(store, spec)
            app.send_task(START_TASK, args=[spec.tournament_id])
            wait_until(lambda: store.results.progress(spec.tournament_id).done >= 2, 60, "some matches")
            server.stop()
            server.start()  # persistence on: queues, results and run state survive
            wait_finished(store, spec.tournament_id, timeout=120)
        assert_exactly_once(store, spec)
        assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))
    finally:
        store.close()
