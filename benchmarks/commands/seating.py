"""`python -m benchmarks seating`: next-seat balance and pair spread of seeded schedules (:mod:`benchmarks.seating`).

    python -m benchmarks seating [--seeds 10]
    python -m benchmarks seating --spread 30 6 [--seeds 207]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.commands import positive_int


def cmd_bench_seating(args: argparse.Namespace) -> int:
    from benchmarks.seating import run_seating_bench, spread_sweep

    if args.spread is not None:
        n, k = args.spread
        if not 3 <= k <= n:
            print(f"error: --spread N K needs 3 <= K <= N, got {n} {k}; for example --spread 30 6", file=sys.stderr)
            return 2
        found = spread_sweep(n, k, args.seeds)
        for spread, count in sorted(found.items()):
            share = 100 * count / args.seeds
            print(f"n={n} k={k}: pair spread {spread} in {count} of {args.seeds} seeds ({share:.1f}%)")
        return 0
    for figures in run_seating_bench(args.seeds):
        print(figures.line(), flush=True)
    return 0


def register(commands: Any) -> None:
    """Add `seating`."""
    seating = commands.add_parser(
        "seating", help="who sits right after whom, and pair spread, over seeded schedules (benchmarks.seating)")
    seating.add_argument("--seeds", type=positive_int, default=10, help="seeds per case (default 10)")
    seating.add_argument("--spread", type=positive_int, nargs=2, default=None, metavar=("N", "K"),
                         help="only the pair spread of the cyclic design with N bots and K seats")
    seating.set_defaults(func=cmd_bench_seating, long_running=True)
