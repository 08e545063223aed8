"""`web`: the web front with a big history and live viewers of a running tournament (:mod:`benchmarks.web`).

    python -m benchmarks web [--bots 1000] [--matches 100000] [--viewers 200]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def cmd_bench_web(args: argparse.Namespace) -> int:
    from arena.web.app import DEFAULT_POLL_S
    from benchmarks.web import WebBenchOptions, run_web_bench

    try:
        options = WebBenchOptions(bots=args.bots, matches=args.matches, field=args.field, requests=args.requests,
                                  viewers=args.viewers, live_matches=args.live_matches,
                                  poll_s=DEFAULT_POLL_S if args.poll is None else args.poll)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    run_web_bench(options, sys.stdout)
    return 0


def register(commands: Any) -> None:
    """Add `web`."""
    bench = commands.add_parser(
        "web", help="the web front with a big history (page p99) and 200 live viewers of a running tournament")
    bench.add_argument("--bots", type=int, default=1000, help="registered bots (default 1000)")
    bench.add_argument("--matches", type=int, default=100_000, help="recorded matches (default 100000)")
    bench.add_argument("--field", type=int, default=45, help="bots per recorded tournament (default 45)")
    bench.add_argument("--requests", type=int, default=100, help="timed requests per page (default 100)")
    bench.add_argument("--viewers", type=int, default=200, help="live viewers of the running tournament (default 200)")
    bench.add_argument("--live-matches", type=int, default=300,
                       help="matches of the running tournament (default 300)")
    bench.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                       help="the web front's live poll interval (default 0.5, as `uno-arena web`)")
    bench.set_defaults(func=cmd_bench_web, long_running=True)
