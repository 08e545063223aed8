"""`uno-arena demo`: everything on one machine with embedded defaults, the scheduler included (see arena/demo.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.commands import add_rule_options


def cmd_demo(args: argparse.Namespace) -> int:
    from arena.commands.tables import watch
    from arena.demo import DemoOptions, run_demo

    options = DemoOptions(seats=args.seats, deals=args.deals, duplicate=not args.no_duplicate,
                          target_score=args.target_score, variant=args.variant, seed=args.seed,
                          out_dir=Path(args.out) if args.out else None, keep_running=args.keep_running,
                          web_port=args.web_port)
    return run_demo(options, sys.stdout, watch)


def register(commands: Any) -> None:
    demo = commands.add_parser("demo", help="run the whole arena locally: Redis, gateway, workers, bots, a tournament")
    demo.add_argument("--seats", type=int, default=3, help="seats per table (default 3)")
    demo.add_argument("--deals", type=int, default=6, help="deals per table (default 6)")
    demo.add_argument("--no-duplicate", action="store_true", help="do not replay deals with seats rotated")
    add_rule_options(demo, target_score=200, which=("variant", "target_score"))
    demo.add_argument("--seed", type=int, default=2026)
    demo.add_argument("--out", default=None, metavar="DIR",
                      help="a new or empty folder for this run's results and replays (default: a new folder "
                           "uno-arena-demo-XXXXXXXX under the temporary folder; printed)")
    demo.add_argument("--keep-running", action="store_true",
                      help="keep the arena up after the tournament (its scheduler fires the schedules and "
                           "competitions created against it) until Ctrl-C or SIGTERM")
    demo.add_argument("--web-port", type=int, default=None, metavar="PORT",
                      help="the web front's port (default 8080 when free, else another; printed)")
    demo.set_defaults(func=cmd_demo, long_running=True)
