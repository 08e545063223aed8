"""The sub-commands of `python -m benchmarks`, one module per area, each with `register(commands)` (``commands``: the
argparse sub-parsers object of :mod:`benchmarks.cli`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Protocol, TextIO, TypeVar


class BenchReport(Protocol):
    """What a benchmark that runs an arena of processes returns: whether every check held."""

    @property
    def ok(self) -> bool: ...


ReportT = TypeVar("ReportT", bound=BenchReport)


def run_arena_bench(name: str, run: Callable[[TextIO], ReportT], to_json: Callable[[ReportT], str], *,
                    as_json: bool) -> int:
    """Run a benchmark of arena processes (`load`, `remote`): progress on stdout (stderr with ``as_json``, the
    figures then JSON on stdout); a bad option is exit 2, an arena that failed exit 1, each one line."""
    import grpc

    out = sys.stderr if as_json else sys.stdout
    try:
        report = run(out)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a process of the arena died or never came up
        print(f"{name} failed: {error}", file=sys.stderr)
        return 1
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        print(f"{name} failed: the arena answered {getattr(code, 'name', 'an error')}: {details}", file=sys.stderr)
        return 1
    if as_json:
        print(to_json(report), flush=True)
    return 0 if report.ok else 1


def number(text: str) -> float:
    """An argparse type: any number."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def whole(text: str) -> int:
    """An argparse type: any whole number."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
