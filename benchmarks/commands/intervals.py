"""`python -m benchmarks intervals`: how often the standings' win-rate and points intervals (and, with ``--ratings``,
OpenSkill's rating-difference interval) hold the truth, on resampled real results (:mod:`benchmarks.intervals`).

    python -m benchmarks intervals [--deals 4,8,16,32] [--replicates 2000] [--seed 23] [--no-duplicate] [--ratings]
                              [--batch N] [--field BOT,BOT...]... [--sample PATH] [--by-entrant]
                              [--exact] [--validation] [--share-table]
    python -m benchmarks intervals --record-validation PATH [--seed 910000] [--groups 100] [--search-groups 8]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import positive_int


def deal_counts(text: str) -> tuple[int, ...]:
    """An argparse type: deal groups per pair, comma-separated whole numbers of at least 1 (``4,8,16``)."""
    try:
        return tuple(positive_int(part.strip()) for part in text.split(","))
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error} (give whole numbers separated by commas, e.g. 4,8,16)") from None


def whole_number(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def bot_list(text: str) -> tuple[str, ...]:
    """An argparse type: a field, bot names separated by commas (at least 2)."""
    bots = tuple(part.strip() for part in text.split(",") if part.strip())
    if len(bots) < 2:
        raise argparse.ArgumentTypeError(f"a field needs at least 2 bots separated by commas, got {text!r}")
    return bots


def _record_validation(args: argparse.Namespace) -> int:
    """`--record-validation PATH`: play the validation recording and write it."""
    from benchmarks.tiers_sample import save_sample
    from benchmarks.validation_sample import VALIDATION_SEED, record_validation

    seed = VALIDATION_SEED if args.seed is None else args.seed
    if seed < 0:
        print(f"error: --seed must be at least 0 to record, got {seed}", file=sys.stderr)
        return 2
    sample = record_validation(seed, args.groups, args.search_groups, lambda line: print(line, flush=True))
    try:
        save_sample(sample, args.record_validation)
    except OSError as error:
        print(f"error: cannot write {args.record_validation} ({error.strerror}); give --record-validation a "
              f"writable path", file=sys.stderr)
        return 2
    print(f"wrote {args.record_validation}")
    return 0


def _sample_and_fields(args: argparse.Namespace) -> tuple[Any, tuple[tuple[str, ...], ...]]:
    """The recorded sample and the fields to play on it; ValueError naming the problem and the fix."""
    from benchmarks.intervals import FIELDS, VALIDATION_FIELDS
    from benchmarks.tiers_sample import SAMPLE_PATH, load_sample
    from benchmarks.validation_sample import VALIDATION_PATH

    if args.validation and args.sample is not None:
        raise ValueError("give --validation or --sample PATH, not both")
    sample = load_sample(VALIDATION_PATH if args.validation else args.sample or SAMPLE_PATH)
    fields = tuple(args.field) if args.field else VALIDATION_FIELDS if args.validation else FIELDS
    held = sorted({bot for pair in sample.groups for bot in pair})
    missing = sorted({(a, b) for field in fields for i, a in enumerate(field) for b in field[i + 1:]
                      if (a, b) not in sample.groups and (b, a) not in sample.groups})
    if missing:
        raise ValueError(f"--field needs {', '.join(f'{a} vs {b}' for a, b in missing)}, which the sample does not "
                         f"hold (its bots: {', '.join(held)})")
    return sample, fields


def _table_lines(args: argparse.Namespace, sample: Any, fields: tuple[tuple[str, ...], ...]) -> list[str]:
    """The lines the arguments ask for: the share table, the exact coverage, or the replicated figures."""
    from benchmarks.intervals import DEALS, exact_lines, figure_lines, run_intervals_bench, share_lines

    if args.share_table:
        return list(share_lines(range(4, 33) if args.deals is None else args.deals))
    if args.exact:
        held = sorted({bot for pair in sample.groups for bot in pair})
        copies = [bot for bot in held if any(field.count(bot) > 1 for field in fields)]
        groups = range(min(args.deals), max(args.deals) + 1) if args.deals else range(4, 33)
        return list(exact_lines(sample, copies, groups))
    seed = 23 if args.seed is None else args.seed
    figures = run_intervals_bench(fields=fields, deals=args.deals or DEALS, replicates=args.replicates, seed=seed,
                                  sample=sample, duplicate=not args.no_duplicate, ratings=args.ratings,
                                  batch=args.batch, by_entrant=args.by_entrant)
    return list(figure_lines(figures, args.replicates, sample, duplicate=not args.no_duplicate))


def cmd_bench_intervals(args: argparse.Namespace) -> int:
    if args.record_validation is not None:
        return _record_validation(args)
    try:
        sample, fields = _sample_and_fields(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for line in _table_lines(args, sample, fields):
        print(line)
    return 0


def register(commands: Any) -> None:
    """Add `intervals`."""
    parser = commands.add_parser(
        "intervals", help="coverage of the standings' intervals on resampled real results (benchmarks.intervals)")
    parser.add_argument("--deals", type=deal_counts, default=None, metavar="N[,N...]",
                        help="deal groups per pair of entrants, one figure each (default 4,8,16,32; with --exact, "
                             "every number from the smallest to the largest given, default 4 to 32)")
    parser.add_argument("--replicates", type=positive_int, default=2000,
                        help="seeded round robins per field and number of deals (default 2000)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the resampling (default 23); with --record-validation, the first deal seed "
                             "(default 910000)")
    parser.add_argument("--no-duplicate", action="store_true", help="one match per deal instead of a duplicate pair")
    parser.add_argument("--ratings", action="store_true",
                        help="also OpenSkill's rating-difference interval of two copies of one bot (slower)")
    parser.add_argument("--batch", type=positive_int, default=0, metavar="N",
                        help="also the batch Plackett-Luce rating and rating-difference intervals, N bootstrap refits "
                             "each (the arena publishes 100; slow: try --field random,random --batch 100)")
    parser.add_argument("--field", type=bot_list, action="append", default=None, metavar="BOT,BOT...",
                        help="a field to play instead of the default ones (repeatable), e.g. weakened,weakened")
    parser.add_argument("--sample", type=Path, default=None, metavar="PATH",
                        help="recorded real results (default: the tier benchmark's sample in benchmarks/data)")
    parser.add_argument("--by-entrant", action="store_true",
                        help="also each entrant's win-rate and points coverage alone (a field's figure pools them)")
    parser.add_argument("--exact", action="store_true",
                        help="instead, the exact coverage of the win-rate interval of two copies of each bot that has "
                             "a copy in the fields, at every number of deal groups (no replicates; a second)")
    parser.add_argument("--validation", action="store_true",
                        help="play on the validation recording (benchmarks/data/intervals_validation.json, made apart "
                             "from the calibration sample, ismctsfast among its bots) and its fields")
    parser.add_argument("--share-table", action="store_true",
                        help="instead, the exact coverage of the duplicate win-rate interval of two copies as the "
                             "share of 1-1 pairs moves (no sample needed; --deals: the numbers of groups)")
    parser.add_argument("--record-validation", type=Path, default=None, metavar="PATH",
                        help="instead, play a new validation recording into PATH (about 10 minutes on a loaded "
                             "2-core machine at the defaults)")
    parser.add_argument("--groups", type=positive_int, default=100,
                        help="with --record-validation: deal groups per pair of heuristic, weakened, random "
                             "(default 100)")
    parser.add_argument("--search-groups", type=whole_number, default=8,
                        help="with --record-validation: deal groups of ismctsfast against each (default 8)")
    parser.set_defaults(func=cmd_bench_intervals, long_running=True)
