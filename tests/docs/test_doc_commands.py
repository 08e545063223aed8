"""Every `uno-arena` command README.md and the docs site show parses with the real command-line parser, and so does
every `python -m benchmarks` command (with ``benchmarks.cli.build_parser()``).

A documented command is one a reader copies: each must be accepted as written by ``arena.cli.build_parser()``
(its sub-commands, options, choices and types), so a renamed flag or a dropped choice fails here. Placeholders
are written as values the parser takes (``TOURNAMENT_ID``, ``HOST:PORT``), never as ``[--optional]`` synopses.
A command named in prose (```uno-arena bot run```: sub-command words only) is a name, not a command line: its
existence is checked by tests/test_readme_commands.py.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from arena.cli import build_parser
from benchmarks.cli import build_parser as build_benchmarks_parser
from tests.support.cli import subcommands
from tests.support.doc_commands import BENCHMARKS, PROGRAM, ROOT, documentation_pages, invocations, page_invocations

PAGES = documentation_pages()
PARSER = build_parser()
BENCHMARKS_PARSER = build_benchmarks_parser()


def parse_error(args: list[str], parser: argparse.ArgumentParser = PARSER) -> str | None:
    """Why the real parser refuses ``args`` (its error message), or None when it accepts them."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(args)
    except SystemExit as ended:
        if ended.code not in (0, None):  # --help exits 0
            return stderr.getvalue().strip().splitlines()[-1] if stderr.getvalue().strip() else f"exit {ended.code}"
    return None


def is_command_name(args: list[str]) -> bool:
    """Whether ``args`` are sub-command words only (``[]``, ``["bot", "run"]``): a command named, not run."""
    node = PARSER
    for word in args:
        choices = subcommands(node)
        if word not in choices:
            return False
        node = choices[word]
    return True


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_command_a_page_shows_parses(page: Path) -> None:
    problems = [f"`{PROGRAM} {' '.join(args)}`: {error}" for args in page_invocations(page)
                if not is_command_name(args) and (error := parse_error(args)) is not None]
    assert not problems, f"{page.relative_to(ROOT)} shows commands the CLI refuses:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_benchmark_command_a_page_shows_parses(page: Path) -> None:
    problems = [f"`{BENCHMARKS} {' '.join(args)}`: {error}" for args in page_invocations(page, BENCHMARKS)
                if args and (error := parse_error(args, BENCHMARKS_PARSER)) is not None]
    assert not problems, f"{page.relative_to(ROOT)} shows benchmark commands that do not parse:\n" + "\n".join(problems)


def test_the_pages_show_many_commands() -> None:
    """The reading finds the commands (a reading that found none would pass the tests above)."""
    counts = {page.name: len(page_invocations(page)) + len(page_invocations(page, BENCHMARKS)) for page in PAGES}
    assert sum(counts.values()) >= 60, counts
    for name in ("README.md", "getting-started.md", "writing-a-bot.md", "organizers.md", "operations.md",
                 "benchmarks.md"):
        assert counts.get(name, 0) >= 3, counts


def test_a_refused_command_is_reported_with_the_parsers_reason() -> None:
    assert parse_error(["demo", "--seats", "3"]) is None
    assert parse_error(["play", "--help"]) is None
    assert "--no-such-flag" in (parse_error(["demo", "--no-such-flag"]) or "")
    assert "invalid choice" in (parse_error(["play", "--variant", "mini"]) or "")
    synopsis = invocations("uno-arena demo [--seats 3]")
    assert synopsis == [["demo", "[--seats", "3]"]] and parse_error(synopsis[0]) is not None
    assert is_command_name([]) and is_command_name(["bot", "run"]) and is_command_name(["tournament", "verify"])
    assert not is_command_name(["bot", "run", "heuristic"]) and not is_command_name(["bot", "walk"])
    assert invocations("REDIS_URL=redis://h:6379/0 .venv/bin/uno-arena worker | tee log") == [["worker"]]
