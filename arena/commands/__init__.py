"""Sub-commands of `uno-arena` beyond the engine's, one module per area, each with `register(commands)`.

`commands` is the argparse sub-parsers object; a `bench` sub-command adds itself under the existing
`bench` parser via `bench_parsers(commands)`.
"""

from __future__ import annotations

import argparse
from typing import Any


def subparsers_of(commands: Any, name: str, help_text: str, dest: str) -> Any:
    """The sub-parsers of command `name` (created here, or found if another module created it)."""
    existing = commands.choices.get(name)
    if existing is None:
        parser = commands.add_parser(name, help=help_text)
        return parser.add_subparsers(dest=dest, required=True, metavar="ACTION")
    for action in existing._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return existing.add_subparsers(dest=dest, required=True, metavar="ACTION")


def bench_parsers(commands: Any) -> Any:
    """The sub-parsers of `uno-arena bench`, so other areas can add `bench gateway`, `bench tournament`."""
    return subparsers_of(commands, "bench", "benchmarks that print their figures", "bench_command")


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """The rule options of RULES.md as flags, with the engine's defaults."""
    group = parser.add_argument_group("rule options (RULES.md)")
    group.add_argument("--variant", choices=("flip", "classic"), default="flip")
    group.add_argument("--no-bluffing", action="store_true", help="refuse illegal wild draws (T3)")
    group.add_argument("--uno-penalty", choices=("auto", "catch"), default="auto")
    group.add_argument("--target", type=int, default=500, help="match target score (E4)")
    group.add_argument("--scoring", choices=("winner", "lowest"), default="winner")
    group.add_argument("--start-flip", choices=("replace", "flip"), default="replace")
    group.add_argument("--pairing", choices=("physical", "shuffled"), default="physical")


def rules_from_args(args: argparse.Namespace) -> Any:
    """The engine Rules of flags added by `add_rule_options` (ValueError for a bad value)."""
    from arena.engine import Rules

    return Rules(variant=args.variant, bluffing=not args.no_bluffing, uno_penalty=args.uno_penalty,
                 target=args.target, scoring=args.scoring, start_flip=args.start_flip, pairing=args.pairing)
