"""`python -m benchmarks duplicates` and `python -m benchmarks control-variate`: how much of UNO's variance duplicate
deals and a control variate of the dealt hands remove, on real matches (:mod:`benchmarks.duplicates`,
:mod:`benchmarks.control_variate`).

    python -m benchmarks duplicates [--sample PATH] [--resamples 2000]
    python -m benchmarks duplicates --record PATH [--groups 250]
    python -m benchmarks control-variate [--resamples 100]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import positive_int


def cmd_bench_duplicates(args: argparse.Namespace) -> int:
    from benchmarks import duplicates

    if args.record is not None:
        try:
            data = duplicates.record(args.groups, lambda line: print(line, flush=True))
            duplicates.save(data, args.groups, args.record)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        except OSError as error:
            print(f"error: cannot write {args.record} ({error.strerror}); give --record a writable path",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.record}")
        return 0
    try:
        data = duplicates.load(args.sample or duplicates.DATA_PATH)
        share = duplicates.equal_bots_share(data)
        interval = duplicates.equal_bots_interval(data, resamples=args.resamples)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for line in duplicates.report(duplicates.reductions(data, resamples=args.resamples), share, interval):
        print(line)
    return 0


def cmd_bench_control_variate(args: argparse.Namespace) -> int:
    from benchmarks.control_variate import measure_all, report

    for line in report(measure_all(resamples=args.resamples)):
        print(line)
    return 0


def register(commands: Any) -> None:
    """Add `duplicates` and `control-variate`."""
    dup = commands.add_parser(
        "duplicates", help="the variance duplicate deals remove in UNO, on recorded real matches")
    dup.add_argument("--sample", type=Path, default=None, metavar="PATH",
                     help="recorded deal groups (default: the sample shipped in benchmarks/data)")
    dup.add_argument("--resamples", type=positive_int, default=2000, help="bootstrap resamples (default 2000)")
    dup.add_argument("--record", type=Path, default=None, metavar="PATH",
                     help="play a new sample with the engine in process and write it to PATH")
    dup.add_argument("--groups", type=positive_int, default=250,
                     help="with --record: deal groups per pair and variant (default 250)")
    dup.set_defaults(func=cmd_bench_duplicates, long_running=True)
    cv = commands.add_parser(
        "control-variate", help="whether the dealt hands' value, as a control variate, cuts the gauntlet's blocks")
    cv.add_argument("--resamples", type=positive_int, default=100, help="bootstrap resamples (default 100)")
    cv.set_defaults(func=cmd_bench_control_variate, long_running=True)
