"""The `uno-arena` commands (and the `python -m benchmarks` ones) a markdown page shows: read from its fenced code
blocks and inline code spans.

Shell lines are split at ``&&``, ``||``, ``;``, ``|`` and ``&``; an environment prefix (``NAME=value``) and a path
before the program (``.venv/bin/uno-arena``) are taken off; benchmark output rows (a command name followed by
columns of figures) are not commands. Used by tests/test_readme_commands.py and tests/docs/.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = "uno-arena"
BENCHMARKS = "python -m benchmarks"
"""The benchmarks' command, run from the checkout (``python``, ``python3`` or a path to either, then
``-m benchmarks``)."""
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FIGURES = re.compile(r"\s{2,}\d[\d,.]*(\s|$)")  # a column of numbers: a benchmark table row, not a command
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS = {"&&", "||", ";", "|", "&"}


def documentation_pages() -> list[Path]:
    """README.md and every page of the docs site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def command_lines(markdown: str) -> list[str]:
    """The text of every code line (fenced) and code span (inline) of ``markdown``, fences removed."""
    lines: list[str] = []
    for block in FENCED.findall(markdown):
        lines.extend(block.splitlines())
    without_blocks = FENCED.sub("", markdown)
    lines.extend(INLINE.findall(without_blocks))
    return lines


def invocations(line: str, program: str = PROGRAM) -> list[list[str]]:
    """The argument lists of each call of ``program`` (:data:`PROGRAM` or :data:`BENCHMARKS`) on a shell line (after
    `&&`, `;`, `|`, an env prefix)."""
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
            if program == BENCHMARKS and _is_python(current[:1]) and current[1:3] == ["-m", "benchmarks"]:
                calls.append(current[3:])
            elif program == PROGRAM and current and (current[0] == PROGRAM or current[0].endswith(f"/{PROGRAM}")):
                calls.append(current[1:])
            current = []
        else:
            current.append(word)
    return calls


def _is_python(words: list[str]) -> bool:
    return bool(words) and words[0].rsplit("/", 1)[-1] in ("python", "python3")


def page_invocations(page: Path, program: str = PROGRAM) -> list[list[str]]:
    """Every call of ``program`` shown on the markdown file ``page``."""
    return [args for line in command_lines(page.read_text(encoding="utf-8")) for args in invocations(line, program)]
