"""Sub-commands of `uno-arena` beyond the engine's, one module per area, each with `register(commands)`
(`commands`: the argparse sub-parsers object)."""

from __future__ import annotations

import argparse
import sys
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


RULE_FLAGS = ("variant", "no_bluffing", "uno_penalty", "target_score", "scoring", "start_flip", "pairing")
"""The rule options of RULES.md as flags (their dests), in the order the help shows them."""


def add_rule_options(parser: argparse.ArgumentParser, *, target_score: int = 500,
                     which: tuple[str, ...] = RULE_FLAGS) -> None:
    """The rule options of RULES.md as flags (the one place they are defined), with the engine's defaults;
    ``target_score``: the default of ``--target-score`` (the match target score, E4); ``which``: only these (a
    command that plays a fixed set of rules besides)."""
    from arena.engine.rules import RULE_CHOICES, Rules

    unknown = set(which) - set(RULE_FLAGS)
    if unknown:
        raise ValueError(f"unknown rule flags {sorted(unknown)}")
    group = parser.add_argument_group("rule options (docs/rules.md)")
    defaults = Rules()

    def words(name: str) -> dict[str, Any]:  # a rule option's choices are its enum's words
        return {"choices": [member.value for member in RULE_CHOICES[name]], "default": getattr(defaults, name).value}

    flags: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
        "variant": (("--variant",), words("variant")),
        "no_bluffing": (("--no-bluffing",), {"action": "store_true", "help": "refuse illegal wild draws (T3)"}),
        "uno_penalty": (("--uno-penalty",), words("uno_penalty")),
        "target_score": (("--target-score",), {"type": int, "default": target_score, "metavar": "POINTS",
                                               "help": f"match target score (E4; default {target_score})"}),
        "scoring": (("--scoring",), words("scoring")),
        "start_flip": (("--start-flip",), words("start_flip")),
        "pairing": (("--pairing",), words("pairing")),
    }
    for dest in which:
        names, options = flags[dest]
        group.add_argument(*names, dest=dest, **options)


def rules_from_args(args: argparse.Namespace) -> Any:
    """The engine Rules of flags added by `add_rule_options` (ValueError for a bad value)."""
    from arena.engine import Rules

    return Rules(variant=args.variant, bluffing=not args.no_bluffing, uno_penalty=args.uno_penalty,
                 target=args.target_score, scoring=args.scoring, start_flip=args.start_flip, pairing=args.pairing)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``--deals 0`` is refused, never read as 1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number above 0 (``--bot-cpus 0.5``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def not_negative(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of ``kind`` that is not negative."""
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
        return value

    return parse


def run_parsed(args: argparse.Namespace) -> int:
    """Run a parsed command: a long-running one (servers, workers, benchmarks) first sets the garbage collector up
    (:mod:`arena.gc_tuning`; a bad setting is one line and exit status 2)."""
    if getattr(args, "long_running", False):
        from arena.gc_tuning import configure_gc

        try:
            configure_gc()
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    result: int = args.func(args)
    return result
