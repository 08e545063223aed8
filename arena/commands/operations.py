"""`uno-arena worker` and `uno-arena scheduler` (docs/operations.md). Both need ``$REDIS_URL`` and check at start
that it answers (one line naming it and exit status 2 otherwise).

`worker` runs Celery's prefork pool in prometheus multiprocess mode: ``$PROMETHEUS_MULTIPROC_DIR`` (a fresh temporary
folder when unset: then the process starts again with it set, as prometheus-client picks its value store at import)
is wiped at start and one exporter serves every child.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

from arena.commands import add_metrics_options, fail, positive_int
from arena.local_arena import redis_problem
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS

MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
OWN_DIR_ENV = "UNO_ARENA_OWN_METRICS_DIR"
MATCHES_PER_PROCESS_ENV = "UNO_ARENA_MATCHES_PER_PROCESS"


def _matches_per_process_problem(args: argparse.Namespace) -> str | None:
    """Put ``--matches-per-process`` in the environment the worker's app reads; a bad value there is one line."""
    if args.matches_per_process is not None:
        os.environ[MATCHES_PER_PROCESS_ENV] = str(args.matches_per_process)
    raw = os.environ.get(MATCHES_PER_PROCESS_ENV, "")
    if raw and not (raw.strip().isdigit() and int(raw) >= 1):
        return (f"{MATCHES_PER_PROCESS_ENV}={raw!r} is not a number of matches: set a whole number, at least 1 (1 "
                "plays one match after another), or unset it for the default")
    return None


def cmd_worker(args: argparse.Namespace) -> int:
    own = os.environ.get(OWN_DIR_ENV)
    restarted = own and own == os.environ.get(MULTIPROC_DIR_ENV)  # the start again below: Redis checked before it
    problem = _matches_per_process_problem(args) or (None if restarted else redis_problem())
    if problem is not None:
        return fail(problem)
    if not os.environ.get(MULTIPROC_DIR_ENV):
        os.environ[MULTIPROC_DIR_ENV] = tempfile.mkdtemp(prefix="uno-arena-metrics-")
        os.environ[OWN_DIR_ENV] = os.environ[MULTIPROC_DIR_ENV]
        if "prometheus_client" in sys.modules:
            # prometheus-client chose its (single-process) value store when it was imported:
            # start again with the variable set so that every child writes to the shared directory.
            code = "import sys; from arena.cli import main; sys.exit(main(sys.argv[1:]))"
            os.execv(sys.executable, [sys.executable, "-c", code, *args.argv])

    from arena import metrics

    metrics.reset_multiprocess_dir()
    try:
        exporter = metrics.start_exporter(metrics.DEFAULT_WORKER_METRICS_PORT, args.metrics_port, args.metrics_address)
    except (metrics.MetricsPortError, ValueError) as error:
        _remove_own_dir()
        return fail(error)
    if exporter is not None:
        print(f"worker metrics on :{exporter.port}/metrics", file=sys.stderr, flush=True)
    metrics.get_metrics().set_build_info("worker")

    from workers.signals import QUEUE_METRICS_ENV

    os.environ[QUEUE_METRICS_ENV] = "1"
    from workers.celery_app import app

    # No gossip and no mingle: both chatter over Redis and nothing here uses them (remote
    # control, e.g. `celery inspect ping`, still works).
    argv = ["worker", "--pool", "prefork", "--without-gossip", "--without-mingle", "--loglevel", args.loglevel]
    argv += ["--concurrency", str(args.concurrency or os.cpu_count() or 1)]
    if args.hostname:
        argv += ["--hostname", args.hostname]
    try:
        app.worker_main(argv=argv)
    finally:
        if exporter is not None:
            exporter.close()
        _remove_own_dir()
    return 0


def _remove_own_dir() -> None:
    """Remove the metrics directory `worker` made for itself (a temporary one), if it made one."""
    own = os.environ.get(OWN_DIR_ENV)
    if own and own == os.environ.get(MULTIPROC_DIR_ENV):
        shutil.rmtree(own, ignore_errors=True)


def cmd_scheduler(args: argparse.Namespace) -> int:
    if args.tick <= 0:
        return fail(f"--tick must be above 0 seconds, got {args.tick:g}")
    problem = redis_problem()
    if problem is not None:
        return fail(problem)
    from workers.celery_app import app
    from workers.scheduler import Scheduler

    logging.basicConfig(level=getattr(logging, args.loglevel.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda _signum, _frame: stop.set())
    scheduler = Scheduler(app, tick=args.tick)
    logging.getLogger(__name__).info("scheduler started (tick %g s)", args.tick)
    scheduler.run(stop)
    return 0


def register(commands: Any) -> None:
    """Add `worker` and `scheduler`."""
    from arena.metrics import DEFAULT_WORKER_METRICS_PORT

    worker = commands.add_parser("worker", help="run a Celery worker (prefork) that plays tournaments")
    worker.add_argument("--concurrency", type=int, default=None, metavar="N", help="child processes (default: CPUs)")
    add_metrics_options(worker, DEFAULT_WORKER_METRICS_PORT)
    worker.add_argument("--matches-per-process", type=positive_int, default=None, metavar="N",
                        help="matches a child plays at once (default $UNO_ARENA_MATCHES_PER_PROCESS, else "
                             f"{DEFAULT_MATCHES_PER_PROCESS}; 1: one after another)")
    worker.add_argument("--loglevel", default="INFO")
    worker.add_argument("--hostname", default="", help="Celery node name (default: celery@HOST)")
    worker.set_defaults(func=cmd_worker, long_running=True)

    scheduler = commands.add_parser("scheduler", help="fire cron schedules, sweep tournaments, send the canary")
    scheduler.add_argument("--tick", type=float, default=10.0, metavar="SECONDS")
    scheduler.add_argument("--loglevel", default="INFO")
    scheduler.set_defaults(func=cmd_scheduler, long_running=True)
