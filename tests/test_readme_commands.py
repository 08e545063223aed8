"""Every `uno-arena` command that README.md shows exists: its sub-command path answers `--help` with exit 0.

``arena.cli.build_parser`` leaves out a command module that is missing (``arena/commands/*.py``), so the CLI
itself would not say that a documented command is gone: this test does, and fails (never skips). The
commands are read from README.md's fenced code blocks and inline code spans; benchmark output tables
(rows of figures that start with ``uno-arena``) are not commands.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from arena.cli import build_parser, main
from tests.support.cli import subcommands

README = Path(__file__).resolve().parents[1] / "README.md"
PROGRAM = "uno-arena"
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FIGURES = re.compile(r"\s{2,}\d[\d,.]*(\s|$)")  # a column of numbers: a benchmark table row, not a command
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS = {"&&", "||", ";", "|", "&"}


def command_lines(markdown: str) -> list[str]:
    """The text of every code line (fenced) and code span (inline) of ``markdown``, fences removed."""
    lines: list[str] = []
    for block in FENCED.findall(markdown):
        lines.extend(block.splitlines())
    without_blocks = FENCED.sub("", markdown)
    lines.extend(INLINE.findall(without_blocks))
    return lines


def invocations(line: str) -> list[list[str]]:
    """The argument lists of each `uno-arena` call on a shell line (after `&&`, `;`, `|`, an env prefix)."""
    if FIGURES.search(line.split(" #", 1)[0]):
        return []
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:  # an unbalanced quote in prose: not a command line
        return []
    calls: list[list[str]] = []
    current: list[str] = []
    for word in [*words, ";"]:
        if word in SEPARATORS:
            while current and ASSIGNMENT.match(current[0]):
                current.pop(0)
            if current and (current[0] == PROGRAM or current[0].endswith(f"/{PROGRAM}")):
                calls.append(current[1:])
            current = []
        else:
            current.append(word)
    return calls


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


def readme_paths() -> list[tuple[str, ...]]:
    parser = build_parser()
    paths = {command_path(parser, args) for line in command_lines(README.read_text()) for args in invocations(line)}
    return sorted(path for path in paths if path)


PATHS = readme_paths()


def test_the_readme_documents_commands_of_every_kind() -> None:
    """The reading above finds the README's commands (a broken reading would pass every check below)."""
    assert len(PATHS) >= 15, PATHS
    for expected in [("demo",), ("serve",), ("worker",), ("scheduler",), ("play",), ("replay",), ("bot", "run"),
                     ("bots", "register"), ("tournament", "create"), ("scenario", "run"), ("bench", "engine")]:
        assert expected in PATHS, f"`{PROGRAM} {' '.join(expected)}` not found in README.md: {PATHS}"


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_a_readme_command_exists(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*path, "--help"])
    out, err = capsys.readouterr()
    assert ended.value.code in (0, None), (
        f"README.md documents `{PROGRAM} {' '.join(path)}`, but the CLI has no such command:\n{err}")
    assert out.startswith("usage: "), out


def test_reading_commands_from_markdown() -> None:
    markdown = "\n".join([
        "Run `uno-arena bench load --bots 200` or `UNO_ARENA_GC=default uno-arena bench engine`; not `pip`.",
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
        ["bench", "load", "--bots", "200"],
        ["bench", "engine"],
    ]
    parser = build_parser()
    assert [command_path(parser, args) for args in calls] == [
        ("demo",), ("tournament", "schedule"), ("bench", "load"), ("bench", "engine")]
    assert command_path(parser, ["tournament", "no-such-thing", "x"]) == ("tournament", "no-such-thing")
    assert command_path(parser, ["bot", "run", "heuristic", "--target", "h:1"]) == ("bot", "run")
