"""Every `uno-arena` command that README.md and the docs site show exists: its sub-command path answers `--help`
with exit 0.

``arena.cli.build_parser`` leaves out a command module that is missing (``arena/commands/*.py``), so the CLI
itself would not say that a documented command is gone: this test does, and fails (never skips). The
commands are read from the pages' fenced code blocks and inline code spans (``tests.support.doc_commands``);
benchmark output tables (rows of figures that start with ``uno-arena``) are not commands. That each whole
command line parses is checked by tests/docs/test_doc_commands.py.
"""

from __future__ import annotations

import argparse

import pytest

from arena.cli import build_parser, main
from tests.support.cli import subcommands
from tests.support.doc_commands import (
    BENCHMARKS,
    PROGRAM,
    ROOT,
    command_lines,
    documentation_pages,
    invocations,
    page_invocations,
)

DOCUMENTATION = documentation_pages()


def command_path(parser: argparse.ArgumentParser, args: list[str]) -> tuple[str, ...]:
    """The leading sub-command words of ``args`` (``tournament create``, ``bot run``, ``demo``): words are
    taken while the parser reached so far has sub-commands; an unknown word is kept (then ``--help`` fails)."""
    path: list[str] = []
    node = parser
    for word in args:
        choices = subcommands(node)
        if not choices or word.startswith(("-", "[")):
            break
        path.append(word)
        if word not in choices:
            break
        node = choices[word]
    return tuple(path)


def documented_paths() -> list[tuple[str, ...]]:
    parser = build_parser()
    paths = {command_path(parser, args) for page in DOCUMENTATION for args in page_invocations(page)}
    return sorted(path for path in paths if path)


PATHS = documented_paths()


def test_the_documentation_shows_commands_of_every_kind() -> None:
    """The reading above finds the documented commands (a broken reading would pass every check below)."""
    assert len(PATHS) >= 15, PATHS
    for expected in [("demo",), ("serve",), ("worker",), ("scheduler",), ("play",), ("replay",), ("bot", "run"),
                     ("bots", "register"), ("tournament", "create"), ("scenario", "run"), ("doctor",)]:
        assert expected in PATHS, f"`{PROGRAM} {' '.join(expected)}` not found in README.md or docs/: {PATHS}"


def test_the_readme_shows_the_demo_and_each_paths_first_commands() -> None:
    """The README itself shows the demo and the first command of each of its three paths."""
    parser = build_parser()
    readme = {command_path(parser, args) for args in page_invocations(ROOT / "README.md")}
    for expected in [("demo",), ("play",), ("bots", "register"), ("bot", "check"), ("tournament", "create"),
                     ("serve",), ("worker",), ("scheduler",)]:
        assert expected in readme, f"`{PROGRAM} {' '.join(expected)}` not found in README.md: {sorted(readme)}"


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_a_readme_command_exists(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*path, "--help"])
    out, err = capsys.readouterr()
    assert ended.value.code in (0, None), (
        f"the documentation shows `{PROGRAM} {' '.join(path)}`, but the CLI has no such command:\n{err}")
    assert out.startswith("usage: "), out


def test_reading_commands_from_markdown() -> None:
    markdown = "\n".join([
        "Run `uno-arena play --players 3` or `UNO_ARENA_GC=default uno-arena doctor`; not `pip`.",
        "```",
        "python3 -m venv .venv && .venv/bin/uno-arena demo --seats 3",
        "uno-arena tournament schedule --cron \"0 3 * * *\" --bots a,b   # at 03:00",
        "export REDIS_URL=redis://host:6379/0",
        "```",
        "```",
        "configuration                   rounds/s   decisions/s",
        "uno-arena flip 2p                    210       283,557",
        "```",
    ])
    calls = [args for line in command_lines(markdown) for args in invocations(line)]
    assert calls == [
        ["demo", "--seats", "3"],
        ["tournament", "schedule", "--cron", "0 3 * * *", "--bots", "a,b"],
        ["play", "--players", "3"],
        ["doctor"],
    ]
    parser = build_parser()
    assert [command_path(parser, args) for args in calls] == [
        ("demo",), ("tournament", "schedule"), ("play",), ("doctor",)]
    assert command_path(parser, ["tournament", "no-such-thing", "x"]) == ("tournament", "no-such-thing")
    assert command_path(parser, ["bot", "run", "heuristic", "--target", "h:1"]) == ("bot", "run")


def test_reading_benchmark_commands_from_markdown() -> None:
    line = "cd checkout && .venv/bin/python -m benchmarks load --bots 200; python3 -m benchmarks engine | tee x"
    assert invocations(line, BENCHMARKS) == [["load", "--bots", "200"], ["engine"]]
    assert invocations(line) == [] and invocations("python -m arena.cli play", BENCHMARKS) == []
