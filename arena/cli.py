"""The `uno-arena` command: a thin layer that parses arguments and calls the modules that do the work."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.commands import add_rule_options, fail, positive_int, rules_from_args, run_parsed


def cmd_play(args: argparse.Namespace) -> int:
    from arena.play import HumanSeat, PlayerLeft, build_bots, play_match
    from bots import make_bot

    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    if not names and not args.bot:
        return fail("--bots needs at least one bot name")
    if args.bot or args.matches is not None:
        return _play_series(args, names)
    players = args.players
    if args.human is not None and not 0 <= args.human < players:
        return fail(f"--human {args.human} is not a seat of a {players}-player match")
    names = [names[seat % len(names)] for seat in range(players)]
    painter = _painter(args)
    try:
        rules = rules_from_args(args)
        bots = build_bots(names, args.seed, args.human, painter, input, sys.stdout, make_bot)
    except ValueError as error:
        return fail(error)
    human = bots[args.human] if args.human is not None else None
    try:
        play_match(bots, args.seed, rules, sys.stdout, painter, viewer=args.human,
                   pause=human.pause if isinstance(human, HumanSeat) else None)
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("\ninterrupted (Ctrl-C): the match is abandoned", file=sys.stderr)
        return 130
    except PlayerLeft as left:
        sys.stdout.flush()
        print(f"\n{left}; the match is abandoned", file=sys.stderr)
        return left.exit_code
    return 0


def _painter(args: argparse.Namespace) -> Any:
    from arena.terminal import Painter

    return Painter(sys.stdout.isatty() if args.color == "auto" else args.color == "always")


def _play_series(args: argparse.Namespace, names: list[str]) -> int:
    """`play --bot SPEC` (an author's bot through the kit, in process) and/or `--matches N`: the summary."""
    from arena.local_play import entrants, kit_bot, play_series, print_match, summary_lines
    from bots import make_bot
    from bots.load import BotLoadError, load_bot

    if args.human is not None:
        return fail("--human plays one match among built-in bots: leave out --bot and --matches")
    try:
        for name in names:
            make_bot(name, 0)
        kits = [kit_bot(loaded.name, loaded.bot) for loaded in map(load_bot, args.bot or [])]
        table = entrants(kits, names, args.players)
        rules = rules_from_args(args)
    except (BotLoadError, ValueError) as error:
        return fail(error)
    matches = args.matches if args.matches is not None else 1
    try:
        series = play_series(table, matches=matches, seed=args.seed, rules=rules, make=make_bot)
    except ValueError as error:
        return fail(error)
    except KeyboardInterrupt:
        print("\ninterrupted (Ctrl-C): the matches are abandoned", file=sys.stderr)
        return 130
    if args.matches is None:
        print_match(series.records[0], _painter(args), sys.stdout)
    for line in summary_lines(series):
        print(line)
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
    return 2 if invalid else 1 if failed else 0


def cmd_engine_compile(args: argparse.Namespace) -> int:
    from arena.engine.build import run

    return run(remove=args.remove, verbose=args.verbose)


def version_text() -> str:
    """`uno-arena --version`: the package's version and the build of the engine this process loaded."""
    from arena import __version__
    from arena.engine import COMPILED

    return f"uno-arena {__version__} (engine: {'compiled with mypyc' if COMPILED else 'pure Python'})"


def build_parser() -> argparse.ArgumentParser:
    from arena.commands.parser import ArenaParser

    parser = ArenaParser(prog="uno-arena", description="UNO Flip and classic UNO bot arena")
    parser.add_argument("--version", action="version", version=version_text())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _register_engine_commands(commands)
    # Modules under arena/commands/ that add their own sub-commands: each has `register(commands)`.
    from arena.commands import (
        competition,
        demo,
        doctor,
        gateway,
        gauntlet,
        hosting,
        operations,
        pools,
        tournaments,
        verify,
        web,
    )

    for module in (gateway, tournaments, verify, operations, demo, web, gauntlet, competition, pools, hosting, doctor):
        module.register(commands)
    return parser


def _register_engine_commands(commands: Any) -> None:
    play = commands.add_parser("play", help="play locally: built-in bots, you (--human) or your own bot (--bot)")
    play.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="N")
    play.add_argument("--bots", default="heuristic,random", help="comma-separated built-in bots, cycled over the "
                                                                  "seats left")
    play.add_argument("--bot", action="append", default=None, metavar="FILE.py:CLASS",
                      help="your bot, played in process through the Python kit (no gateway, Redis or token): "
                           "FILE.py:NAME or MODULE:NAME (a choose function, or a class with a choose(observation, "
                           "legal) method); repeatable")
    play.add_argument("--matches", type=positive_int, default=None, metavar="N",
                      help="play N matches (seeds derived from --seed, seats rotated) and print a summary: wins, "
                           "win rate with its 95%% interval, mean points")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--human", type=int, default=None, metavar="SEAT", help="take this seat yourself")
    play.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_rule_options(play)
    play.set_defaults(func=cmd_play)

    scenario = commands.add_parser("scenario", help="rule scenarios (format: docs/scenarios.md)")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True, metavar="ACTION")
    run = scenario_commands.add_parser("run", help="run scenario files or folders")
    run.add_argument("paths", nargs="+", metavar="PATH")
    run.set_defaults(func=cmd_scenario_run)

    engine_build = commands.add_parser("engine", help="the engine's optional compiled build (mypyc)")
    engine_commands = engine_build.add_subparsers(dest="engine_command", required=True, metavar="ACTION")
    compile_ = engine_commands.add_parser(
        "compile", help="compile the engine's hot modules with mypyc, in place (needs mypy, a C compiler and the "
                        "Python headers); the pure-Python sources stay the reference (UNO_ARENA_ENGINE=pure)")
    compile_.add_argument("--remove", action="store_true", help="delete the compiled modules: back to pure Python")
    compile_.add_argument("--verbose", action="store_true", help="show mypyc's and the compiler's output")
    compile_.set_defaults(func=cmd_engine_compile)


EXIT_OUTPUT_CLOSED = 128 + 13
"""The exit status when the reader of standard output went away (``uno-arena replay ID | head``): what a shell
reports for a program ended by SIGPIPE, so a pipeline under ``set -o pipefail`` sees it as one would `yes | head`."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; when standard output is a pipe whose reader left, stop quietly (no traceback)."""
    try:
        try:
            return _run_command(argv)
        finally:
            sys.stdout.flush()  # what is still buffered fails here, not in the interpreter's exit
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise
        _discard_stdout()
        return EXIT_OUTPUT_CLOSED


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe or socket no one reads any more (so a BrokenPipeError came from it, not from
    another pipe, which still shows): ``poll`` reports an error on the write end of a pipe without readers."""
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    events = dict(poller.poll(0)).get(fd, 0)
    return bool(events & (select.POLLERR | select.POLLHUP | select.POLLNVAL))


def _discard_stdout() -> None:
    """Point standard output at the null device, so the buffered rest is dropped at exit instead of raising."""
    import os

    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    finally:
        os.close(null)


BENCH_MOVED = "the benchmarks live in the source checkout: run `python -m benchmarks NAME` there (docs/benchmarks.md)"
"""What `uno-arena bench ...`, the benchmarks' command before they left the package, prints now."""


def _run_command(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["bench"]:
        return fail(BENCH_MOVED)
    try:
        parser = build_parser()  # loads the engine: UNO_ARENA_ENGINE may name no build (arena/engine/__init__.py)
    except ImportError as error:
        return fail(error)
    args = parser.parse_args(words)
    args.argv = words  # what a command that starts itself again (`worker`) runs with
    return run_parsed(args)


if __name__ == "__main__":
    sys.exit(main())
