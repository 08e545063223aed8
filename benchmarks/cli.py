"""`python -m benchmarks NAME [options]`: the benchmarks' command line, one sub-command per benchmark (run from the
source checkout: the benchmarks are not installed with the arena)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.commands import run_parsed
from arena.commands.parser import ArenaParser
from benchmarks.commands import (
    batch_fit,
    gateway,
    intervals,
    load,
    play,
    relay,
    remote,
    seating,
    sequential,
    tiers,
    tournament,
    variance,
    web,
)

MODULES = (play, gateway, tournament, load, relay, remote, web, sequential, tiers, seating, variance, intervals,
           batch_fit)
"""Every module of sub-commands, in the order the help lists them."""


def build_parser() -> ArenaParser:
    parser = ArenaParser(prog="python -m benchmarks", description="benchmarks that print their figures")
    commands = parser.add_subparsers(dest="command", required=True, metavar="NAME")
    for module in MODULES:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_parsed(args)
