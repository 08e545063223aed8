"""`uno-arena bench intervals`: how often the standings' win-rate and points intervals (and, with ``--ratings``,
OpenSkill's rating-difference interval) hold the truth, on resampled real results (:mod:`arena.bench.intervals`).

    uno-arena bench intervals [--deals 4,8,16,32] [--replicates 2000] [--seed 23] [--no-duplicate] [--ratings]
                              [--batch N] [--field BOT,BOT...]... [--sample PATH] [--by-entrant]
                              [--exact]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import bench_parsers, positive_int


def deal_counts(text: str) -> tuple[int, ...]:
    """An argparse type: deal groups per pair, comma-separated whole numbers of at least 1 (``4,8,16``)."""
    try:
        return tuple(positive_int(part.strip()) for part in text.split(","))
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error} (give whole numbers separated by commas, e.g. 4,8,16)") from None


def bot_list(text: str) -> tuple[str, ...]:
    """An argparse type: a field, bot names separated by commas (at least 2)."""
    bots = tuple(part.strip() for part in text.split(",") if part.strip())
    if len(bots) < 2:
        raise argparse.ArgumentTypeError(f"a field needs at least 2 bots separated by commas, got {text!r}")
    return bots


def cmd_bench_intervals(args: argparse.Namespace) -> int:
    from arena.bench.intervals import DEALS, FIELDS, exact_lines, figure_lines, run_intervals_bench
    from arena.bench.tiers_sample import BOTS, SAMPLE_PATH, load_sample

    try:
        sample = load_sample(args.sample or SAMPLE_PATH)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    fields = tuple(args.field) if args.field else FIELDS
    unknown = sorted({bot for field in fields for bot in field} - set(BOTS))
    if unknown:
        print(f"error: --field names {', '.join(unknown)}, which the sample does not hold; use {', '.join(BOTS)}",
              file=sys.stderr)
        return 2
    if args.exact:
        copies = [bot for bot in BOTS if any(field.count(bot) > 1 for field in fields)]
        groups = range(min(args.deals), max(args.deals) + 1) if args.deals else range(4, 33)
        for line in exact_lines(sample, copies, groups):
            print(line)
        return 0
    figures = run_intervals_bench(fields=fields, deals=args.deals or DEALS, replicates=args.replicates, seed=args.seed,
                                  sample=sample, duplicate=not args.no_duplicate, ratings=args.ratings,
                                  batch=args.batch, by_entrant=args.by_entrant)
    for line in figure_lines(figures, args.replicates, sample, duplicate=not args.no_duplicate):
        print(line)
    return 0


def register(commands: Any) -> None:
    """Add `bench intervals`."""
    parser = bench_parsers(commands).add_parser(
        "intervals", help="coverage of the standings' intervals on resampled real results (arena.bench.intervals)")
    parser.add_argument("--deals", type=deal_counts, default=None, metavar="N[,N...]",
                        help="deal groups per pair of entrants, one figure each (default 4,8,16,32; with --exact, "
                             "every number from the smallest to the largest given, default 4 to 32)")
    parser.add_argument("--replicates", type=positive_int, default=2000,
                        help="seeded round robins per field and number of deals (default 2000)")
    parser.add_argument("--seed", type=int, default=23, help="seed of the resampling (default 23)")
    parser.add_argument("--no-duplicate", action="store_true", help="one match per deal instead of a duplicate pair")
    parser.add_argument("--ratings", action="store_true",
                        help="also OpenSkill's rating-difference interval of two copies of one bot (slower)")
    parser.add_argument("--batch", type=positive_int, default=0, metavar="N",
                        help="also the batch Plackett-Luce rating and rating-difference intervals, N bootstrap refits "
                             "each (the arena publishes 100; slow: try --field random,random --batch 100)")
    parser.add_argument("--field", type=bot_list, action="append", default=None, metavar="BOT,BOT...",
                        help="a field to play instead of the default ones (repeatable), e.g. weakened,weakened")
    parser.add_argument("--sample", type=Path, default=None, metavar="PATH",
                        help="recorded real results (default: the tier benchmark's sample in arena/bench/data)")
    parser.add_argument("--by-entrant", action="store_true",
                        help="also each entrant's win-rate and points coverage alone (a field's figure pools them)")
    parser.add_argument("--exact", action="store_true",
                        help="instead, the exact coverage of the win-rate interval of two copies of each bot that has "
                             "a copy in the fields, at every number of deal groups (no replicates; a second)")
    parser.set_defaults(func=cmd_bench_intervals, long_running=True)
