"""`python -m benchmarks relay`: the Redis relay under many matches on one worker event loop.

    python -m benchmarks relay [--matches 32] [--players 4] [--bots 4] [--seconds 10] [--warmup 2]
                          [--deadline-ms 5000] [--json]

A private Redis, a gateway, remote random bots and a worker process playing ``--matches`` matches at once through
the relay (:mod:`benchmarks.relay`); prints decisions/s, Redis commands and bytes per decision (the server's and
the relay's own counters, worker and gateway sides) and the most Redis connections open at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.commands import not_negative, positive_int


def cmd_bench_relay(args: argparse.Namespace) -> int:
    from benchmarks.relay import RelayBenchOptions, figures_json, run_relay_bench

    options = RelayBenchOptions(matches=args.matches, players=args.players, bots=args.bots, seconds=args.seconds,
                                warmup=args.warmup, decision_deadline_ms=args.decision_deadline_ms)
    out = sys.stderr if args.json else sys.stdout
    try:
        result = run_relay_bench(options, out)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f"relay failed: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(figures_json(result), flush=True)
    return 0


def register(commands: Any) -> None:
    """Add `relay`."""
    relay = commands.add_parser("relay", help="the Redis relay under many matches on one worker loop: Redis commands "
                                           "and bytes per decision")
    relay.add_argument("--matches", type=positive_int, default=32, help="matches at once on the worker (default 32)")
    relay.add_argument("--players", type=positive_int, default=4, help="remote seats per match (default 4)")
    relay.add_argument("--bots", type=positive_int, default=4, help="bot streams (default 4)")
    relay.add_argument("--seconds", type=not_negative(float), default=10.0, help="measured time (default 10)")
    relay.add_argument("--warmup", type=not_negative(float), default=2.0, help="time before measuring (default 2)")
    relay.add_argument("--deadline-ms", dest="decision_deadline_ms", type=positive_int, default=5000,
                       help="decision deadline (default 5000)")
    relay.add_argument("--json", action="store_true", help="print the figures as JSON (the report goes to stderr)")
    relay.set_defaults(func=cmd_bench_relay, long_running=True)
