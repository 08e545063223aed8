"""`uno-arena worker` and `uno-arena scheduler`.

    uno-arena worker [--concurrency N] [--metrics-port P] [--loglevel INFO]
    uno-arena scheduler [--tick SECONDS]

Both processes need ``$REDIS_URL`` (the arena's Redis, the one its gateways use) and check at start that it
answers: without it, or with a Redis they cannot reach, they exit at once (status 2) with one line naming it (the
URL without its password); so does a metrics port in use.

`worker` runs a Celery worker with a prefork pool (``--concurrency`` children, default the CPU
count). Metrics run in prometheus multiprocess mode: ``$PROMETHEUS_MULTIPROC_DIR`` (a fresh
temporary directory when unset) is wiped at start, one exporter serves every child on
``--metrics-port`` (default ``$UNO_ARENA_METRICS_PORT``, else 9101; ``-1`` turns it off), and
each child's files are marked dead when it exits. Children create their Redis clients after the
fork (``worker_process_init``).

`scheduler` fires cron schedules (each due time once, even with two schedulers), runs the competitions' ladder
rounds, sweeps active tournaments (the completeness check that revives lost work) and sends the canary task.
When Redis goes away while it runs, it says so in one line per tick and goes on.
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

from arena.commands import positive_int
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS

MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
OWN_DIR_ENV = "UNO_ARENA_OWN_METRICS_DIR"


def _worker_argv(args: argparse.Namespace) -> list[str]:
    argv = ["worker", "--loglevel", args.loglevel]
    if args.concurrency is not None:
        argv += ["--concurrency", str(args.concurrency)]
    if args.metrics_port is not None:
        argv += ["--metrics-port", str(args.metrics_port)]
    if args.metrics_address:
        argv += ["--metrics-address", args.metrics_address]
    if args.hostname:
        argv += ["--hostname", args.hostname]
    return argv


NO_REDIS = ("error: no Redis: set REDIS_URL to the arena's Redis (the one its gateways use), e.g. "
            "redis://127.0.0.1:6379/0")


def redis_problem() -> str | None:
    """Why this process cannot use the arena's Redis (``$REDIS_URL`` unset, unusable, or its server unreachable
    after a few seconds of retries), as one line for people; None when it answers."""
    from arena.store import Store, StoreConfigError

    url = os.environ.get("REDIS_URL", "").strip()
    if not url:
        return NO_REDIS
    try:
        with Store.from_url(url) as store:
            store.check_reachable()
    except StoreConfigError as error:
        return f"error: REDIS_URL: {error}"
    return None


MATCHES_PER_PROCESS_ENV = "UNO_ARENA_MATCHES_PER_PROCESS"


def _matches_per_process_problem(args: argparse.Namespace) -> str | None:
    """Put ``--matches-per-process`` in the environment the worker's app reads; a bad value there is one line."""
    if args.matches_per_process is not None:
        os.environ[MATCHES_PER_PROCESS_ENV] = str(args.matches_per_process)
    raw = os.environ.get(MATCHES_PER_PROCESS_ENV, "")
    if raw and not (raw.strip().isdigit() and int(raw) >= 1):
        return (f"error: {MATCHES_PER_PROCESS_ENV}={raw!r} is not a number of matches: set a whole number, at least 1 "
                "(1 plays one match after another), or unset it for the default")
    return None


def cmd_worker(args: argparse.Namespace) -> int:
    problem = _matches_per_process_problem(args)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    if not os.environ.get(MULTIPROC_DIR_ENV):
        problem = redis_problem()  # before anything is made (and before the start again below)
        if problem is not None:
            print(problem, file=sys.stderr)
            return 2
        os.environ[MULTIPROC_DIR_ENV] = tempfile.mkdtemp(prefix="uno-arena-metrics-")
        os.environ[OWN_DIR_ENV] = os.environ[MULTIPROC_DIR_ENV]
        if "prometheus_client" in sys.modules:
            # prometheus-client chose its (single-process) value store when it was imported:
            # start again with the variable set so that every child writes to the shared directory.
            code = "import sys; from arena.cli import main; sys.exit(main(sys.argv[1:]))"
            os.execv(sys.executable, [sys.executable, "-c", code, *_worker_argv(args)])

    from arena.metrics import (
        DEFAULT_WORKER_METRICS_PORT,
        MetricsPortError,
        get_metrics,
        metrics_address,
        metrics_port,
        reset_multiprocess_dir,
    )
    from arena.metrics import start_metrics_server as start_exporter

    if os.environ.get(OWN_DIR_ENV) != os.environ.get(MULTIPROC_DIR_ENV):  # not checked above
        problem = redis_problem()
        if problem is not None:
            print(problem, file=sys.stderr)
            return 2
    reset_multiprocess_dir()
    exporter = None
    try:
        port = metrics_port(DEFAULT_WORKER_METRICS_PORT, args.metrics_port)
        if port >= 0:
            exporter = start_exporter(port, metrics_address(args.metrics_address))
    except (MetricsPortError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        _remove_own_dir()
        return 2
    if exporter is not None:
        print(f"worker metrics on :{exporter.port}/metrics", file=sys.stderr, flush=True)
    get_metrics().set_build_info("worker")

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
        print(f"error: --tick must be above 0 seconds, got {args.tick:g}", file=sys.stderr)
        return 2
    problem = redis_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from workers.celery_app import app
    from workers.scheduler import Scheduler

    logging.basicConfig(level=getattr(logging, args.loglevel.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    scheduler = Scheduler(app, tick=args.tick)
    logging.getLogger(__name__).info("scheduler started (tick %g s)", args.tick)
    scheduler.run(stop)
    return 0


def register(commands: Any) -> None:
    """Add `worker` and `scheduler`."""
    worker = commands.add_parser("worker", help="run a Celery worker (prefork) that plays tournaments")
    worker.add_argument("--concurrency", type=int, default=None, metavar="N", help="child processes (default: CPUs)")
    worker.add_argument("--metrics-port", type=int, default=None, metavar="P",
                        help="Prometheus exporter port (default $UNO_ARENA_METRICS_PORT, else 9101; -1: off)")
    worker.add_argument("--metrics-address", default=None, metavar="ADDR",
                        help="address the exporter binds (default $UNO_ARENA_METRICS_ADDRESS, else 127.0.0.1)")
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
