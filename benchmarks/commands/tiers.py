"""`python -m benchmarks tiers`: how often tiers keep equal bots together and split bots of different strength, on
resampled real results (:mod:`benchmarks.tiers`; ``--designs``: every design the arena produces,
:mod:`benchmarks.tiers_designs`); ``--record PATH`` plays a new sample of real results instead.

    python -m benchmarks tiers [--deals 8] [--replicates 2000] [--seed 23] [--no-duplicate] [--ratings] [--sample PATH]
    python -m benchmarks tiers --record PATH [--groups 160]
    python -m benchmarks tiers --designs [--replicates 100] [--seed 36]   # every design the arena produces
    python -m benchmarks tiers --record-multiseat PATH [--per-set 40]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import positive_int


def cmd_bench_tiers(args: argparse.Namespace) -> int:
    from benchmarks.tiers import figure_lines, run_tiers_bench
    from benchmarks.tiers_sample import SAMPLE_PATH, load_sample, record_sample, save_sample

    if args.record_multiseat is not None or args.designs:
        return _designs(args)
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
    replicates = args.replicates if args.replicates is not None else 2000
    figures = run_tiers_bench(deals=args.deals, replicates=replicates, seed=args.seed if args.seed is not None else 23,
                              sample=sample, duplicate=not args.no_duplicate, ratings=args.ratings)
    for line in figure_lines(figures, replicates, args.deals, sample, duplicate=not args.no_duplicate):
        print(line)
    return 0


def _designs(args: argparse.Namespace) -> int:
    """`--designs` (every design the arena produces, :mod:`benchmarks.tiers_designs`) or `--record-multiseat`."""
    from benchmarks.tiers_designs import (
        MULTISEAT_PATH,
        design_lines,
        load_multiseat,
        record_multiseat,
        run_designs_bench,
        save_multiseat,
    )
    from benchmarks.tiers_sample import SAMPLE_PATH, load_sample

    if args.record_multiseat is not None:
        recorded = record_multiseat(args.per_set, progress=lambda line: print(line, flush=True))
        try:
            save_multiseat(recorded, args.record_multiseat)
        except OSError as error:
            print(f"error: cannot write {args.record_multiseat} ({error.strerror}); give --record-multiseat a "
                  "writable path", file=sys.stderr)
            return 2
        print(f"wrote {args.record_multiseat}")
        return 0
    try:
        sample = load_sample(args.sample or SAMPLE_PATH)
        multi = load_multiseat(args.multiseat or MULTISEAT_PATH)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    replicates = args.replicates if args.replicates is not None else 100
    seed = args.seed if args.seed is not None else 36
    figures = run_designs_bench(replicates=replicates, seed=seed, sample=sample, multi=multi)
    for line in design_lines(figures, replicates):
        print(line)
    return 0


def register(commands: Any) -> None:
    """Add `tiers`."""
    tiers = commands.add_parser(
        "tiers", help="tiers on resampled real results: equal bots together, stronger bots apart (benchmarks.tiers)")
    tiers.add_argument("--deals", type=positive_int, default=8, help="deal groups per pair of entrants (default 8)")
    tiers.add_argument("--replicates", type=positive_int, default=None,
                       help="seeded round robins per field (default 2000; with --designs 100)")
    tiers.add_argument("--seed", type=int, default=None,
                       help="seed of the resampling (default 23; with --designs 36)")
    tiers.add_argument("--designs", action="store_true",
                       help="every design the arena produces (complete round robins, the cyclic design at 14 bots x "
                            "5 seats, 2 bots of single matches), tiers by the arena's rule and the one before it")
    tiers.add_argument("--multiseat", type=Path, default=None, metavar="PATH",
                       help="with --designs: recorded real matches of 3 and 5 seats (default: the shipped sample)")
    tiers.add_argument("--record-multiseat", type=Path, default=None, metavar="PATH",
                       help="play real matches of 3 and 5 seats for --designs and write them to PATH")
    tiers.add_argument("--per-set", type=positive_int, default=40,
                       help="with --record-multiseat: matches per set of bots at a table (default 40)")
    tiers.add_argument("--no-duplicate", action="store_true", help="one match per deal instead of a duplicate pair")
    tiers.add_argument("--ratings", action="store_true",
                       help="also tier by OpenSkill ratings, as pool leaderboards do (slower)")
    tiers.add_argument("--sample", type=Path, default=None, metavar="PATH",
                       help="recorded real results (default: the sample shipped in benchmarks/data)")
    tiers.add_argument("--record", type=Path, default=None, metavar="PATH",
                       help="play a new sample of real results with the engine in process and write it to PATH")
    tiers.add_argument("--groups", type=positive_int, default=160,
                       help="with --record: deal groups per pair of bots (default 160)")
    tiers.set_defaults(func=cmd_bench_tiers, long_running=True)
