"""`engine` and `search`: the engine's speed and the search bot's strength, in process.

    python -m benchmarks engine [--seconds 2] [--repeats 3] [--no-rlcard]
    python -m benchmarks search [--levels ismctsfast,ismcts,ismctsstrong] [--matches 20] [--gauntlet] [rule options]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.commands import add_rule_options, positive_int, rules_from_args


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from benchmarks.engine import run_engine_bench

    run_engine_bench(seconds=args.seconds, out=sys.stdout, rlcard=not args.no_rlcard, repeats=args.repeats)
    return 0


def cmd_bench_search(args: argparse.Namespace) -> int:
    from benchmarks.search import run_search_bench
    from bots import make_bot

    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    try:
        rules = rules_from_args(args)
        if args.gauntlet:
            from benchmarks.search_gauntlet import run_search_gauntlet

            try:
                for level in levels:
                    run_search_gauntlet(level, rules=rules, seed=args.seed, make=make_bot, out=sys.stdout,
                                        max_blocks=args.max_blocks, deadline_ms=args.deadline_ms,
                                        time_cap=not args.no_time_cap)
            except KeyboardInterrupt:  # the figures so far are printed
                return 130
            return 0
        run_search_bench(levels, matches=args.matches, rules=rules, seed=args.seed, make=make_bot, out=sys.stdout,
                         time_cap=not args.no_time_cap)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def register(commands: Any) -> None:
    """Add `engine` and `search`."""
    engine = commands.add_parser("engine", help="random legal play: rounds/s and decisions/s")
    engine.add_argument("--seconds", type=float, default=2.0, help="CPU time per measurement")
    engine.add_argument("--repeats", type=int, default=3, help="interleaved measurements per configuration; "
                                                                "the best is kept")
    engine.add_argument("--no-rlcard", action="store_true", help="skip RLCard even when installed")
    engine.set_defaults(func=cmd_bench_engine, long_running=True)
    search = commands.add_parser("search", help="the search bot's levels against the heuristic bot: win rates, "
                                                      "time per decision")
    search.add_argument("--levels", default="ismctsfast,ismcts,ismctsstrong",
                        help="comma-separated search bots (ismctsfast, ismcts, ismctsstrong, ismcts:N)")
    search.add_argument("--matches", type=positive_int, default=20, help="matches per level")
    search.add_argument("--seed", type=int, default=1)
    search.add_argument("--no-time-cap", action="store_true", help="run every level's simulations however long they "
                                                                   "take (strength by simulations on a busy machine)")
    search.add_argument("--gauntlet", action="store_true",
                        help="the gauntlet's verdict on each level (built-in names) against the heuristic, in process")
    search.add_argument("--max-blocks", type=positive_int, default=None,
                        help="--gauntlet: stop undecided after this many blocks (default: until the test decides)")
    search.add_argument("--deadline-ms", type=positive_int, default=1000,
                        help="--gauntlet: the decision deadline the times are held against")
    add_rule_options(search)
    search.set_defaults(func=cmd_bench_search, long_running=True)
