"""`python -m benchmarks load`: many remote bots (many streams from a few processes) and one tournament.

    python -m benchmarks load [--bots 200] [--participants M] [--processes N] [--workers 2]
                         [--brain heuristic|random|raw]
                         [--seats 0] [--tables-per-bot 4] [--deals 1] [--variant flip|classic]
                         [--target-score 100] [--deadline-ms 1000] [--seed 1] [--work-dir DIR] [--json]

Starts the whole arena on this machine (:func:`arena.local_arena.local_arena`), connects the bots from
swarm processes (:mod:`benchmarks.swarm`), plays one tournament among all of them and prints
decisions/s, decision latency p50/p99, timeouts, errors, the RSS of every arena process and whether every
match was recorded exactly once (:mod:`benchmarks.load`). Exit status 0 when the tournament finished,
every match was recorded exactly once and nothing failed; 1 otherwise (timeouts alone are a figure, not a
failure).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.commands import add_rule_options
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from benchmarks.commands import run_arena_bench


def cmd_bench_load(args: argparse.Namespace) -> int:
    from benchmarks.load import LoadOptions, report_json, run_load_bench

    options = LoadOptions(
        bots=args.bots, participants=args.participants, processes=args.processes, workers=args.workers,
        brain=args.brain, seats=args.seats,
        tables_per_bot=args.tables_per_bot, deals=args.deals, variant=args.variant,
        target_score=args.target_score, decision_deadline_ms=args.decision_deadline_ms, seed=args.seed,
        connect_timeout_s=args.connect_timeout, timeout_s=args.timeout, ramp_s=args.ramp, work_dir=args.work_dir,
    )
    return run_arena_bench("load", lambda out: run_load_bench(options, out), report_json, as_json=args.json)


def register(commands: Any) -> None:
    """Add `load`."""
    from benchmarks.swarm import BRAINS

    load = commands.add_parser("load", help="many remote bots, one tournament: decisions/s, latency, timeouts, RSS")
    load.add_argument("--bots", type=int, default=200, help="remote bots to connect (default 200)")
    load.add_argument("--participants", type=int, default=0, metavar="M",
                      help="only the first M bots play the tournament, the others stay connected (default: all)")
    load.add_argument("--processes", type=int, default=0,
                      help="swarm processes holding the bot streams (default: one per 50 bots, 2 to 8)")
    load.add_argument("--workers", type=int, default=2, help="prefork processes of the Celery worker (default 2)")
    load.add_argument("--brain", choices=BRAINS, default="heuristic",
                      help="how the bots decide: built-in heuristic or random through the kit, or raw (a random "
                           "index from the message, the cheapest bot)")
    load.add_argument("--seats", type=int, default=0,
                      help="seats per table (default 0: the smallest with at most TABLES-PER-BOT x bots tables)")
    load.add_argument("--tables-per-bot", type=int, default=4, help="table budget of --seats 0 (default 4)")
    load.add_argument("--deals", type=int, default=1, help="deals (matches) per table (default 1)")
    add_rule_options(load, target_score=100, which=("variant", "target_score"))
    load.add_argument("--deadline-ms", dest="decision_deadline_ms", type=int, default=DEFAULT_DECISION_DEADLINE_MS,
                      help=f"decision deadline (default {DEFAULT_DECISION_DEADLINE_MS})")
    load.add_argument("--seed", type=int, default=1)
    load.add_argument("--connect-timeout", type=float, default=120.0, metavar="SECONDS",
                      help="how long the bots may take to connect (default 120)")
    load.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                      help="how long the tournament may take (default 1800)")
    load.add_argument("--ramp", type=float, default=0.0, metavar="SECONDS",
                      help="spread each swarm's connections over this many seconds (default 0: all at once)")
    load.add_argument("--work-dir", type=Path, default=None, metavar="DIR",
                      help="folder for the processes' logs (default: a new temporary folder, kept)")
    load.add_argument("--json", action="store_true", help="print the figures as JSON (progress goes to stderr)")
    load.set_defaults(func=cmd_bench_load, long_running=True)
