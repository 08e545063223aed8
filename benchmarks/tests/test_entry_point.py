"""`python -m benchmarks`, run as a user runs it from the checkout: every benchmark is a sub-command, and a mistyped
one is refused as argparse refuses it, naming the choices (as `uno-arena` does)."""

from __future__ import annotations

import pytest

from benchmarks.cli import build_parser
from benchmarks.tests.cli import run_benchmarks
from tests.support.cli import subcommands

NAMES = {"engine", "search", "gateway", "abuse", "tournament", "faults", "load", "relay", "remote", "web", "ladder",
         "sprt", "tiers", "seating", "duplicates", "control-variate", "intervals", "batch"}
"""The benchmarks `uno-arena bench` had before they left the installed package (issue 37)."""


def test_every_benchmark_is_a_sub_command_that_configures_the_collector() -> None:
    """Each one runs long, so each sets the collector as the arena's long-running commands do (arena.gc_tuning)."""
    commands = subcommands(build_parser())
    assert set(commands) == NAMES
    assert all(parser.get_default("long_running") is True for parser in commands.values())


@pytest.mark.integration
def test_help_and_a_mistyped_name_from_outside() -> None:
    code, out, err = run_benchmarks("--help")
    assert code == 0 and out.startswith("usage: python -m benchmarks") and all(name in out for name in NAMES), err
    code, out, err = run_benchmarks("engin")
    assert code == 2 and not out and "Traceback" not in err and "invalid choice: 'engin'" in err, err
