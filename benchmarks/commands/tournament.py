"""`tournament` and `faults`: tournaments of built-in bots through Celery, and each infrastructure fault against one.

    python -m benchmarks tournament [--matches N] [--rounds R] [--target-score P] [--variant flip|classic]
    python -m benchmarks faults [--faults LIST] [--deals 2] [--target-score 150] [--seed 2026]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.commands import add_rule_options


def cmd_bench_tournament(args: argparse.Namespace) -> int:
    from benchmarks.tournament import run_tournament_bench

    run_tournament_bench(
        sys.stdout, matches=args.matches, target=args.target_score, variant=args.variant, rounds=args.rounds
    )
    return 0


def cmd_bench_faults(args: argparse.Namespace) -> int:
    from benchmarks.faults import FAULTS, FaultOptions, run_fault_bench

    faults = [f.strip() for f in args.faults.split(",") if f.strip()] if args.faults else list(FAULTS)
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        print(f"error: --faults: unknown fault(s) {', '.join(unknown)}; choose from {', '.join(FAULTS)}",
              file=sys.stderr)
        return 2
    if args.deals < 1:
        print(f"error: --deals must be at least 1, got {args.deals}", file=sys.stderr)
        return 2
    options = FaultOptions(deals=args.deals, target=args.target_score, seed=args.seed)
    return run_fault_bench(sys.stdout, faults, options)


def register(commands: Any) -> None:
    """Add `tournament` and `faults`."""
    bench = commands.add_parser(
        "tournament", help="matches/s of built-in bots: in process vs Celery with 1 and 2 workers"
    )
    bench.add_argument("--matches", type=int, default=240, help="matches in the tournament (default 240)")
    bench.add_argument("--rounds", type=int, default=3, help="repeat the three runs, keep the best (default 3)")
    add_rule_options(bench, which=("variant", "target_score"))
    bench.set_defaults(func=cmd_bench_tournament, long_running=True)

    faults = commands.add_parser(
        "faults", help="each infrastructure fault against a tournament with remote kit bots, production settings"
    )
    faults.add_argument("--faults", default="", metavar="LIST",
                        help="comma-separated faults to run (default: all: none, gateway-sigterm, gateway-kill, "
                             "redis-restart, worker-child-kill, redis-refuses-writes)")
    faults.add_argument("--deals", type=int, default=2, help="deals per table (default 2: 24 matches)")
    add_rule_options(faults, target_score=150, which=("target_score",))
    faults.add_argument("--seed", type=int, default=2026)
    faults.set_defaults(func=cmd_bench_faults, long_running=True)
