"""`uno-arena bench tiers`: how often tiers keep equal bots together and split bots of different strength, on
resampled real results (:mod:`arena.bench.tiers`); ``--record PATH`` plays a new sample of real results instead.

    uno-arena bench tiers [--deals 8] [--replicates 2000] [--seed 23] [--no-duplicate] [--ratings] [--sample PATH]
    uno-arena bench tiers --record PATH [--groups 160]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import bench_parsers, positive_int


def cmd_bench_tiers(args: argparse.Namespace) -> int:
    from arena.bench.tiers import figure_lines, run_tiers_bench
    from arena.bench.tiers_sample import SAMPLE_PATH, load_sample, record_sample, save_sample

    if args.record is not None:
        sample = record_sample(args.groups, lambda line: print(line, flush=True))
        try:
            save_sample(sample, args.record)
        except OSError as error:
            print(f"error: cannot write {args.record} ({error.strerror}); give --record a writable path",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.record}")
        return 0
    try:
        sample = load_sample(args.sample or SAMPLE_PATH)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    figures = run_tiers_bench(deals=args.deals, replicates=args.replicates, seed=args.seed, sample=sample,
                              duplicate=not args.no_duplicate, ratings=args.ratings)
    for line in figure_lines(figures, args.replicates, args.deals, sample, duplicate=not args.no_duplicate):
        print(line)
    return 0


def register(commands: Any) -> None:
    """Add `bench tiers`."""
    tiers = bench_parsers(commands).add_parser(
        "tiers", help="tiers on resampled real results: equal bots together, stronger bots apart (arena.bench.tiers)")
    tiers.add_argument("--deals", type=positive_int, default=8, help="deal groups per pair of entrants (default 8)")
    tiers.add_argument("--replicates", type=positive_int, default=2000,
                       help="seeded round robins per field (default 2000)")
    tiers.add_argument("--seed", type=int, default=23, help="seed of the resampling (default 23)")
    tiers.add_argument("--no-duplicate", action="store_true", help="one match per deal instead of a duplicate pair")
    tiers.add_argument("--ratings", action="store_true",
                       help="also tier by OpenSkill ratings, as pool leaderboards do (slower)")
    tiers.add_argument("--sample", type=Path, default=None, metavar="PATH",
                       help="recorded real results (default: the sample shipped in arena/bench/data)")
    tiers.add_argument("--record", type=Path, default=None, metavar="PATH",
                       help="play a new sample of real results with the engine in process and write it to PATH")
    tiers.add_argument("--groups", type=positive_int, default=160,
                       help="with --record: deal groups per pair of bots (default 160)")
    tiers.set_defaults(func=cmd_bench_tiers, long_running=True)
