"""`python -m benchmarks batch`: CPU time of a rating pool's batch Plackett-Luce ratings (:mod:`benchmarks.batch_fit`).

    python -m benchmarks batch
    python -m benchmarks batch --pool 8,4,7000 --pool 16,2,12000
"""

from __future__ import annotations

import argparse
from typing import Any


def _pool(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    try:
        bots, seats, matches = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a pool is BOTS,SEATS,MATCHES, e.g. 8,4,7000; got {text!r}") from None
    if not 2 <= seats <= bots or matches < 1:
        raise argparse.ArgumentTypeError(f"a pool needs 2 <= SEATS <= BOTS and MATCHES >= 1; got {text!r}")
    return bots, seats, matches


def cmd_bench_batch(args: argparse.Namespace) -> int:
    from benchmarks.batch_fit import POOLS, run_batch_bench

    for figures in run_batch_bench(tuple(args.pool or POOLS)):
        print(figures.line(), flush=True)
    return 0


def register(commands: Any) -> None:
    """Add `batch`."""
    batch = commands.add_parser(
        "batch", help="CPU time of a pool's batch Plackett-Luce ratings on synthetic pools (benchmarks.batch_fit)")
    batch.add_argument("--pool", type=_pool, action="append", metavar="BOTS,SEATS,MATCHES",
                       help="a pool to time instead of the defaults (repeatable), e.g. 8,4,7000")
    batch.set_defaults(func=cmd_bench_batch, long_running=True)
