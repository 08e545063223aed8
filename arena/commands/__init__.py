"""Sub-commands of `uno-arena` beyond the engine's, one module per area, each with `register(commands)`, and what
they share: rule options, number types, the error line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any


def fail(message: object, code: int = 2) -> int:
    """Print ``error: MESSAGE`` on stderr and return the exit status ``code`` (2: bad input)."""
    print(f"error: {message}", file=sys.stderr)
    return code


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
    ``target_score``: the default of ``--target-score`` (E4); ``which``: only these (for a command with fixed rules)."""
    from arena.engine.rules import RULE_CHOICES, Rules

    group = parser.add_argument_group("rule options (docs/rules.md)")
    defaults = Rules()
    flags: dict[str, dict[str, Any]] = {  # a rule option with choices offers its enum's words
        name: {"choices": [member.value for member in enum], "default": getattr(defaults, name).value}
        for name, enum in RULE_CHOICES.items()}
    flags["no_bluffing"] = {"action": "store_true", "help": "refuse illegal wild draws (T3)"}
    flags["target_score"] = {"type": int, "default": target_score, "metavar": "POINTS",
                             "help": f"match target score (E4; default {target_score})"}
    for dest in which:
        group.add_argument(f"--{dest.replace('_', '-')}", dest=dest, **flags[dest])


def add_metrics_options(parser: argparse.ArgumentParser, default_port: int) -> None:
    """The options of a long-running command's Prometheus exporter: its port and the address it binds."""
    parser.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                        help=f"Prometheus port (default $UNO_ARENA_METRICS_PORT, else {default_port}; -1: none)")
    parser.add_argument("--metrics-address", default=None, metavar="ADDR",
                        help="address the metrics server binds (default $UNO_ARENA_METRICS_ADDRESS, else 127.0.0.1)")


def rules_from_args(args: argparse.Namespace) -> Any:
    """The engine Rules of flags added by `add_rule_options` (ValueError for a bad value)."""
    from arena.engine import Rules

    return Rules(variant=args.variant, bluffing=not args.no_bluffing, uno_penalty=args.uno_penalty,
                 target=args.target_score, scoring=args.scoring, start_flip=args.start_flip, pairing=args.pairing)


def number(kind: type[int] | type[float], noun: str = "number", ok: Callable[[Any], bool] = lambda _: True,
           problem: str = "") -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` (``noun``: what its error calls it) for which ``ok`` holds (else the
    error ``problem``)."""
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a {noun}, got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{problem}, got {text}")
        return value

    return parse


positive_int = number(int, "whole number", lambda value: value >= 1, "must be at least 1")
"""An argparse type: a whole number of at least 1 (``--deals 0`` is refused, never read as 1)."""
positive_float = number(float, "number", lambda value: value > 0, "must be above 0")
"""An argparse type: a number above 0 (``--bot-cpus 0.5``)."""


def not_negative(kind: type[int] | type[float]) -> Callable[[str], Any]:
    return number(kind, "number", lambda value: value >= 0, "must not be negative")


def run_parsed(args: argparse.Namespace) -> int:
    """Run a parsed command: a long-running one (servers, workers, benchmarks) first sets the garbage collector up
    (:mod:`arena.gc_tuning`; a bad setting is one line and exit status 2)."""
    if getattr(args, "long_running", False):
        from arena.gc_tuning import configure_gc

        try:
            configure_gc()
        except ValueError as error:
            return fail(error)
    return int(args.func(args))
