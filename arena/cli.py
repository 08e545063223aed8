"""The `uno-arena` command: a thin layer that parses arguments and calls the modules that do the work."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.commands import add_rule_options, rules_from_args


def cmd_play(args: argparse.Namespace) -> int:
    from arena.play import build_bots, play_match
    from arena.terminal import Painter

    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    if not names:
        print("--bots needs at least one bot name", file=sys.stderr)
        return 2
    players = args.players
    if args.human is not None and not 0 <= args.human < players:
        print(f"--human {args.human} is not a seat of a {players}-player match", file=sys.stderr)
        return 2
    names = [names[seat % len(names)] for seat in range(players)]
    color = sys.stdout.isatty() if args.color == "auto" else args.color == "always"
    painter = Painter(color)
    try:
        rules = rules_from_args(args)
        bots = build_bots(names, args.seed, args.human, painter, input, sys.stdout)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    play_match(bots, args.seed, rules, sys.stdout, painter)
    return 0


def cmd_scenario_run(args: argparse.Namespace) -> int:
    from arena.scenarios.runner import InvalidScenario, run_scenario, scenario_files

    files = scenario_files([Path(p) for p in args.paths])
    missing = [str(p) for p in files if not p.exists()]
    if missing:
        print(f"no such file or folder: {', '.join(missing)}", file=sys.stderr)
        print("0 passed, 0 failed")
        return 2
    passed = failed = 0
    invalid = False
    for path in files:
        try:
            result = run_scenario(path)
        except InvalidScenario as error:
            invalid = True
            failed += 1
            print(f"INVALID {error.path}: {error.where}: {error.why}")
            continue
        if result.passed:
            passed += 1
            print(f"PASS {result.name}")
        else:
            failed += 1
            print(f"FAIL {result.name}: {result.message}")
    print(f"{passed} passed, {failed} failed")
    if invalid:
        return 2
    return 1 if failed else 0


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from arena.bench.engine import run_engine_bench

    run_engine_bench(seconds=args.seconds, out=sys.stdout, rlcard=not args.no_rlcard, repeats=args.repeats)
    return 0


# Modules under arena/commands/ that add their own sub-commands: each has `register(commands)`.
COMMAND_MODULES = ("gateway", "tournaments", "verify", "operations", "demo", "load")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="uno-arena", description="UNO Flip and classic UNO bot arena")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _register_engine_commands(commands)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"arena.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"arena.commands.{name}":
                raise
            continue
        module.register(commands)
    return parser


def _register_engine_commands(commands: Any) -> None:

    play = commands.add_parser("play", help="play a whole match locally among built-in bots (and you)")
    play.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="N")
    play.add_argument("--bots", default="heuristic,random", help="comma-separated built-in bots, cycled")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--human", type=int, default=None, metavar="SEAT", help="take this seat yourself")
    play.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_rule_options(play)
    play.set_defaults(func=cmd_play)

    scenario = commands.add_parser("scenario", help="rule scenarios (scenarios/FORMAT.md)")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True, metavar="ACTION")
    run = scenario_commands.add_parser("run", help="run scenario files or folders")
    run.add_argument("paths", nargs="+", metavar="PATH")
    run.set_defaults(func=cmd_scenario_run)

    bench = commands.add_parser("bench", help="benchmarks that print their figures")
    bench_commands = bench.add_subparsers(dest="bench_command", required=True, metavar="WHAT")
    engine = bench_commands.add_parser("engine", help="random legal play: rounds/s and decisions/s")
    engine.add_argument("--seconds", type=float, default=2.0, help="CPU time per measurement")
    engine.add_argument("--repeats", type=int, default=3, help="interleaved measurements per configuration; "
                                                                "the best is kept")
    engine.add_argument("--no-rlcard", action="store_true", help="skip RLCard even when installed")
    engine.set_defaults(func=cmd_bench_engine, long_running=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "long_running", False):  # servers, workers, benchmarks: see arena.gc_tuning
        from arena.gc_tuning import configure_gc

        try:
            configure_gc()
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
