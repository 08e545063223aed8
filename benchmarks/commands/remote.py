"""`python -m benchmarks remote`: remote matches in flight at once, against the bound the bots allow, and their cost.

    python -m benchmarks remote [--bots 32] [--capacity 4] [--think-ms 20] [--seats 4] [--workers 2] [--limit N]
                           [--matches 576] [--baseline-matches 96] [--no-baseline] [--variant flip|classic]
                           [--target-score 50] [--work-dir DIR] [--json]

Plays one round robin of remote bots (swarm processes, each bot offering ``--capacity`` matches and thinking
``--think-ms`` per decision) through a whole local arena, once with the workers' per-process match limit at
``--limit`` (``UNO_ARENA_MATCHES_PER_PROCESS``; default: as in this environment) and once at 1 (the baseline),
and prints matches in flight, decisions/s, the bots' utilisation, the worker's CPU and RSS, Redis commands and
bytes per decision, and the run over the baseline (:mod:`benchmarks.remote`). Exit status 0 when every pass
finished with every match recorded and nothing failed, 1 otherwise, 2 for bad options.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.commands import add_rule_options, not_negative, positive_int
from benchmarks.commands import run_arena_bench


def cmd_bench_remote(args: argparse.Namespace) -> int:
    from benchmarks.remote import RemoteOptions, report_json, run_remote_bench

    options = RemoteOptions(
        bots=args.bots, capacity=args.capacity, think_ms=args.think_ms, seats=args.seats, workers=args.workers,
        limit=args.limit, baseline=not args.no_baseline, matches=args.matches, baseline_matches=args.baseline_matches,
        variant=args.variant,
        target_score=args.target_score, connect_timeout_s=args.connect_timeout, timeout_s=args.timeout,
        work_dir=args.work_dir,
    )
    return run_arena_bench("remote", lambda out: run_remote_bench(options, out), report_json, as_json=args.json)


def register(commands: Any) -> None:
    """Add `remote`."""
    remote = commands.add_parser("remote", help="remote matches in flight at once, against the bots' bound; cost per "
                                             "decision; the run against one match per worker process")
    remote.add_argument("--bots", type=positive_int, default=32, help="remote bots (default 32)")
    remote.add_argument("--capacity", type=positive_int, default=4,
                        help="matches each bot plays at once, its Hello's max_concurrent_matches (default 4)")
    remote.add_argument("--think-ms", type=not_negative(float), default=20.0, metavar="MS",
                        help="each bot waits this long before each answer, asynchronously (default 20)")
    remote.add_argument("--seats", type=positive_int, default=4, help="seats per table, 2 to 10 (default 4)")
    remote.add_argument("--workers", type=positive_int, default=2,
                        help="prefork processes of the Celery worker (default 2)")
    remote.add_argument("--limit", type=positive_int, default=None, metavar="N",
                        help="matches one worker process plays at once in the run (UNO_ARENA_MATCHES_PER_PROCESS; "
                             "default: as in this environment, unset: the workers' default)")
    remote.add_argument("--matches", type=positive_int, default=576,
                        help="at least this many matches in the run: the round robin of every bot, with as many "
                             "deals per table as it takes (default 576: six deals at 32 bots and 4 seats)")
    remote.add_argument("--baseline-matches", type=positive_int, default=96,
                        help="at least this many matches in the baseline, whose rate is steady from its start "
                             "(default 96: one deal at 32 bots and 4 seats)")
    remote.add_argument("--no-baseline", action="store_true",
                        help="skip the second pass (the same run with one match per worker process)")
    add_rule_options(remote, target_score=50, which=("variant", "target_score"))
    remote.add_argument("--connect-timeout", type=not_negative(float), default=120.0, metavar="SECONDS",
                        help="how long the bots may take to connect (default 120)")
    remote.add_argument("--timeout", type=not_negative(float), default=900.0, metavar="SECONDS",
                        help="how long each tournament may take (default 900)")
    remote.add_argument("--work-dir", type=Path, default=None, metavar="DIR",
                        help="folder for the processes' logs, one folder per pass (default: new temporary "
                             "folders, kept)")
    remote.add_argument("--json", action="store_true", help="print the figures as JSON (progress goes to stderr)")
    remote.set_defaults(func=cmd_bench_remote, long_running=True)
