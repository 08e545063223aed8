"""The `uno-arena` argument parser seen from tests: its sub-commands."""

from __future__ import annotations

import argparse


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-commands of ``parser`` by name (empty when it has none)."""
    for action in parser._actions:  # argparse keeps sub-commands as one _SubParsersAction
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
