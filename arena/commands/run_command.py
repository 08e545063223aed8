"""What a bot's start command (`uno-arena bot check --run "node bots/js/bot.js ..."`) names that cannot work, told
before anything starts: a script file (``.py``, ``.js``...) that is not there, relative to the folder the command
runs in. ``node bots/js/bot.js`` typed inside ``bots/js`` names ``bots/js/bots/js/bot.js``; the line says so and
gives the path that is there (``bot.js``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh")
"""Arguments with these endings are taken for a script the command runs (a file that must exist)."""
CODE_FLAGS = frozenset({"-c", "-e", "-m", "-p", "--eval", "--print"})
"""Interpreter options whose next argument is code or a module, never a script path (``python -c``, ``node -e``)."""


def missing_script(argv: Sequence[str], cwd: Path) -> str:
    """One line naming the first script of ``argv`` that is not a file seen from ``cwd`` and the path that is, if any
    (a shorter tail of it, or its name, found there); '' when every script is there. Arguments with a placeholder
    (``{target}``) or an option's ``=`` are not paths."""
    words = argv[1:] if len(argv) > 1 else argv
    for before, word in zip(["", *words], words, strict=False):
        if before in CODE_FLAGS:
            continue
        if word.startswith("-") or "{" in word or "=" in word or not word.endswith(SCRIPT_SUFFIXES):
            continue
        path = Path(word).expanduser()
        if (path if path.is_absolute() else cwd / path).is_file():
            continue
        line = f"--run: {word!r} is not a file in {cwd} (the command runs in the current folder)"
        found = _tail_found(path, cwd)
        return f"{line}: here it is {found!r}" if found else f"{line}: give the script's path from here"
    return ""


def _tail_found(path: Path, cwd: Path) -> str:
    """The shortest-dropped tail of ``path`` that is a file in ``cwd`` (``bots/js/bot.js`` -> ``bot.js``)."""
    parts = path.parts
    for start in range(1, len(parts)):
        tail = Path(*parts[start:])
        if (cwd / tail).is_file():
            return str(tail)
    return ""
