"""`ladder` and `sprt`: the ladder's matchmaking and the gauntlet's sequential test, in process.

    python -m benchmarks ladder [--field heuristic,heuristic,weakened,random,random] [--blocks 60] [--min-meetings 2]
                                [--replicates 300] [--jobs 2]
    python -m benchmarks sprt [--runs 2000] [--mu0 0] [--mu1 0.05] [--alpha 0.05] [--beta 0.05] [--max-blocks 0]
                              [--table both] [--guards 16/16/1,8/8/1 [--cases classic]] [--old] [--seed 1] [--jobs 2]

`ladder` plays ladders on recorded games (:mod:`benchmarks.ladder`); `sprt` calibrates the sequential test on
resampled real and synthetic block scores (:mod:`benchmarks.sprt`), in this process and ``--jobs`` children.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.commands import positive_int
from arena.commands.gauntlet import DEFAULT_MAX_BLOCKS, sprt_config
from benchmarks.commands import number, whole


def cmd_bench_ladder(args: argparse.Namespace) -> int:
    from benchmarks.ladder import LadderSetup, report, run

    try:
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
        field = tuple(name.strip() for name in args.field.split(",") if name.strip())
        setup = LadderSetup(field=field, blocks=args.blocks, min_meetings=args.min_meetings,
                            validation=args.validation)
        found = run(setup, args.replicates, args.jobs)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for line in report(setup, args.replicates, found):
        print(line)
    return 0


def cmd_bench_sprt(args: argparse.Namespace) -> int:
    from benchmarks.sprt import calibrate_all, efficiency_all, efficiency_report, report

    try:
        if args.runs < 1 or args.jobs < 1:
            raise ValueError(f"--runs and --jobs must be at least 1, got {args.runs} and {args.jobs}")
        config = sprt_config(args.mu0, args.mu1, args.alpha, args.beta, args.max_blocks)
        if args.guards:
            from benchmarks.sprt import Guard, guards_all, guards_report

            guards = [Guard.parse(text) for text in args.guards.split(",")]
            for guard in guards:
                guard.applied(config)  # ValueError naming a bad guard before any run
            names = [name for name in args.cases.split(",") if name]
            for line in guards_report(guards_all(config, guards, args.runs, args.seed, args.jobs, names), config):
                print(line, flush=True)
            return 0
        if args.table in ("rates", "both"):
            for line in report(calibrate_all(config, args.runs, args.seed, jobs=args.jobs, old=args.old), config):
                print(line, flush=True)
        if args.table in ("blocks", "both"):
            for line in efficiency_report(efficiency_all(config, args.runs, args.seed, jobs=args.jobs,
                                                         previous=args.old), config):
                print(line, flush=True)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def register(commands: Any) -> None:
    """Add `ladder` and `sprt`."""
    from arena.tournament.stats.sprt import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_MU0, DEFAULT_MU1

    ladder = commands.add_parser(
        "ladder", help="matchmaking on recorded UNO games: the published ranking's accuracy for the blocks spent, "
                       "informative against uniform pairing")
    ladder.add_argument("--field", default="heuristic,heuristic,weakened,random,random",
                        help="the entrants' built-in bots, comma-separated, a repeat is a copy (default "
                             "heuristic,heuristic,weakened,random,random)")
    ladder.add_argument("--blocks", type=positive_int, default=60, help="duplicate blocks a ladder (default 60)")
    ladder.add_argument("--min-meetings", type=whole, default=2,
                        help="the floor of direct meetings a pair (default 2)")
    ladder.add_argument("--replicates", type=positive_int, default=300,
                        help="seeded ladders per policy (default 300)")
    ladder.add_argument("--jobs", type=positive_int, default=2, help="processes (default 2)")
    ladder.add_argument("--validation", action="store_true",
                        help="play on the validation recording (benchmarks/data/intervals_validation.json: other "
                             "deals, ismctsfast against each bot) instead of the sample the matchmaking was tuned on")
    ladder.set_defaults(func=cmd_bench_ladder, long_running=True)

    sprt = commands.add_parser(
        "sprt", help="the gauntlet's sequential test on resampled real and synthetic block scores: type I, "
                     "type II, blocks, against the old normal test")
    sprt.add_argument("--runs", type=whole, default=2000, help="seeded runs per case and mean (default 2000)")
    sprt.add_argument("--mu0", type=number, default=DEFAULT_MU0, help=f"H0 (default {DEFAULT_MU0:g})")
    sprt.add_argument("--mu1", type=number, default=DEFAULT_MU1,
                      help=f"H1, finishing points per match over the baseline (default {DEFAULT_MU1:g})")
    sprt.add_argument("--alpha", type=number, default=DEFAULT_ALPHA, help=f"(default {DEFAULT_ALPHA:g})")
    sprt.add_argument("--beta", type=number, default=DEFAULT_BETA, help=f"(default {DEFAULT_BETA:g})")
    sprt.add_argument("--max-blocks", type=whole, default=DEFAULT_MAX_BLOCKS,
                      help="the cap of a run (default 0: the automatic cap, as `gauntlet`)")
    sprt.add_argument("--table", choices=("rates", "blocks", "both"), default="both",
                      help="error rates at mu0 and mu1, blocks at gains of 0-3 x mu1 against Wald's ASN, or both")
    sprt.add_argument("--guards", default="",
                      help="compare guards instead: min_blocks/min_nonzero/prior, comma-separated (e.g. "
                           "16/16/1,8/8/1): per case, type I, type II and median blocks / Wald's ASN at 0-3 x mu1")
    sprt.add_argument("--cases", default="",
                      help="with --guards: only the cases whose name holds one of these, comma-separated")
    sprt.add_argument("--old", action="store_true",
                      help="also run the old tests on the same streams (normal; the previous LLR for blocks)")
    sprt.add_argument("--seed", type=whole, default=1, help="seed of the runs (default 1)")
    sprt.add_argument("--jobs", type=whole, default=2, help="processes (default 2)")
    sprt.set_defaults(func=cmd_bench_sprt, long_running=True)
